package memstore_test

import (
	"context"
	"fmt"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// An in-process store for tests and prototypes.
func ExampleNew() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{Store: memstore.New()})
	th, _ := mem.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "u"})
	msg := message.NewMessage(message.RoleUser, "hello")
	msg.ThreadID, msg.ResourceID = th.ID, th.ResourceID
	_, _ = mem.SaveMessages(ctx, []message.Message{msg}, nil)
	res, _ := mem.Recall(ctx, core.RecallQuery{ThreadID: "t"})
	fmt.Println(len(res.Messages), res.Messages[0].Text())
	// Output: 1 hello
}
