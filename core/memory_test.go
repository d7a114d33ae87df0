package core_test

import (
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/internal/testenv"
)

// warmTok is testenv.ByteTokenizer that reports when it is asked to load its data.
type warmTok struct {
	testenv.ByteTokenizer
	warmed chan struct{}
}

func (w warmTok) Warm() { close(w.warmed) }

// New starts loading the tokenizer's data in the background, off the first
// request's path.
func TestNewWarmsTokenizer(t *testing.T) {
	tk := warmTok{warmed: make(chan struct{})}
	if _, err := core.New(core.Options{Tokenizer: tk}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-tk.warmed:
	case <-time.After(10 * time.Second):
		t.Fatal("New did not warm the tokenizer")
	}
}
