package openai_test

import (
	"context"
	"fmt"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/embed/openai"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

// An Ollama server's OpenAI-compatible endpoint as the embedder of semantic
// recall. New does not contact the server; the first Embed does.
func ExampleNew() {
	emb, err := openai.New(openai.Config{BaseURL: "http://localhost:11434/v1", Model: "nomic-embed-text", Dimension: 768})
	if err != nil {
		panic(err)
	}
	store, _ := sqlite.Open(context.Background(), ":memory:")
	defer store.Close()
	_, err = core.New(core.Options{Store: store, Embedder: emb, EmbeddingDimension: 768})
	fmt.Println(err)
	// Output: <nil>
}
