package local_test

import (
	"context"
	"fmt"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
)

// Semantic recall fully offline: the local store with the hash embedder.
func ExampleNewHashEmbedder() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{
		Store:    memstore.New(),
		Vector:   local.New(),
		Embedder: local.NewHashEmbedder(384),
		Config:   core.Config{SemanticRecall: &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}}},
	})
	_, _ = mem.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "u"})
	var msgs []message.Message
	for _, text := range []string{"I am allergic to peanuts", "The weather is nice", "Let us talk about trains"} {
		m := message.NewMessage(message.RoleUser, text)
		m.ThreadID, m.ResourceID = "t", "u"
		msgs = append(msgs, m)
	}
	_, _ = mem.SaveMessages(ctx, msgs, nil)
	res, _ := mem.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "u", VectorSearch: "peanuts allergy",
		Config: &core.Config{LastMessages: core.NoHistory}})
	for _, m := range res.Messages {
		fmt.Println(m.Text())
	}
	// Output: I am allergic to peanuts
}
