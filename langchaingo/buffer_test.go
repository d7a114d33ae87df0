package langchaingo

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"

	"github.com/agentmem/agentmem/core"
)

func TestDefaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	up := memory.NewConversationBuffer()
	ours := NewConversationBuffer()
	assert.Equal(t, up.HumanPrefix, ours.HumanPrefix)
	assert.Equal(t, up.AIPrefix, ours.AIPrefix)
	assert.Equal(t, up.MemoryKey, ours.MemoryKey)
	assert.Equal(t, up.InputKey, ours.InputKey)
	assert.Equal(t, up.OutputKey, ours.OutputKey)
	assert.Equal(t, up.ReturnMessages, ours.ReturnMessages)
	assert.Equal(t, up.MemoryVariables(ctx), ours.MemoryVariables(ctx))
	assert.Equal(t, up.GetMemoryKey(ctx), ours.GetMemoryKey(ctx))
	assert.IsType(t, &ChatMessageHistory{}, ours.ChatHistory)
	assert.Equal(t, 5, NewConversationWindowBuffer(0).ConversationWindowSize)

	custom := NewConversationBuffer(WithMemoryKey("chat"), WithHumanPrefix("User"), WithAIPrefix("Bot"),
		WithInputKey("q"), WithOutputKey("a"))
	require.NoError(t, custom.SaveContext(ctx, map[string]any{"q": "hi", "other": 1}, map[string]any{"a": "hello", "x": 2}))
	vars, err := custom.LoadMemoryVariables(ctx, map[string]any{"q": "next"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"chat": "User: hi\nBot: hello"}, vars)
}

// SaveContext errors are upstream's, and nothing is saved on error.
func TestSaveErrorsMatchUpstream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct{ in, out map[string]any }{
		{map[string]any{"a": "x", "b": "y"}, map[string]any{"o": "z"}},
		{map[string]any{}, map[string]any{"o": "z"}},
		{map[string]any{"a": 1}, map[string]any{"o": "z"}},
		{map[string]any{"a": "x"}, map[string]any{"o": "z", "p": "w"}},
	}
	for _, c := range cases {
		upErr := memory.NewConversationBuffer().SaveContext(ctx, c.in, c.out)
		ours := NewConversationBuffer()
		err := ours.SaveContext(ctx, c.in, c.out)
		require.Error(t, err)
		assert.ErrorIs(t, err, memory.ErrInvalidInputValues)
		assert.ErrorIs(t, err, ErrInvalidInputValues)
		assert.Equal(t, upErr.Error(), err.Error())
		msgs, err := ours.ChatHistory.Messages(ctx)
		require.NoError(t, err)
		assert.Empty(t, msgs, "nothing saved")
	}
}

func TestThreadFromInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem := newMem(t, core.Config{})
	buf := NewConversationBuffer(WithMemory(mem), WithThreadFromInput("thread_id", "user_id"))
	chain := chains.NewConversation(scripted("A1", "B1", "A2"), buf)
	call := func(thread, user, input string) string {
		out, err := chains.Call(ctx, chain, map[string]any{"input": input, "thread_id": thread, "user_id": user})
		require.NoError(t, err)
		return out["text"].(string)
	}
	call("a", "alice", "hello from a")
	call("b", "bob", "hello from b")
	call("a", "alice", "again from a")

	ha := NewChatMessageHistory(WithHistoryMemory(mem), WithHistoryThread("a", "alice"))
	msgs, err := ha.Messages(ctx)
	require.NoError(t, err)
	assert.Equal(t, []llms.ChatMessage{
		llms.HumanChatMessage{Content: "hello from a"}, llms.AIChatMessage{Content: "A1"},
		llms.HumanChatMessage{Content: "again from a"}, llms.AIChatMessage{Content: "A2"},
	}, msgs)

	// Missing keys fail, as does another resource's thread.
	_, err = chains.Call(ctx, chain, map[string]any{"input": "x"})
	assert.ErrorIs(t, err, memory.ErrInvalidInputValues)
	_, err = chains.Call(ctx, chain, map[string]any{"input": "x", "thread_id": "a", "user_id": "mallory"})
	assert.ErrorIs(t, err, core.ErrResourceMismatch)
}

