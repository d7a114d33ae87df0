package core_test

import (
	"context"
	"fmt"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// A guest's thread becomes the signed-in user's, with its messages.
func ExampleMemory_MoveThread() {
	ctx := context.Background()
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	if _, err := mem.CreateThread(ctx, core.ThreadInput{ID: "t1", ResourceID: "guest-7"}); err != nil {
		panic(err)
	}
	msg := core.NewMessage(core.RoleUser, "Where is my parcel?")
	msg.ThreadID, msg.ResourceID = "t1", "guest-7"
	if _, err := mem.SaveMessages(ctx, []core.Message{msg}, nil); err != nil {
		panic(err)
	}
	th, err := mem.MoveThread(ctx, "t1", "user-42")
	if err != nil {
		panic(err)
	}
	res, err := mem.Recall(ctx, core.RecallQuery{ThreadID: "t1", ResourceID: "user-42"})
	if err != nil {
		panic(err)
	}
	fmt.Println(th.ResourceID, res.Messages[0].ResourceID, res.Messages[0].Text())
	// Output:
	// user-42 user-42 Where is my parcel?
}

// CloneHistory walks a clone back to the original thread.
func ExampleMemory_CloneHistory() {
	ctx := context.Background()
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	if _, err := mem.CreateThread(ctx, core.ThreadInput{ID: "original", ResourceID: "user-1"}); err != nil {
		panic(err)
	}
	for _, c := range [][2]string{{"original", "draft"}, {"draft", "final"}} {
		if _, _, err := mem.CloneThread(ctx, core.CloneOptions{SourceThreadID: c[0], NewThreadID: c[1]}); err != nil {
			panic(err)
		}
	}
	chain, err := mem.CloneHistory(ctx, "final")
	if err != nil {
		panic(err)
	}
	for _, th := range chain {
		if info, ok := core.CloneInfoOf(th); ok {
			fmt.Println(th.ID, "cloned from", info.SourceThreadID)
		} else {
			fmt.Println(th.ID, "is the original")
		}
	}
	// Output:
	// original is the original
	// draft cloned from original
	// final cloned from draft
}
