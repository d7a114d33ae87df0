package core_test

import (
	"encoding/json"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// The input filter mirrors Mastra's MemoryInputFilter
// (packages/core/src/processors/memory/memory-input-filter.test.ts).

func filterMsg(id string, role core.Role, parts ...core.Part) core.Message {
	return core.Message{ID: id, Role: role, Content: core.Content{Format: 2, Parts: parts}}
}

func resultPart(callID string) core.Part {
	return core.Part{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
		State: message.ToolStateResult, ToolCallID: callID, ToolName: "tool", Args: json.RawMessage(`{}`), Result: json.RawMessage(`"done"`)}}
}

func callPart(callID string) core.Part {
	return core.Part{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
		State: message.ToolStateCall, ToolCallID: callID, ToolName: "tool", Args: json.RawMessage(`{}`)}}
}

// storedThread returns a memory over a thread "t" holding one stored
// assistant message "stored" (plus extra).
func storedThread(t *testing.T, extra ...core.Message) (*core.Memory, store.Store) {
	t.Helper()
	s := memstore.New()
	msgs := []core.Message{filterMsg("stored", core.RoleAssistant, core.TextPart("stored"))}
	msgs = append(msgs, extra...)
	for i := range msgs {
		msgs[i].ThreadID, msgs[i].ResourceID, msgs[i].CreatedAt = "t", "r", T(i)
	}
	seed(t, s, "t", "r", msgs...)
	return newMem(t, s, core.Config{}), s
}

func persisted(t *testing.T, s store.Store) []core.Message {
	t.Helper()
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	return page.Messages
}

// Mastra: "keeps only trailing tool results for an assistant continuation".
// An echoed assistant message continued by the client with a tool result
// keeps the result (prompt and storage), not the echoed text.
func TestMemoryInputFilterKeepsOnlyTrailingToolResultsForAnAssistantContinuation(t *testing.T) {
	m, s := storedThread(t, filterMsg("asked", core.RoleAssistant, core.TextPart("calling"), callPart("call")))
	in := filterMsg("", core.RoleAssistant, core.TextPart("calling"), resultPart("call"))
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
	if err != nil {
		t.Fatal(err)
	}
	var inputs []core.Message
	for _, msg := range turn.Messages() {
		if msg.Source == core.SourceInput {
			inputs = append(inputs, msg)
		}
	}
	if len(inputs) != 1 || len(inputs[0].Content.Parts) != 1 || inputs[0].Content.Parts[0].ToolInvocation == nil ||
		inputs[0].Content.Parts[0].ToolInvocation.State != message.ToolStateResult {
		t.Fatalf("input in prompt = %+v, want only the tool result", inputs)
	}
	if err := turn.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var results int
	for _, msg := range persisted(t, s) {
		for _, p := range msg.Content.Parts {
			if p.ToolInvocation != nil && p.ToolInvocation.ToolCallID == "call" && p.ToolInvocation.State == message.ToolStateResult {
				results++
			}
			if p.Type == core.PartText && p.Text == "calling" && msg.ID != "asked" {
				t.Fatalf("echoed text stored again in %s", msg.ID)
			}
		}
	}
	if results != 1 {
		t.Fatalf("stored tool results = %d, want 1", results)
	}
}

// Mastra: "preserves a result-less assistant message that is not in storage".
// An instruction message from the caller (e.g. agent-network routing) is the
// prompt and is kept although the thread has history.
func TestMemoryInputFilterPreservesAResultlessAssistantMessageThatIsNotInStorage(t *testing.T) {
	m, _ := storedThread(t)
	routing := filterMsg("routing", core.RoleAssistant, core.TextPart("You will be calling just *one* primitive at a time"))
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{routing}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range turn.Messages() {
		if msg.Source == core.SourceInput {
			got = append(got, msg.ID)
		}
	}
	same(t, "input", got, []string{"routing"})

	// An assistant echo that is stored is still cleared (Mastra: "clears
	// assistant echoes without new tool results for an existing thread").
	m2, _ := storedThread(t, filterMsg("a1", core.RoleAssistant, core.TextPart("echo")))
	turn, err = m2.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
		Input: []core.Message{filterMsg("a1", core.RoleAssistant, core.TextPart("echo"))}})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range turn.Messages() {
		if msg.Source == core.SourceInput {
			t.Fatalf("stored echo kept as input: %s", msg.ID)
		}
	}
}