func TestThreadFromContext(t *testing.T) {
	t.Parallel()
	mem := newMem(t, core.Config{})
	buf := NewConversationBuffer(WithMemory(mem), WithThreadFromContext(), WithThread("fallback", "u"))
	chain := chains.NewConversation(scripted("ok"), buf)
	ctxA := ContextWithThread(context.Background(), "ta", "u")
	_, err := chains.Run(ctxA, chain, "in a")
	require.NoError(t, err)
	_, err = chains.Run(context.Background(), chain, "in fallback")
	require.NoError(t, err)

	tid, rid, ok := ThreadFromContext(ctxA)
	assert.True(t, ok)
	assert.Equal(t, []string{"ta", "u"}, []string{tid, rid})
	for thread, want := range map[string]string{"ta": "in a", "fallback": "in fallback"} {
		msgs, err := NewChatMessageHistory(WithHistoryMemory(mem), WithHistoryThread(thread, "u")).Messages(context.Background())
		require.NoError(t, err)
		require.Len(t, msgs, 2)
		assert.Equal(t, llms.HumanChatMessage{Content: want}, msgs[0])
	}
	vars, err := buf.LoadMemoryVariables(ctxA, map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, "Human: in a\nAI: ok", vars["history"])

	require.NoError(t, buf.Clear(ctxA))
	vars, err = buf.LoadMemoryVariables(ctxA, map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, "", vars["history"])
	vars, err = buf.LoadMemoryVariables(context.Background(), map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, "Human: in fallback\nAI: ok", vars["history"], "other threads are not cleared")
}

func TestWithSystemAndConfig(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	buf := NewConversationBuffer(WithSystem("You are terse."), WithConfig(core.Config{LastMessages: core.LastN(2)}))
	for _, q := range []string{"one", "two"} {
		require.NoError(t, buf.SaveContext(ctx, map[string]any{"input": q}, map[string]any{"text": q + "!"}))
	}
	vars, err := buf.LoadMemoryVariables(ctx, map[string]any{"input": "three"})
	require.NoError(t, err)
	assert.Equal(t, "system: You are terse.\nHuman: two\nAI: two!", vars["history"])

	buf.ReturnMessages = true
	vars, err = buf.LoadMemoryVariables(ctx, map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, []llms.ChatMessage{llms.SystemChatMessage{Content: "You are terse."},
		llms.HumanChatMessage{Content: "two"}, llms.AIChatMessage{Content: "two!"}}, vars["history"])
}

// A load whose chain fails is never committed; the next save of the same
// input commits the newest load.
func TestPendingTurns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	buf := NewConversationBuffer()
	in := map[string]any{"input": "q"}
	for range maxPendingTurns + 10 {
		_, err := buf.LoadMemoryVariables(ctx, in)
		require.NoError(t, err)
	}
	assert.Equal(t, maxPendingTurns, buf.x.pending.n)
	require.NoError(t, buf.SaveContext(ctx, in, map[string]any{"text": "a"}))
	msgs, err := buf.ChatHistory.Messages(ctx)
	require.NoError(t, err)
	assert.Equal(t, []llms.ChatMessage{llms.HumanChatMessage{Content: "q"}, llms.AIChatMessage{Content: "a"}}, msgs)
	require.NoError(t, buf.Clear(ctx))
	assert.Equal(t, 0, buf.x.pending.n)

	// A turn loaded before Clear still saves.
	_, err = buf.LoadMemoryVariables(ctx, in)
	require.NoError(t, err)
	require.NoError(t, buf.ChatHistory.Clear(ctx))
	require.NoError(t, buf.SaveContext(ctx, in, map[string]any{"text": "b"}))
	msgs, err = buf.ChatHistory.Messages(ctx)
	require.NoError(t, err)
	assert.Len(t, msgs, 2)
}

// A struct literal, as some upstream users build it, works too.
func TestStructLiteral(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := &ConversationBuffer{ChatHistory: NewChatMessageHistory(), HumanPrefix: "Human", AIPrefix: "AI", MemoryKey: "history"}
	require.NoError(t, m.SaveContext(ctx, map[string]any{"i": "a"}, map[string]any{"o": "b"}))
	vars, err := m.LoadMemoryVariables(ctx, map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, "Human: a\nAI: b", vars["history"])
	require.NoError(t, m.Clear(ctx))

	var empty ConversationBuffer
	_, err = empty.LoadMemoryVariables(ctx, nil)
	assert.Error(t, err)
}

