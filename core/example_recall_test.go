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

// Retrieval offers the model the recall tool: it searches the resource's
// stored messages and gets them back fenced, with ids, threads and dates.
func ExampleRetrieval() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{
		Store:    memstore.New(),
		Vector:   local.New(),
		Embedder: local.NewHashEmbedder(384),
		Config:   core.Config{SemanticRecall: &core.SemanticRecall{Retrieval: &core.Retrieval{TopK: 1}}},
	})
	saveTexts(ctx, mem, "trip", "ada", "My flight to Lisbon leaves at 9 on Friday", "The weather is nice")
	tools, _ := mem.Tools(ctx, "today", "ada", nil)
	out, _ := tools[0].Call(ctx, json.RawMessage(`{"query":"when does my flight leave"}`))
	var res struct{ Messages string }
	_ = json.Unmarshal(out, &res)
	fmt.Println(tools[0].Name, strings.Contains(res.Messages, "[thread trip]"), strings.Contains(res.Messages, "Lisbon"))
	// Output: recall true true
}

// Diversity re-ranks the semantic recall hits so that TopK covers
// different messages; a text said twice never takes two slots, with or
// without it.
func ExampleDiversity() {
	ctx := context.Background()
	mem, _ := core.New(core.Options{
		Store:    memstore.New(),
		Vector:   local.New(),
		Embedder: local.NewHashEmbedder(384),
		Config: core.Config{SemanticRecall: &core.SemanticRecall{TopK: 2, MessageRange: &core.MessageRange{},
			Diversity: &core.Diversity{Lambda: core.Float(0.8)}}},
	})
	saveTexts(ctx, mem, "t", "ada", "Where is my parcel?", "where is my parcel", "The parcel is in Leipzig")
	res, _ := mem.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "ada", VectorSearch: "parcel location",
		Config: &core.Config{LastMessages: core.NoHistory}})
	for _, m := range res.Messages {
		fmt.Println(m.Text())
	}
	// Output:
	// Where is my parcel?
	// The parcel is in Leipzig
}
