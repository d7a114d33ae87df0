package core_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/internal/testenv"
)

func tokenBudget(max, remove int) core.Config {
	return core.Config{MessageHistory: &core.MessageHistory{MaxTokens: max, AtMaxRemoveTokens: core.Int(remove)}}
}

// The trim drops remembered messages in one chunk and never
// touches input or context; a second run trims nothing more.
func TestTrimProtectsTurn(t *testing.T) {
	s := memstore.New()
	seed(t, s, "t", "r", userAt("old", "t", "r", text("old", 100), T(0)), userAt("recent", "t", "r", text("recent", 100), T(1)))
	m := newMem(t, s, tokenBudget(500, 200))
	in := core.NewMessage(core.RoleUser, text("input", 100))
	ctxMsg := core.NewMessage(core.RoleUser, text("ctx", 100))
	ctxMsg.ID = "ctx"
	// Prompt tokens: 2×100 memory + 100 input + 100 context + 3 priming = 403 ≤ 500: nothing trimmed.
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}, Context: []core.Message{ctxMsg}})
	if err != nil {
		t.Fatal(err)
	}
	if len(turn.Trimmed()) != 0 {
		t.Fatalf("trimmed under budget: %v", ids(turn.Trimmed()))
	}
	// A 100-token system prompt pushes it to 503 > 500: trim to ≤ 300 drops both memory messages.
	turn, err = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", System: []string{text("sys", 100)},
		Input: []core.Message{in}, Context: []core.Message{ctxMsg}})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "trimmed", ids(turn.Trimmed()), []string{"old", "recent"})
	var sources []core.Source
	for _, msg := range turn.Messages() {
		sources = append(sources, msg.Source)
	}
	if fmt.Sprint(sources) != "[system context input]" {
		t.Fatalf("sources = %v", sources)
	}
	th, _ := s.GetThread(ctx, "t")
	if th.Boundary == nil || th.Boundary.CreatedAt != T(1) || fmt.Sprint(th.Boundary.MessageIDs) != "[recent]" {
		t.Fatalf("boundary = %+v", th.Boundary)
	}
	turn, _ = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", System: []string{text("sys", 100)}, Input: []core.Message{in}})
	if len(turn.Trimmed()) != 0 || len(conv(turn.Messages())) != 1 {
		t.Fatalf("second run: trimmed %v, prompt %v", ids(turn.Trimmed()), ids(turn.Messages()))
	}
}

// A call and its result (different rows) are dropped together.
func TestTrimAtomicToolGroups(t *testing.T) {
	s := memstore.New()
	call := toolMsg("call", "t", "r", "X", message.ToolStateCall, T(0))
	result := toolMsg("result", "t", "r", "X", message.ToolStateResult, T(1))
	seed(t, s, "t", "r", call, result, userAt("recent", "t", "r", text("recent", 100), T(2)))
	callCost := budget.MessageTokens(testenv.ByteTokenizer{}, &call)
	resultCost := budget.MessageTokens(testenv.ByteTokenizer{}, &result)
	// Budget just below everything: dropping the oldest group alone suffices.
	max := callCost + resultCost + 100 + 100 + 3 - 1
	m := newMem(t, s, tokenBudget(max, 0))
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, text("in", 100))}})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "trimmed", ids(turn.Trimmed()), []string{"call", "result"})
	got := ids(conv(turn.Messages()))
	if len(got) != 2 || got[0] != "recent" {
		t.Fatalf("prompt = %v", got)
	}
}

// Protected content alone over the budget is not an error.
func TestTrimNeverFails(t *testing.T) {
	s := memstore.New()
	seed(t, s, "t", "r", userAt("old", "t", "r", "old", T(0)))
	m := newMem(t, s, tokenBudget(1, 0))
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", System: []string{"long system prompt"},
		Input: []core.Message{core.NewMessage(core.RoleUser, "hello")}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := turn.Messages()
	if len(msgs) != 2 || msgs[0].Role != core.RoleSystem || msgs[1].Text() != "hello" {
		t.Fatalf("prompt = %+v", msgs)
	}
}

