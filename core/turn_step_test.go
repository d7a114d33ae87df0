package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/tokenizer"
)

// callMsg and resultMsg are an agent loop's assistant tool call and its
// tool result, as adapters hand them to Step and Commit.
func callMsg(callID string) core.Message {
	return core.Message{Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{{Type: core.PartToolInvocation,
		ToolInvocation: &message.ToolInvocation{State: message.ToolStateCall, ToolCallID: callID, ToolName: "search", Args: json.RawMessage(`{"q":"` + callID + `"}`)}}}}}
}

func resultMsg(callID, result string) core.Message {
	r, _ := json.Marshal(result)
	return core.Message{Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{{Type: core.PartToolInvocation,
		ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: callID, ToolName: "search", Args: json.RawMessage(`{"q":"` + callID + `"}`), Result: r}}}}}
}

// toolResults maps the call ids of the tool results in msgs to their result.
func toolResults(msgs []core.Message) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Content.Parts {
			if ti := p.ToolInvocation; ti != nil && ti.State == message.ToolStateResult {
				out[ti.ToolCallID] = string(ti.Result)
			}
		}
	}
	return out
}

// tokensText is a text of at least n tokens under tk.
func tokensText(tk *tokenizer.Tokenizer, tag string, n int) string {
	var b strings.Builder
	b.WriteString(tag)
	for tk.Count(b.String()) < n {
		for range 25 {
			fmt.Fprintf(&b, " %s line %d of the report", tag, b.Len())
		}
	}
	return b.String()
}

// A 20-step tool loop whose tool results are 5k tokens each, under an 8k
// budget, over a thread with history: every model call's prompt (counted
// afresh with the tokenizer) is within the budget, the newest tool result
// is always whole, every call keeps its result, and Commit stores every
// result whole.
func TestStepToolLoopStaysInBudget(t *testing.T) {
	const maxTokens, steps = 8000, 20
	tk := tokenizer.Default()
	s := memstore.New()
	m, err := core.New(core.Options{Store: s, Tokenizer: tk, Config: core.Config{LastMessages: core.AllMessages, MessageHistory: &core.MessageHistory{MaxTokens: maxTokens}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "loop", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, tokensText(tk, fmt.Sprint("q", i), 300))}})
		if err != nil {
			t.Fatal(err)
		}
		if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, tokensText(tk, fmt.Sprint("a", i), 300))}); err != nil {
			t.Fatal(err)
		}
	}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "loop", ResourceID: "r", System: []string{"You research."},
		Input: []core.Message{core.NewMessage(core.RoleUser, "Research everything.")}})
	if err != nil {
		t.Fatal(err)
	}
	var produced []core.Message
	whole := map[string]string{}
	for step := range steps {
		prompt, err := turn.Step(ctx, produced)
		if err != nil {
			t.Fatal(err)
		}
		total := budget.ReplyPriming
		for i := range prompt {
			total += budget.MessageTokens(tk, &prompt[i])
		}
		if total > maxTokens {
			t.Fatalf("step %d: prompt of %d tokens, budget %d", step, total, maxTokens)
		}
		got := toolResults(prompt)
		if step > 0 {
			latest := fmt.Sprint("c", step-1)
			if got[latest] != whole[latest] {
				t.Fatalf("step %d: latest tool result not whole: %.80s", step, got[latest])
			}
		}
		for id := range whole {
			if _, ok := got[id]; !ok {
				t.Fatalf("step %d: the result of %s left the prompt", step, id)
			}
		}
		if prompt[len(prompt)-1].Role == core.RoleUser && step > 0 {
			t.Fatalf("step %d: the loop's messages are not last", step)
		}
		id := fmt.Sprint("c", step)
		res := resultMsg(id, tokensText(tk, id, 5000))
		whole[id] = string(res.Content.Parts[0].ToolInvocation.Result)
		produced = append(produced, callMsg(id), res)
	}
	if err := turn.Commit(ctx, append(produced, core.NewMessage(core.RoleAssistant, "Done."))); err != nil {
		t.Fatal(err)
	}
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: "loop", ResourceID: "r", PerPage: 1000})
	if err != nil {
		t.Fatal(err)
	}
	stored := toolResults(page.Messages)
	for id, w := range whole {
		if stored[id] != w {
			t.Fatalf("stored result of %s is not the tool's: %.80s", id, stored[id])
		}
	}
}

