package cloudsql_test

import (
	"context"

	"github.com/tmc/langchaingo/util/cloudsqlutil"

	lcmem "github.com/agentmem/agentmem/langchaingo"
	"github.com/agentmem/agentmem/langchaingo/cloudsql"
)

// A drop-in for langchaingo's memory/cloudsql: the same engine, table and
// session; the session's rows of upstream's table are imported on first use.
func ExampleNewChatMessageHistory() {
	ctx := context.Background()
	engine, err := cloudsqlutil.NewPostgresEngine(ctx,
		cloudsqlutil.WithCloudSQLInstance("my-project", "us-central1", "my-instance"),
		cloudsqlutil.WithDatabase("chat"),
		cloudsqlutil.WithUser("postgres"),
		cloudsqlutil.WithPassword("secret"),
	)
	if err != nil {
		panic(err)
	}
	defer engine.Close()

	h, err := cloudsql.NewChatMessageHistory(ctx, engine, "chat_history", "alice")
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
