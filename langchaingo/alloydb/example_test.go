package alloydb_test

import (
	"context"

	"github.com/tmc/langchaingo/util/alloydbutil"

	lcmem "github.com/agentmem/agentmem/langchaingo"
	"github.com/agentmem/agentmem/langchaingo/alloydb"
)

// A drop-in for langchaingo's memory/alloydb: the same engine, table and
// session; the session's rows of upstream's table are imported on first use.
func ExampleNewChatMessageHistory() {
	ctx := context.Background()
	engine, err := alloydbutil.NewPostgresEngine(ctx,
		alloydbutil.WithAlloyDBInstance("my-project", "us-central1", "my-cluster", "my-instance"),
		alloydbutil.WithDatabase("chat"),
		alloydbutil.WithUser("postgres"),
		alloydbutil.WithPassword("secret"),
	)
	if err != nil {
		panic(err)
	}
	defer engine.Close()

	h, err := alloydb.NewChatMessageHistory(ctx, engine, "chat_history", "alice")
	if err != nil {
		panic(err)
	}
	if err := h.AddUserMessage(ctx, "Hi, I am Alice."); err != nil {
		panic(err)
	}
	// The history's methods have pointer receivers: pass &h.
	buffer := lcmem.NewConversationBuffer(lcmem.WithChatHistory(&h))
	_ = buffer
}