// stepFixture is a turn over three remembered messages of 100 tokens (testenv.ByteTokenizer),
// a 20-token system message and input, and a produced loop of three tool
// results of about 1000 tokens.
func stepFixture(t *testing.T, opts core.StepOptions, maxTokens int, procs ...core.Processor) (*core.Turn, []core.Message, store.Store) {
	t.Helper()
	s := memstore.New()
	seed(t, s, "t", "r", userAt("h1", "t", "r", text("h1", 100), T(1)), userAt("h2", "t", "r", text("h2", 100), T(2)), userAt("h3", "t", "r", text("h3", 100), T(3)))
	m, err := core.New(core.Options{Store: s, Tokenizer: testenv.ByteTokenizer{}, Step: opts, Processors: procs,
		Config: core.Config{LastMessages: core.AllMessages, MessageHistory: &core.MessageHistory{MaxTokens: maxTokens, AtMaxRemoveTokens: core.Int(0)}}})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", System: []string{text("sys", 20)}, Input: []core.Message{core.NewMessage(core.RoleUser, "go")}})
	if err != nil {
		t.Fatal(err)
	}
	var produced []core.Message
	for i := range 3 {
		id := fmt.Sprint("c", i)
		produced = append(produced, callMsg(id), resultMsg(id, strings.Repeat("x", 1000)))
	}
	return turn, produced, s
}

func historyIDs(msgs []core.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Source == core.SourceMemory {
			out = append(out, m.ID)
		}
	}
	return out
}

func elided(msgs []core.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Content.Parts {
			if ti := p.ToolInvocation; ti != nil && ti.State == message.ToolStateResult && strings.Contains(string(ti.Result), "elided") {
				out = append(out, ti.ToolCallID)
			}
		}
	}
	return out
}

// By default remembered history gives way before any tool result of the
// turn; then the oldest results are elided, to a stub naming the tool.
func TestStepHistoryBeforeToolResults(t *testing.T) {
	turn, produced, _ := stepFixture(t, core.StepOptions{}, 2500)
	p, err := turn.Step(ctx, produced)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "history", historyIDs(p), nil)
	same(t, "elided", elided(p), []string{"c0"})
	if r := toolResults(p)["c0"]; !strings.Contains(r, `\"search\"`) {
		t.Fatalf("stub does not name the tool: %s", r)
	}
	if got := budget.PromptTokens(p); got > 2500 {
		t.Fatalf("prompt %d tokens > 2500", got)
	}
}

// A budget that history alone can make fit elides nothing.
func TestStepTrimsHistoryOnly(t *testing.T) {
	turn, produced, _ := stepFixture(t, core.StepOptions{}, 3400)
	p, err := turn.Step(ctx, produced)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "history", historyIDs(p), []string{"h2", "h3"})
	same(t, "elided", elided(p), nil)
}

// ElideFirst elides the turn's oldest tool results and keeps the history.
func TestStepElideFirst(t *testing.T) {
	turn, produced, _ := stepFixture(t, core.StepOptions{ToolResults: core.ElideFirst}, 2500)
	p, err := turn.Step(ctx, produced)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "history", historyIDs(p), []string{"h1", "h2", "h3"})
	same(t, "elided", elided(p), []string{"c0", "c1"})
}

// KeepLatest keeps the newest results whole even when the prompt then
// exceeds the budget; KeepToolResults never elides.
func TestStepKeepsLatestResults(t *testing.T) {
	turn, produced, _ := stepFixture(t, core.StepOptions{KeepLatest: 2}, 1500)
	p, err := turn.Step(ctx, produced)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "elided", elided(p), []string{"c0"})
	turn, produced, _ = stepFixture(t, core.StepOptions{ToolResults: core.KeepToolResults}, 1500)
	if p, err = turn.Step(ctx, produced); err != nil {
		t.Fatal(err)
	}
	same(t, "elided", elided(p), nil)
	same(t, "history", historyIDs(p), nil)
}

// A step saves the turn's input and the loop's messages whole (the prompt's
// elided results are not what is stored) and moves no boundary; Commit then
// saves only the final answer, and nothing is stored twice.
func TestStepSavesTheLoop(t *testing.T) {
	turn, produced, s := stepFixture(t, core.StepOptions{}, 2500)
	p, err := turn.Step(ctx, produced)
	if err != nil {
		t.Fatal(err)
	}
	if len(elided(p)) == 0 {
		t.Fatal("the fixture's step elided nothing")
	}
	stored := func() []core.Message {
		t.Helper()
		page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: "t", ResourceID: "r", PerPage: 100})
		if err != nil {
			t.Fatal(err)
		}
		return page.Messages
	}
	if got := loopTags(stored()); got != "h1 h2 h3 go c0 r:c0 c1 r:c1 c2 r:c2" {
		t.Fatalf("stored after the step: %s", got)
	}
	same(t, "elided in storage", elided(stored()), nil)
	th, err := s.GetThread(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if th.Boundary != nil {
		t.Fatalf("a step moved the boundary to %v", th.Boundary)
	}
	if err := turn.Commit(ctx, append(produced, core.NewMessage(core.RoleAssistant, "done"))); err != nil {
		t.Fatal(err)
	}
	if got := loopTags(stored()); got != "h1 h2 h3 go c0 r:c0 c1 r:c1 c2 r:c2 done" {
		t.Fatalf("stored after Commit: %s", got)
	}
	if _, err := turn.Step(ctx, produced); !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Fatalf("Step after Commit: %v", err)
	}
}