// Token-bounded loading reads a bounded number of pages.
func TestFinitePaging(t *testing.T) {
	s := &countingStore{Store: memstore.New()}
	var msgs []core.Message
	for i := 0; i < 1000; i++ {
		msgs = append(msgs, userAt(fmt.Sprintf("m%03d", i), "t", "r", text("x", 10), T(i)))
	}
	seed(t, s, "t", "r", msgs...)
	m := newMem(t, s, tokenBudget(53, 0))
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "retained", ids(res.Messages), []string{"m995", "m996", "m997", "m998", "m999"})
	if n := s.lists.Load(); n != 1 {
		t.Fatalf("ListMessages calls = %d, want 1", n)
	}
	for _, pp := range s.perPages {
		if pp == store.PerPageAll {
			t.Fatal("history load asked for every message")
		}
	}
}

// The boundary excludes only the trimmed ids at its timestamp.
func TestBoundarySameTimestamp(t *testing.T) {
	s := memstore.New()
	seed(t, s, "t", "r", userAt("removed", "t", "r", "r", T(0)), userAt("retained-a", "t", "r", "a", T(0)),
		userAt("retained-b", "t", "r", "b", T(0)), userAt("newer", "t", "r", "n", T(1)))
	if _, err := s.AdvanceBoundary(ctx, "t", "r", store.Boundary{CreatedAt: T(0), MessageIDs: []string{"removed"}, MaxTokens: 1000, AtMaxRemoveTokens: 0}); err != nil {
		t.Fatal(err)
	}
	m := newMem(t, s, tokenBudget(1000, 0))
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "loaded", ids(res.Messages), []string{"retained-a", "retained-b", "newer"})
	// Other limits: another epoch, the boundary is ignored.
	m = newMem(t, s, tokenBudget(2000, 0))
	res, _ = m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r"})
	if len(res.Messages) != 4 {
		t.Fatalf("other epoch honoured the boundary: %v", ids(res.Messages))
	}
	// Explicit paging still returns the trimmed message.
	res, _ = m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if len(res.Messages) != 4 {
		t.Fatalf("paging lost trimmed messages: %v", ids(res.Messages))
	}
}

// A linked pair that does not fit the count cap is not split.
func TestNoSplitAtCountLimit(t *testing.T) {
	s := memstore.New()
	seed(t, s, "t", "r", toolMsg("call", "t", "r", "X", message.ToolStateCall, T(0)), toolMsg("result", "t", "r", "X", message.ToolStateResult, T(1)))
	m := newMem(t, s, core.Config{LastMessages: core.LastN(1), MessageHistory: &core.MessageHistory{MaxTokens: 100000}})
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 0 {
		t.Fatalf("split pair loaded: %v", ids(res.Messages))
	}
}

// The boundary is persisted (title and metadata kept),
// the next turn loads exactly the survivors, storage keeps everything; a
// read-only turn writes no boundary.
func TestBoundaryPersistence(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		s := memstore.New()
		if _, err := s.SaveThread(ctx, core.Thread{ID: "t", ResourceID: "r", Title: "Keep title", Metadata: map[string]any{"unrelated": true}, CreatedAt: T(-1), UpdatedAt: T(-1)}); err != nil {
			t.Fatal(err)
		}
		msgs := []core.Message{userAt("old", "t", "r", text("old", 20), T(0)), userAt("same-time", "t", "r", text("same", 20), T(0)), userAt("newer", "t", "r", text("newer", 20), T(1))}
		for i := range msgs {
			msgs[i].Tokens, msgs[i].TokenEncoding = 20, "bytes"
		}
		if _, err := s.SaveMessages(ctx, msgs); err != nil {
			t.Fatal(err)
		}
		cfg := tokenBudget(60, 0)
		cfg.ReadOnly = core.Bool(readOnly)
		m := newMem(t, s, cfg)
		in := core.NewMessage(core.RoleUser, text("in", 10))
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
		if err != nil {
			t.Fatal(err)
		}
		same(t, "trimmed", ids(turn.Trimmed()), []string{"old"})
		th, _ := s.GetThread(ctx, "t")
		if readOnly {
			if th.Boundary != nil {
				t.Fatalf("read-only turn wrote a boundary: %+v", th.Boundary)
			}
			continue
		}
		if th.Title != "Keep title" || th.Metadata["unrelated"] != true || th.Boundary == nil || fmt.Sprint(th.Boundary.MessageIDs) != "[old]" {
			t.Fatalf("thread after trim = %+v %+v", th, th.Boundary)
		}
		turn, _ = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "x")}})
		same(t, "next turn history", ids(conv(turn.Messages()))[:2], []string{"same-time", "newer"})
		all, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
		if len(all.Messages) != 3 {
			t.Fatalf("storage lost messages: %v", ids(all.Messages))
		}
	}
}

