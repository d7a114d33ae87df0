package observe

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/store"
)

// replyModel answers every call with reply and counts the calls.
type replyModel struct {
	mu    sync.Mutex
	reply string
	calls int
}

func (m *replyModel) Generate(context.Context, string, string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	return m.reply, nil
}

// A cycle after a save observes once the unobserved messages pass
// MessageTokens, stores the hints of the reply on the thread, and the next
// Load shows the observations instead of the messages.
func TestAfterSaveObservesPastThreshold(t *testing.T) {
	f := newBufferFixture(t, 5, 5)
	model := &replyModel{reply: "- user likes tea\n<current-task>pick a tea</current-task>"}
	set := &Settings{Observer: model, Reflector: model, MessageTokens: 12, ReflectTokens: 1000, MaxTokensPerBatch: 1000,
		Scope: store.ScopeThread, MaxUnobserved: 1000, Timeout: time.Second, Hints: true}
	o, th := f.c.Observer, f.c.th
	if err := o.AfterSave(bg, set, th, Pending{}); err != nil || model.calls != 0 {
		t.Fatalf("below the threshold: err %v, %d model calls", err, model.calls)
	}
	if err := o.AfterSave(bg, set, th, Pending{InFlight: 5}); err != nil || model.calls != 1 {
		t.Fatalf("past the threshold: err %v, %d model calls", err, model.calls)
	}
	th, err := f.s.GetThread(bg, "t")
	if err != nil {
		t.Fatal(err)
	}
	v, err := o.Load(bg, set, th)
	if err != nil {
		t.Fatal(err)
	}
	if v.Rec.Observations != "- user likes tea" || len(v.Own) != 0 || !v.Past {
		t.Fatalf("view = %+v", v)
	}
	if len(v.Hints) == 0 || !strings.Contains(strings.Join(v.Hints, "\n"), "pick a tea") {
		t.Fatalf("hints = %q", v.Hints)
	}
}
