package core_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/internal/testenv"
)

// TestWorkingMemoryCap: over the cap, the direct API fails with ErrTooLarge
// and the tool tells the model the limit; nothing is stored either way.
func TestWorkingMemoryCap(t *testing.T) {
	m, err := core.New(core.Options{Store: memstore.New(), Tokenizer: testenv.ByteTokenizer{}, MaxWorkingMemoryBytes: 100,
		Config: core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.UpdateWorkingMemory(ctx, "t", "r", strings.Repeat("x", 101), nil); !errors.Is(err, core.ErrTooLarge) {
		t.Fatalf("direct update over the cap: %v", err)
	}
	if err := m.UpdateWorkingMemory(ctx, "t", "r", strings.Repeat("x", 100), nil); err != nil {
		t.Fatalf("at the cap: %v", err)
	}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	tool := turn.Tools()[0]
	if !strings.Contains(tool.Description, "at most 100 bytes") {
		t.Fatalf("tool description does not state the limit: %q", tool.Description)
	}
	args, _ := json.Marshal(map[string]string{"memory": strings.Repeat("y", 5000)})
	out, err := tool.Call(ctx, args)
	if err != nil {
		t.Fatalf("tool call over the cap: %v", err)
	}
	var res struct {
		Success bool
		Message string
	}
	if json.Unmarshal(out, &res) != nil || res.Success || !strings.Contains(res.Message, "the limit is 100") {
		t.Fatalf("tool result %s does not refuse with the limit", out)
	}
	if wm, _ := m.GetWorkingMemory(ctx, "t", "r", nil); wm != strings.Repeat("x", 100) {
		t.Fatalf("working memory changed to %d bytes", len(wm))
	}
}

// TestTitleCap: titles over Options.MaxTitleBytes are refused everywhere a
// caller sets one, with ErrTooLarge, and nothing is written.
func TestTitleCap(t *testing.T) {
	m, err := core.New(core.Options{Store: memstore.New(), MaxTitleBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("t", 11)
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "a", ResourceID: "r", Title: long}); !errors.Is(err, core.ErrTooLarge) {
		t.Fatalf("CreateThread: %v", err)
	}
	if _, err := m.GetThread(ctx, "a", ""); !errors.Is(err, core.ErrThreadNotFound) {
		t.Fatalf("refused create wrote the thread: %v", err)
	}
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "a", ResourceID: "r", Title: "short"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.UpdateThread(ctx, "a", core.ThreadUpdate{Title: &long}); !errors.Is(err, core.ErrTooLarge) {
		t.Fatalf("UpdateThread: %v", err)
	}
	if _, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "a", NewThreadID: "b", Title: &long}); !errors.Is(err, core.ErrTooLarge) {
		t.Fatalf("CloneThread: %v", err)
	}
	if th, _ := m.GetThread(ctx, "a", ""); th.Title != "short" {
		t.Fatalf("title = %q", th.Title)
	}
}

// TestHugeLastNWithTokenBudget: LastN(math.MaxInt) with a token budget
// used to overflow the first page size ("perPage must be >= 0").
func TestHugeLastNWithTokenBudget(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{LastMessages: core.LastN(math.MaxInt), MessageHistory: &core.MessageHistory{MaxTokens: 1000}})
	for i := range 3 {
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "hi")}})
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "hello")}); err != nil {
			t.Fatal(err)
		}
	}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r"})
	if err != nil || len(conv(turn.Messages())) != 6 {
		t.Fatalf("history %v, %v", ids(turn.Messages()), err)
	}
}