// The input filter and retainFullInput.
func TestInputFilter(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	u1, a1, u2 := core.NewMessage(core.RoleUser, "u1"), core.NewMessage(core.RoleAssistant, "a1"), core.NewMessage(core.RoleUser, "u2")
	// Empty thread: the whole input is the seed.
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{u1, a1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// The client echoes everything (no ids): only u2 is new.
	turn, _ = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{u1, a1, u2}})
	var texts []string
	for _, msg := range turn.Messages() {
		texts = append(texts, msg.Text())
	}
	same(t, "prompt", texts, []string{"u1", "a1", "u2"})
	if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "a2")}); err != nil {
		t.Fatal(err)
	}
	all, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if len(all.Messages) != 4 {
		t.Fatalf("stored %d messages, want 4 (no duplicates)", len(all.Messages))
	}
	// Echo with ids of stored messages: they are dropped, not duplicated.
	echo := all.Messages[:2]
	turn, _ = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: echo, Config: &core.Config{RetainFullInput: core.Bool(true)}})
	_ = turn.Commit(ctx, nil)
	all, _ = m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if len(all.Messages) != 4 {
		t.Fatalf("stored %d messages after id echo, want 4", len(all.Messages))
	}
	// retainFullInput keeps few-shot examples in order and saves them.
	fs1, fs2 := core.NewMessage(core.RoleUser, "example q"), core.NewMessage(core.RoleAssistant, "example a")
	turn, _ = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{fs1, fs2, core.NewMessage(core.RoleUser, "real")},
		Config: &core.Config{RetainFullInput: core.Bool(true)}})
	_ = turn.Commit(ctx, nil)
	all, _ = m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if len(all.Messages) != 7 {
		t.Fatalf("retainFullInput saved %d, want 7", len(all.Messages))
	}
}

// Commit hygiene: system messages, partial calls and working-memory parts are not stored.
func TestCommitHygiene(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	turn, _ := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "hi")}})
	resp := core.Message{Role: core.RoleAssistant, Content: core.Content{Parts: []core.Part{
		{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: message.ToolStatePartialCall, ToolCallID: "p", ToolName: "x"}},
		{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: "w", ToolName: core.WorkingMemoryToolName, Args: []byte(`{"memory":"x"}`), Result: []byte(`{}`)}},
		core.TextPart("Hello <working_memory>secret</working_memory> world"),
	}}}
	if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleSystem, "never stored"), resp}); err != nil {
		t.Fatal(err)
	}
	all, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if len(all.Messages) != 2 || len(all.Messages[1].Content.Parts) != 1 || all.Messages[1].Text() != "Hello  world" {
		t.Fatalf("stored = %+v", all.Messages)
	}
	if err := turn.Commit(ctx, nil); err == nil {
		t.Fatal("second Commit succeeded")
	}
	// NoHistory saves nothing; readOnly saves nothing.
	for _, cfg := range []*core.Config{{LastMessages: core.NoHistory}, {ReadOnly: core.Bool(true)}} {
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t2", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "x")}, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		_ = turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "y")})
		res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t2", PerPage: store.PerPageAll})
		if err == nil && len(res.Messages) != 0 {
			t.Fatalf("%+v saved %d messages", cfg, len(res.Messages))
		}
	}
}