// Mastra: "preserves full input for an empty thread while stripping assistant
// provider metadata" (OpenAI item ids name server-side items this request never
// created; Mastra issue #24052). Tool results keep theirs.
func TestMemoryInputFilterPreservesFullInputForAnEmptyThreadWhileStrippingAssistantProviderMetadata(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{})
	meta := func(id string) json.RawMessage { return json.RawMessage(`{"openai":{"itemId":"` + id + `"}}`) }
	reasoning := core.Part{Type: core.PartReasoning, Reasoning: "thought", ProviderMetadata: meta("rs_1")}
	text := core.TextPart("answer")
	text.ProviderMetadata = meta("msg_1")
	tool := resultPart("call")
	tool.ProviderMetadata = meta("tool_1")
	in := []core.Message{filterMsg("u1", core.RoleUser, core.TextPart("question")), filterMsg("a1", core.RoleAssistant, reasoning, text, tool)}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: in})
	if err != nil {
		t.Fatal(err)
	}
	check := func(where string, msgs []core.Message) {
		t.Helper()
		var a1 *core.Message
		for i := range msgs {
			if msgs[i].ID == "a1" {
				a1 = &msgs[i]
			}
		}
		if a1 == nil || len(a1.Content.Parts) != 3 {
			t.Fatalf("%s: a1 = %+v", where, a1)
		}
		p := a1.Content.Parts
		if len(p[0].ProviderMetadata) != 0 || len(p[1].ProviderMetadata) != 0 {
			t.Fatalf("%s: assistant provider metadata kept: %s / %s", where, p[0].ProviderMetadata, p[1].ProviderMetadata)
		}
		if len(p[2].ProviderMetadata) == 0 {
			t.Fatalf("%s: tool result lost its provider metadata", where)
		}
	}
	check("prompt", turn.Messages())
	if err := turn.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	check("storage", persisted(t, s))
}

// The client's tool result for a call of a stored assistant message, echoed
// under that message's id (at the end of the input, or before the next user
// message), is merged into the stored message: the call advances to its
// result, nothing is duplicated.
func TestMemoryInputFilterMergesToolResultsIntoTheStoredMessage(t *testing.T) {
	for _, withNext := range []bool{false, true} {
		m, s := storedThread(t, filterMsg("asked", core.RoleAssistant, core.TextPart("calling"), callPart("call")))
		input := []core.Message{filterMsg("asked", core.RoleAssistant, core.TextPart("calling"), resultPart("call"))}
		if withNext {
			input = append(input, filterMsg("", core.RoleUser, core.TextPart("and now?")))
		}
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: input})
		if err != nil {
			t.Fatal(err)
		}
		copies := 0
		for _, msg := range turn.Messages() {
			if msg.ID == "asked" {
				copies++
				if p := msg.Content.Parts; len(p) != 2 || p[0].Text != "calling" || p[1].ToolInvocation.State != message.ToolStateResult {
					t.Fatalf("withNext=%v: prompt copy = %+v", withNext, p)
				}
			}
		}
		if copies != 1 {
			t.Fatalf("withNext=%v: %d copies of the stored message in the prompt", withNext, copies)
		}
		if err := turn.Commit(ctx, nil); err != nil {
			t.Fatal(err)
		}
		stored := persisted(t, s)
		want := 2
		if withNext {
			want = 3
		}
		if len(stored) != want {
			t.Fatalf("withNext=%v: %d stored messages, want %d", withNext, len(stored), want)
		}
		if p := stored[1].Content.Parts; stored[1].ID != "asked" || len(p) != 2 || p[1].ToolInvocation.State != message.ToolStateResult {
			t.Fatalf("withNext=%v: stored message = %+v", withNext, stored[1])
		}
	}
}

// A thread whose stored messages all lie behind its trim boundary loads no
// history, but it is not empty: the filter keeps only what follows the last
// assistant message of an echoed input, not the whole input as a seed.
func TestMemoryInputFilterTreatsAThreadTrimmedWhollyAsNotEmpty(t *testing.T) {
	s := memstore.New()
	stored := []core.Message{filterMsg("u0", core.RoleUser, core.TextPart("first")), filterMsg("a0", core.RoleAssistant, core.TextPart("reply"))}
	for i := range stored {
		stored[i].ThreadID, stored[i].ResourceID, stored[i].CreatedAt = "t", "r", T(i)
	}
	seed(t, s, "t", "r", stored...)
	remove := 100
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 1000, AtMaxRemoveTokens: &remove}}
	if _, err := s.AdvanceBoundary(ctx, "t", "r", store.Boundary{CreatedAt: T(1), MessageIDs: []string{"a0"}, MaxTokens: 1000, AtMaxRemoveTokens: remove}); err != nil {
		t.Fatal(err)
	}
	m := newMem(t, s, cfg)
	in := []core.Message{filterMsg("a-echo", core.RoleAssistant, core.TextPart("reply, echoed under a client id")), filterMsg("u1", core.RoleUser, core.TextPart("next"))}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: in})
	if err != nil {
		t.Fatal(err)
	}
	if h := turn.Messages(); len(h) != 1 || h[0].ID != "u1" {
		t.Fatalf("prompt = %v, want only u1 (nothing loaded, echo dropped)", ids(h))
	}
	if err := turn.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	got := persisted(t, s)
	if len(got) != 3 || got[2].ID != "u1" {
		t.Fatalf("stored = %v, want u0 a0 u1", ids(got))
	}
}