// loopTags names stored messages in order: a tool call by its call id, a
// result as r:<call id>, a text by its first word (without the padding of
// text()).
func loopTags(msgs []core.Message) string {
	var out []string
	for _, m := range msgs {
		switch ti := m.Content.Parts[0].ToolInvocation; {
		case ti != nil && ti.State == message.ToolStateResult:
			out = append(out, "r:"+ti.ToolCallID)
		case ti != nil:
			out = append(out, ti.ToolCallID)
		default:
			out = append(out, strings.TrimRight(strings.Fields(m.Text())[0], "."))
		}
	}
	return strings.Join(out, " ")
}

// A bad produced message fails the step with a typed error.
func TestStepBadInput(t *testing.T) {
	turn, produced, _ := stepFixture(t, core.StepOptions{}, 2500)
	bad := append(produced, core.Message{Role: "robot", Content: core.Content{Format: 2, Parts: []core.Part{core.TextPart("x")}}})
	if _, err := turn.Step(ctx, bad); !errors.Is(err, memerr.ErrInvalidMessage) {
		t.Fatalf("Step with a bad role: %v", err)
	}
	other := produced[0]
	other.ThreadID = "elsewhere"
	if _, err := turn.Step(ctx, []core.Message{other}); !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Fatalf("Step with another thread's message: %v", err)
	}
	var nilTurn *core.Turn
	if _, err := nilTurn.Step(ctx, nil); !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Fatalf("Step on a nil turn: %v", err)
	}
	if _, err := core.New(core.Options{Step: core.StepOptions{ToolResults: "drop"}}); !errors.Is(err, memerr.ErrInvalidConfig) {
		t.Fatalf("New with an unknown tool-result policy: %v", err)
	}
}

// stepCounter counts the prompts it sees: ProcessInput at Begin,
// ProcessInputStep at every step.
type stepCounter struct{ begin, steps int }

func (c *stepCounter) ProcessInput(_ context.Context, in core.ProcessorInput) ([]core.Message, error) {
	c.begin++
	return in.Messages, nil
}

func (c *stepCounter) ProcessInputStep(_ context.Context, in core.ProcessorInput) ([]core.Message, error) {
	c.steps++
	return in.Messages[1:], nil // drops the instructions, to show its output is used
}

// A StepProcessor runs at every step on the fitted prompt and its output is
// the step's prompt.
func TestStepProcessors(t *testing.T) {
	c := &stepCounter{}
	turn, produced, _ := stepFixture(t, core.StepOptions{}, 10000, c)
	for range 2 {
		p, err := turn.Step(ctx, produced)
		if err != nil {
			t.Fatal(err)
		}
		if p[0].Role == core.RoleSystem {
			t.Fatal("the step processor's output was not used")
		}
	}
	if c.begin != 1 || c.steps != 2 {
		t.Fatalf("ProcessInput ran %d times, ProcessInputStep %d, want 1 and 2", c.begin, c.steps)
	}
}

// With observational memory the history is what is not yet observed, which
// a step never trims (as Begin does not): tool results are elided instead.
func TestStepObservedHistoryStays(t *testing.T) {
	s := memstore.New()
	seed(t, s, "t", "r", userAt("h1", "t", "r", text("h1", 100), T(1)), userAt("h2", "t", "r", text("h2", 100), T(2)), userAt("h3", "t", "r", text("h3", 100), T(3)))
	cfg := observationConfig(&observerModel{}, &reflectorModel{}, 100000, 100000)
	cfg.LastMessages = core.AllMessages
	cfg.MessageHistory = &core.MessageHistory{MaxTokens: 2500, AtMaxRemoveTokens: core.Int(0)}
	m := newMem(t, s, cfg)
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "go")}})
	if err != nil {
		t.Fatal(err)
	}
	var produced []core.Message
	for i := range 3 {
		id := fmt.Sprint("c", i)
		produced = append(produced, callMsg(id), resultMsg(id, strings.Repeat("x", 1000)))
	}
	p, err := turn.Step(ctx, produced)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "history", historyIDs(p), []string{"h1", "h2", "h3"})
	same(t, "elided", elided(p), []string{"c0", "c1"})
}