// Orphan tool calls never reach the prompt.
func TestPairingGuard(t *testing.T) {
	s := memstore.New()
	seed(t, s, "t", "r", toolMsg("c1", "t", "r", "dangling", message.ToolStateCall, T(0)), userAt("u", "t", "r", "question", T(1)))
	m := newMem(t, s, core.Config{})
	turn, _ := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "x")}})
	for _, msg := range turn.Messages() {
		if len(msg.ToolCallIDs()) > 0 {
			t.Fatalf("orphan call in prompt: %+v", msg)
		}
	}
	turn, _ = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "x")},
		Config: &core.Config{FilterIncompleteToolCalls: core.Bool(false)}})
	found := false
	for _, msg := range turn.Messages() {
		for _, p := range msg.Content.Parts {
			if p.ToolInvocation != nil && string(p.ToolInvocation.Result) == `{"status":"pending"}` {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("no pending placeholder")
	}
}

// Bad input through the public API: typed errors, nothing written, no panic.
func TestBadInput(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	good := userAt("good", "t", "r", "fine", T(0))
	cases := []struct {
		name string
		msg  core.Message
		want error
	}{
		{"empty thread", userAt("x", "", "r", "x", T(0)), core.ErrMissingThreadID},
		{"empty resource", userAt("x", "t", "", "x", T(0)), core.ErrMissingResourceID},
		{"unknown thread", userAt("x", "nope", "r", "x", T(0)), core.ErrThreadNotFound},
		{"other resource", userAt("x", "t", "intruder", "x", T(0)), core.ErrResourceMismatch},
		{"invalid role", core.Message{ID: "x", Role: "tool", ThreadID: "t", ResourceID: "r", Content: core.Content{Parts: []core.Part{core.TextPart("x")}}}, core.ErrInvalidMessage},
		{"invalid utf8", userAt("x", "t", "r", "bad \xff\xfe", T(0)), core.ErrInvalidMessage},
		{"NUL byte", userAt("x", "t", "r", "nul \x00 here", T(0)), core.ErrInvalidMessage},
		{"tool part without call id", core.Message{ID: "x", Role: core.RoleAssistant, ThreadID: "t", ResourceID: "r", Content: core.Content{Parts: []core.Part{{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: "call"}}}}}, core.ErrInvalidMessage},
		{"5 MB message", userAt("x", "t", "r", strings.Repeat("a", 5<<20), T(0)), core.ErrMessageTooLarge},
	}
	for _, c := range cases {
		_, err := m.SaveMessages(ctx, []core.Message{good, c.msg}, nil)
		if !errors.Is(err, c.want) {
			t.Fatalf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	res, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if len(res.Messages) != 0 {
		t.Fatalf("half-written batch: %v", ids(res.Messages))
	}
	_, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "intruder"})
	if !errors.Is(err, core.ErrResourceMismatch) {
		t.Fatalf("Begin with another resource: %v", err)
	}
	_, err = m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "wrong-resource"})
	if !errors.Is(err, core.ErrResourceMismatch) || !strings.Contains(err.Error(), "is for resource with id r but resource wrong-resource was queried") {
		t.Fatalf("Recall ownership: %v", err)
	}
	if err := m.DeleteMessages(ctx, []string{""}); !errors.Is(err, core.ErrInvalidArgument) || !strings.Contains(err.Error(), "All message IDs must be non-empty strings") {
		t.Fatalf("DeleteMessages(['']): %v", err)
	}
}

// 1,000 turns under a 4,000-token budget with the real tokenizer.
func TestThousandTurns(t *testing.T) {
	s := memstore.New()
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 4000}}
	m1, err := core.New(core.Options{Store: s, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	var last store.Boundary
	for i := 0; i < 1000; i++ {
		mem := m1
		turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", System: []string{"You are a helpful assistant."},
			Input: []core.Message{core.NewMessage(core.RoleUser, fmt.Sprintf("Turn %d: tell me something about the number %d and why it matters.", i, i*7))}})
		if err != nil {
			t.Fatal(err)
		}
		if n := budget.PromptTokens(turn.Messages()); n > 4000 {
			t.Fatalf("turn %d prompt has %d tokens", i, n)
		}
		if b := turn.Thread().Boundary; b != nil {
			if b.CreatedAt.Before(last.CreatedAt) {
				t.Fatalf("boundary moved backwards at turn %d", i)
			}
			last = *b
		}
		reply := fmt.Sprintf("Answer %d: %s", i, strings.Repeat("the number is interesting because ", 1+i%5))
		if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, reply)}); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := m1.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if len(all.Messages) != 2000 {
		t.Fatalf("storage holds %d messages, want 2000", len(all.Messages))
	}
	// A second Memory on the same store continues from the same boundary.
	m2, _ := core.New(core.Options{Store: s, Config: cfg})
	t1, _ := m1.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Config: &core.Config{ReadOnly: core.Bool(true)}})
	t2, _ := m2.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Config: &core.Config{ReadOnly: core.Bool(true)}})
	same(t, "second Memory history", ids(t2.Messages()), ids(t1.Messages()))
	if len(t2.Messages()) == 0 || t2.Messages()[0].CreatedAt.Before(last.CreatedAt) {
		t.Fatal("second Memory did not start after the boundary")
	}
}

