package core_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// A turn: Begin builds the prompt from memory, the model answers, Commit
// stores the input and the response.
func ExampleMemory_Begin() {
	ctx := context.Background()
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	for _, question := range []string{"Hi, I am Ada.", "What is my name?"} {
		turn, err := mem.Begin(ctx, core.TurnRequest{
			ThreadID: "thread-1", ResourceID: "user-1",
			System: []string{"You are terse."},
			Input:  []core.Message{core.NewMessage(core.RoleUser, question)},
		})
		if err != nil {
			panic(err)
		}
		for _, m := range turn.Messages() {
			fmt.Printf("%-8s %-9s %s\n", m.Source, m.Role, m.Text())
		}
		answer := core.NewMessage(core.RoleAssistant, "Hello Ada.")
		if err := turn.Commit(ctx, []core.Message{answer}); err != nil {
			panic(err)
		}
		fmt.Println("--")
	}
	// Output:
	// system   system    You are terse.
	// input    user      Hi, I am Ada.
	// --
	// system   system    You are terse.
	// memory   user      Hi, I am Ada.
	// memory   assistant Hello Ada.
	// input    user      What is my name?
	// --
}

// A token budget covers the whole prompt; trimmed history stays stored and
// later turns start after the thread's persisted boundary.
func ExampleMessageHistory() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{Store: memstore.New(), Config: core.Config{
		MessageHistory: &core.MessageHistory{MaxTokens: 45},
	}})
	for i := 1; i <= 4; i++ {
		turn, _ := mem.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "u",
			Input: []core.Message{core.NewMessage(core.RoleUser, fmt.Sprintf("message number %d", i))}})
		fmt.Printf("turn %d: %d messages, %d tokens\n", i, len(turn.Messages()), budget.PromptTokens(turn.Messages()))
		_ = turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "ok")})
	}
	all, _ := mem.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
	fmt.Println("stored:", len(all.Messages))
	// Output:
	// turn 1: 1 messages, 11 tokens
	// turn 2: 3 messages, 24 tokens
	// turn 3: 5 messages, 37 tokens
	// turn 4: 4 messages, 29 tokens
	// stored: 8
}

// Errors carry stable codes; compare them with errors.Is.
func ExampleError() {
	mem, _ := core.New(core.Options{}) // no storage
	_, err := mem.Recall(context.Background(), core.RecallQuery{ThreadID: "t"})
	fmt.Println(errors.Is(err, core.ErrNoStorage))
	fmt.Println(err)
	// Output:
	// true
	// Memory requires a storage provider to function
}
