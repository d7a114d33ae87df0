package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
)

// saveTexts stores user messages in a thread (example helper).
func saveTexts(ctx context.Context, mem *core.Memory, thread, resource string, texts ...string) {
	_, _ = mem.CreateThread(ctx, core.ThreadInput{ID: thread, ResourceID: resource})
	var msgs []core.Message
	for _, text := range texts {
		m := core.NewMessage(core.RoleUser, text)
		m.ThreadID, m.ResourceID = thread, resource
		msgs = append(msgs, m)
	}
	if _, err := mem.SaveMessages(ctx, msgs, nil); err != nil {
		panic(err)
	}
}

// Recall reads a thread's messages: a page of history, optionally with a
// vector search; the result is always chronological.
func ExampleMemory_Recall() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{Store: memstore.New()})
	saveTexts(ctx, mem, "t", "u", "one", "two", "three", "four")
	page, _ := mem.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "u", PerPage: 2})
	for _, m := range page.Messages {
		fmt.Println(m.Text())
	}
	// Output:
	// three
	// four
}

// Semantic recall brings back an older message of another thread of the same
// resource, fenced in one system message; offline with the local vector store
// and its hash embedder.
func ExampleSemanticRecall() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{
		Store:    memstore.New(),
		Vector:   local.New(),
		Embedder: local.NewHashEmbedder(384),
		Config: core.Config{
			LastMessages:   core.LastN(2),
			SemanticRecall: &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}},
		},
	})
	saveTexts(ctx, mem, "yesterday", "ada", "I am allergic to peanuts", "The weather is nice")
	turn, _ := mem.Begin(ctx, core.TurnRequest{ThreadID: "today", ResourceID: "ada",
		Input: []core.Message{core.NewMessage(core.RoleUser, "Which nuts should I avoid, given my allergy to peanuts?")}})
	for _, m := range turn.Messages() {
		if m.Role == core.RoleSystem {
			fmt.Println(strings.Contains(m.Text(), "I am allergic to peanuts"))
		}
	}
	// Output: true
}

// Working memory: the model updates it through the updateWorkingMemory tool,
// and every later turn of the resource sees it as a system message.
func ExampleWorkingMemoryConfig() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{Store: memstore.New(), Config: core.Config{
		WorkingMemory: &core.WorkingMemoryConfig{Enabled: true, Template: "# User\n- Name:\n"},
	}})
	turn, _ := mem.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "u",
		Input: []core.Message{core.NewMessage(core.RoleUser, "I am Ada.")}})
	tool := turn.Tools()[0]
	args, _ := json.Marshal(map[string]string{"memory": "# User\n- Name: Ada\n"})
	if _, err := tool.Call(ctx, args); err != nil {
		panic(err)
	}
	_ = turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "Hello Ada.")})
	wm, _ := mem.GetWorkingMemory(ctx, "t", "u", nil)
	fmt.Println(tool.Name)
	fmt.Print(wm)
	// Output:
	// updateWorkingMemory
	// # User
	// - Name: Ada
}

// CloneThread copies a thread and its messages under new ids; the clone
// records where it came from.
func ExampleMemory_CloneThread() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{Store: memstore.New()})
	saveTexts(ctx, mem, "t", "u", "first", "second")
	th, msgs, _ := mem.CloneThread(ctx, core.CloneOptions{SourceThreadID: "t", NewThreadID: "t-copy"})
	clone := th.Metadata["clone"].(map[string]any)
	fmt.Println(th.ID, len(msgs), clone["sourceThreadId"])
	// Output: t-copy 2 t
}

// oneLineModel answers every call with one line (example helper).
type oneLineModel struct{ answer string }

func (s oneLineModel) Generate(context.Context, string, string) (string, error) {
	return s.answer, nil
}

// Observational memory: once the unobserved messages pass MessageTokens, the
// observer condenses them into observations, which later prompts carry
// instead of the raw messages.
func ExampleObservationalMemoryConfig() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{Store: memstore.New(), Config: core.Config{
		ObservationalMemory: &core.ObservationalMemoryConfig{
			Model:       oneLineModel{"* The user is planning a trip to Lisbon."},
			Observation: core.ObservationConfig{MessageTokens: 20},
		},
	}})
	for _, q := range []string{"I am planning a trip to Lisbon in May.", "What should I pack?"} {
		turn, _ := mem.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "u",
			Input: []core.Message{core.NewMessage(core.RoleUser, q)}})
		_ = turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "Noted, tell me more about your plans.")})
	}
	rec, _ := mem.Observations(ctx, "t", "u", nil)
	fmt.Println(strings.Contains(rec.Observations, "Lisbon"))
	// Output: true
}

// ObserveNow observes a thread below the threshold; ClearObservations then
// resets the record, and the messages count as unobserved again.
func ExampleMemory_ClearObservations() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{Store: memstore.New(), Config: core.Config{
		ObservationalMemory: &core.ObservationalMemoryConfig{Model: oneLineModel{"* The user is planning a trip to Lisbon."}},
	}})
	saveTexts(ctx, mem, "t", "u", "I am planning a trip to Lisbon in May.")
	rec, _ := mem.ObserveNow(ctx, "t", "u", nil)
	fmt.Println(rec.Observations)
	rec, _ = mem.ClearObservations(ctx, "t", "u", nil)
	fmt.Printf("%q %v\n", rec.Observations, rec.LastObservedAt.IsZero())
	// Output:
	// * The user is planning a trip to Lisbon.
	// "" true
}