// 16 goroutines running turns on one thread and on different threads.
func TestConcurrentTurns(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, tokenBudget(2000, 500))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			thread := "shared"
			if g%2 == 1 {
				thread = fmt.Sprint("own-", g)
			}
			for i := 0; i < 20; i++ {
				turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: thread, ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, text(fmt.Sprint(g, "-", i), 60))}})
				if err != nil {
					errs <- err
					return
				}
				if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, text("ok", 60))}); err != nil {
					errs <- err
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	res, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "shared", PerPage: store.PerPageAll})
	if len(res.Messages) != 8*20*2 {
		t.Fatalf("shared thread holds %d messages, want %d", len(res.Messages), 8*20*2)
	}
}

// A client tool result sent as input is new input, not an echo.
func TestInputFilterKeepsToolResults(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	u1, a1 := core.NewMessage(core.RoleUser, "weather?"), toolMsg("", "", "", "c1", message.ToolStateCall, T(0))
	a1.CreatedAt = time.Time{}
	turn, _ := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{u1}})
	if err := turn.Commit(ctx, []core.Message{a1}); err != nil {
		t.Fatal(err)
	}
	result := toolMsg("", "", "", "c1", message.ToolStateResult, T(0))
	result.CreatedAt = time.Time{}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{u1, a1, result}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := turn.Messages()
	last := msgs[len(msgs)-1]
	if last.Source != core.SourceInput || last.Content.Parts[0].ToolInvocation.State != message.ToolStateResult {
		t.Fatalf("tool result dropped: %+v", last)
	}
}

// Memory tools are available before a turn, bound to a thread.
func TestToolsWithoutTurn(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true}})
	tools, err := m.Tools(ctx, "t", "r", nil)
	if err != nil || len(tools) != 1 || tools[0].Name != core.WorkingMemoryToolName {
		t.Fatalf("tools = %v, %v", tools, err)
	}
	if _, err := tools[0].Call(ctx, []byte(`{"memory":"# Notes\n- likes tea"}`)); err != nil {
		t.Fatal(err)
	}
	wm, _ := m.GetWorkingMemory(ctx, "t", "r", nil)
	if !strings.Contains(wm, "likes tea") {
		t.Fatalf("working memory = %q", wm)
	}
	if tools, _ := m.Tools(ctx, "t", "r", &core.Config{ReadOnly: core.Bool(true)}); len(tools) != 0 {
		t.Fatal("read-only config offers tools")
	}
}

// A context message with a malformed tool part is rejected, not a panic.
func TestBeginBadContextNoPanic(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{})
	bad := core.Message{Role: core.RoleAssistant, Content: core.Content{Parts: []core.Part{badToolPart}}}
	_, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
		Input: []core.Message{core.NewMessage(core.RoleUser, "hi")}, Context: []core.Message{bad}})
	if !errors.Is(err, core.ErrInvalidMessage) {
		t.Fatalf("err = %v, want ErrInvalidMessage", err)
	}
	if _, err := m.GetThread(ctx, "t", ""); !errors.Is(err, core.ErrThreadNotFound) {
		t.Fatalf("bad input created the thread: %v", err)
	}
}

// TestNilTurnAccessors: the accessors of the nil turn a failed Begin returns
// give zero values instead of panicking.
func TestNilTurnAccessors(t *testing.T) {
	var turn *core.Turn
	if turn.Messages() != nil || turn.Tools() != nil || turn.Trimmed() != nil || turn.Thread().ID != "" ||
		turn.RecallErr() != nil || turn.WorkingMemoryErr() != nil || turn.ObservationErr() != nil {
		t.Fatal("a nil turn's accessors must return zero values")
	}
}
