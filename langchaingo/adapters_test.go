package langchaingo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
)

func TestEmbedderAdapter(t *testing.T) {
	t.Parallel()
	hash := local.NewHashEmbedder(16)
	lc, err := embeddings.NewEmbedder(embeddings.EmbedderClientFunc(hash.Embed))
	require.NoError(t, err)
	vecs, err := Embedder(lc).Embed(context.Background(), []string{"a", "b"})
	require.NoError(t, err)
	want, _ := hash.Embed(context.Background(), []string{"a", "b"})
	assert.Equal(t, want, vecs)

	bad, err := embeddings.NewEmbedder(embeddings.EmbedderClientFunc(func(context.Context, []string) ([][]float32, error) {
		return [][]float32{{1}}, nil
	}))
	require.NoError(t, err)
	_, err = Embedder(bad).Embed(context.Background(), []string{"a", "b"})
	assert.Error(t, err)
}

func TestModelAdapter(t *testing.T) {
	t.Parallel()
	llm := scripted("A title")
	out, err := Model(llm).Generate(context.Background(), "write a title", "User: hi")
	require.NoError(t, err)
	assert.Equal(t, "A title", out)
	req := llm.requests()[0]
	assert.Equal(t, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "write a title"),
		llms.TextParts(llms.ChatMessageTypeHuman, "User: hi"),
	}, req)
}

// Titles are generated through the Model adapter after a chain turn.
func TestTitleThroughModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	titles := make(chan string, 1)
	mem, err := core.New(core.Options{Store: memstore.New(), Model: Model(scripted("Greeting from Jim")),
		Config: core.Config{GenerateTitle: &core.TitleConfig{OnTitle: func(_, title string) { titles <- title }}}})
	require.NoError(t, err)
	buf := NewConversationBuffer(WithMemory(mem), WithThread("t", "jim"))
	_, err = chains.Run(ctx, chains.NewConversation(scripted("hi"), buf), "Hi, I'm Jim")
	require.NoError(t, err)
	require.NoError(t, mem.Close(ctx))
	assert.Equal(t, "Greeting from Jim", <-titles)
}

func TestWorkingMemoryTool(t *testing.T) {
	t.Parallel()
	var got []string
	ct := core.Tool{
		Name:        core.WorkingMemoryToolName,
		Description: "Update the working memory.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"memory":{"type":"string"}},"required":["memory"]}`),
		Call: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			got = append(got, string(args))
			return json.RawMessage(`"Working memory updated"`), nil
		},
	}
	tool := WorkingMemoryTool(ct)
	assert.Equal(t, core.WorkingMemoryToolName, tool.Name())
	assert.Contains(t, tool.Description(), "Update the working memory.")
	assert.Contains(t, tool.Description(), `"memory"`)
	out, err := tool.Call(context.Background(), `{"memory":"# Name: Jim"}`)
	require.NoError(t, err)
	assert.Equal(t, "Working memory updated", out)
	_, err = tool.Call(context.Background(), "# Name: Jim\n- likes <Go>")
	require.NoError(t, err)
	assert.Equal(t, []string{`{"memory":"# Name: Jim"}`, `{"memory":"# Name: Jim\n- likes <Go>"}`}, got)

	failing := WorkingMemoryTool(core.Tool{Name: "x", Call: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("boom")
	}})
	_, err = failing.Call(context.Background(), "a")
	assert.EqualError(t, err, "boom")
	assert.Equal(t, "", failing.Description())
}

// Semantic recall works through LoadMemoryVariables: the human input is the
// query and a matching old message comes back although it is outside the
// last-messages window.
func TestSemanticRecallThroughLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hash := local.NewHashEmbedder(64)
	lc, err := embeddings.NewEmbedder(embeddings.EmbedderClientFunc(hash.Embed))
	require.NoError(t, err)
	mem, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: Embedder(lc),
		Config: core.Config{LastMessages: core.LastN(2),
			SemanticRecall: &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}, Scope: core.ScopeThread}}})
	require.NoError(t, err)
	buf := NewConversationBuffer(WithMemory(mem), WithThread("t", "u"), WithReturnMessages(true))
	say := func(in, out string) {
		_, err := buf.LoadMemoryVariables(ctx, map[string]any{"input": in})
		require.NoError(t, err)
		require.NoError(t, buf.SaveContext(ctx, map[string]any{"input": in}, map[string]any{"text": out}))
	}
	say("My cat is called Whiskers", "Nice name!")
	for i := range 5 {
		say(fmt.Sprint("filler question ", i), fmt.Sprint("filler answer ", i))
	}
	require.NoError(t, mem.Close(ctx))
	vars, err := buf.LoadMemoryVariables(ctx, map[string]any{"input": "What is my cat called? Whiskers?"})
	require.NoError(t, err)
	msgs := vars["history"].([]llms.ChatMessage)
	assert.Contains(t, msgs, llms.ChatMessage(llms.HumanChatMessage{Content: "My cat is called Whiskers"}))
	assert.Equal(t, llms.AIChatMessage{Content: "filler answer 4"}, msgs[len(msgs)-1])
}