// A foreign history receives the agent's tool steps as messages.
func TestForeignHistorySavesSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := memory.NewChatMessageHistory()
	buf := NewConversationWindowBuffer(10, WithChatHistory(h))
	steps := []schema.AgentStep{{Action: schema.AgentAction{Tool: "calc", ToolInput: "1+1", ToolID: "c"}, Observation: "2"}}
	require.NoError(t, buf.SaveContext(ctx, map[string]any{"input": "q"}, map[string]any{"output": "a", "intermediateSteps": steps}))
	msgs, err := h.Messages(ctx)
	require.NoError(t, err)
	assert.Equal(t, []llms.ChatMessage{
		llms.HumanChatMessage{Content: "q"},
		llms.AIChatMessage{ToolCalls: []llms.ToolCall{{ID: "c", Type: "function", FunctionCall: &llms.FunctionCall{Name: "calc", Arguments: `{"__arg1":"1+1"}`}}}},
		llms.ToolChatMessage{ID: "c", Content: "2"},
		llms.AIChatMessage{Content: "a"},
	}, msgs)
}

func TestChatMessageHistoryPersistentSeed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem := newMem(t, core.Config{})
	seed := []llms.ChatMessage{llms.SystemChatMessage{Content: "seed"}}
	for range 2 { // a second "process" does not seed again
		h := NewChatMessageHistory(WithHistoryMemory(mem), WithHistoryThread("t", "r"), WithPreviousMessages(seed))
		require.NoError(t, h.AddAIMessage(ctx, "hi"))
	}
	h := NewChatMessageHistory(WithHistoryMemory(mem), WithHistoryThread("t", "r"))
	msgs, err := h.Messages(ctx)
	require.NoError(t, err)
	assert.Equal(t, []llms.ChatMessage{llms.SystemChatMessage{Content: "seed"}, llms.AIChatMessage{Content: "hi"}, llms.AIChatMessage{Content: "hi"}}, msgs)
	assert.Equal(t, "t", h.ThreadID())
	assert.Equal(t, "r", h.ResourceID())
	assert.Same(t, mem, h.Memory())
	require.NoError(t, h.SetMessages(ctx, nil))
	msgs, err = h.Messages(ctx)
	require.NoError(t, err)
	assert.Empty(t, msgs)
	assert.NotNil(t, msgs)
}

// A persistent buffer over a Memory with a default Config keeps the whole
// conversation, as upstream's buffer does: core's default window (the last
// 10 messages) is not the buffer's. A window buffer keeps its window, and a
// window set in the Memory's Config or with WithConfig is honoured.
func TestPersistentBufferKeepsEverything(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := func(m schema.Memory, exchanges int) string {
		for i := range exchanges {
			require.NoError(t, m.SaveContext(ctx, map[string]any{"input": fmt.Sprintf("q%d", i)}, map[string]any{"text": fmt.Sprintf("a%d", i)}))
		}
		vars, err := m.LoadMemoryVariables(ctx, map[string]any{"input": "next"})
		require.NoError(t, err)
		return vars["history"].(string)
	}
	up := run(memory.NewConversationBuffer(), 8)
	got := run(NewConversationBuffer(WithMemory(newMem(t, core.Config{})), WithThread("t", "u")), 8)
	assert.Equal(t, up, got)
	assert.True(t, strings.HasPrefix(got, "Human: q0\nAI: a0\n"), got)

	upWin := run(memory.NewConversationWindowBuffer(3), 8)
	assert.Equal(t, upWin, run(NewConversationWindowBuffer(3, WithMemory(newMem(t, core.Config{})), WithThread("t", "u")), 8))

	last4 := "Human: q6\nAI: a6\nHuman: q7\nAI: a7"
	assert.Equal(t, last4, run(NewConversationBuffer(WithMemory(newMem(t, core.Config{LastMessages: core.LastN(4)})), WithThread("t", "u")), 8))
	assert.Equal(t, last4, run(NewConversationBuffer(WithMemory(newMem(t, core.Config{})), WithThread("t", "u"),
		WithConfig(core.Config{LastMessages: core.LastN(4)})), 8))
}
