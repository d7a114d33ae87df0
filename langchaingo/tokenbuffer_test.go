package langchaingo

// Tests for the defects of langchaingo v0.1.14's ConversationTokenBuffer
// (see the study, §1.7). Each runs the upstream buffer first and asserts that
// it shows the defect, then shows that this package does not.
//
// These tests are not parallel: they redirect the standard logger, to which
// upstream writes a warning on every token count.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/tokenizer"
)

// captureLog redirects the standard logger for the duration of the test.
func captureLog(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	log.SetOutput(&buf)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	return &buf
}

// cjkTurns returns n human/AI turns of Japanese text, where runes÷4 is far
// from the real token count.
func cjkTurns(n int) []llms.ChatMessage {
	var msgs []llms.ChatMessage
	for i := range n {
		msgs = append(msgs,
			llms.HumanChatMessage{Content: fmt.Sprintf("質問%d：東京の天気はどうですか？明日は雨が降りますか？", i)},
			llms.AIChatMessage{Content: fmt.Sprintf("回答%d：東京は明日、午前中は晴れですが、午後から雨が降る予報です。", i)})
	}
	return msgs
}

func messagesOf(t *testing.T, vars map[string]any) []llms.ChatMessage {
	t.Helper()
	msgs, ok := vars["history"].([]llms.ChatMessage)
	require.True(t, ok, "history is %T", vars["history"])
	return msgs
}

func realTokens(t *testing.T, msgs []llms.ChatMessage) int {
	t.Helper()
	n, err := CountTokens(tokenizer.Default(), msgs)
	require.NoError(t, err)
	return n
}

// Upstream counts runes÷4 (model "" never reaches tiktoken) and logs a
// warning per count; this package counts tiktoken tokens and logs nothing.
func TestDefectTokenCountIsNotTiktoken(t *testing.T) {
	logs := captureLog(t)
	ctx := context.Background()
	text, err := llms.GetBufferString(cjkTurns(3), "Human", "AI")
	require.NoError(t, err)
	tiktoken := tokenizer.Default().Count(text)
	upstream := llms.CountTokens("", text)
	assert.Equal(t, len([]rune(text))/4, upstream, "upstream falls back to runes÷4")
	assert.NotEqual(t, tiktoken, upstream, "upstream's count is not the tiktoken count")
	assert.Contains(t, logs.String(), "[WARN]", "upstream logs a warning per count")

	// The consequence: upstream's buffer keeps more real tokens than its limit.
	const limit = 200
	up := memory.NewConversationTokenBuffer(nil, limit, memory.WithReturnMessages(true),
		memory.WithChatHistory(memory.NewChatMessageHistory(memory.WithPreviousMessages(cjkTurns(20)))))
	require.NoError(t, up.SaveContext(ctx, map[string]any{"input": "次は？"}, map[string]any{"text": "以上です。"}))
	upVars, err := up.LoadMemoryVariables(ctx, map[string]any{})
	require.NoError(t, err)
	assert.Greater(t, realTokens(t, messagesOf(t, upVars)), limit, "upstream exceeds its limit in real tokens")

	logs.Reset()
	ours := NewConversationTokenBuffer(nil, limit, WithReturnMessages(true),
		WithChatHistory(NewChatMessageHistory(WithPreviousMessages(cjkTurns(20)))))
	require.NoError(t, ours.SaveContext(ctx, map[string]any{"input": "次は？"}, map[string]any{"text": "以上です。"}))
	vars, err := ours.LoadMemoryVariables(ctx, map[string]any{})
	require.NoError(t, err)
	got := messagesOf(t, vars)
	assert.LessOrEqual(t, realTokens(t, got), limit)
	assert.Greater(t, realTokens(t, got), limit*3/4, "the budget is used, not wasted")
	assert.Equal(t, llms.AIChatMessage{Content: "以上です。"}, got[len(got)-1])
	assert.Empty(t, logs.String(), "no log line per count")
}

// Upstream prunes only when saving: a preloaded (or persisted) history is
// loaded in full. This package applies the limit when loading.
func TestDefectNoLimitOnLoad(t *testing.T) {
	captureLog(t)
	ctx := context.Background()
	const limit = 150
	up := memory.NewConversationTokenBuffer(nil, limit, memory.WithReturnMessages(true),
		memory.WithChatHistory(memory.NewChatMessageHistory(memory.WithPreviousMessages(cjkTurns(30)))))
	upVars, err := up.LoadMemoryVariables(ctx, map[string]any{})
	require.NoError(t, err)
	assert.Len(t, messagesOf(t, upVars), 60, "upstream loads everything")

	for name, h := range map[string]schema.ChatMessageHistory{
		"ChatMessageHistory":         NewChatMessageHistory(WithPreviousMessages(cjkTurns(30))),
		"upstream history (foreign)": memory.NewChatMessageHistory(memory.WithPreviousMessages(cjkTurns(30))),
	} {
		t.Run(name, func(t *testing.T) {
			ours := NewConversationTokenBuffer(nil, limit, WithReturnMessages(true), WithChatHistory(h))
			vars, err := ours.LoadMemoryVariables(ctx, map[string]any{})
			require.NoError(t, err)
			got := messagesOf(t, vars)
			assert.Less(t, len(got), 60)
			assert.LessOrEqual(t, realTokens(t, got), limit)
			assert.Equal(t, cjkTurns(30)[60-len(got):], got, "the newest messages are kept")

			win := NewConversationWindowBuffer(2, WithReturnMessages(true), WithChatHistory(h))
			vars, err = win.LoadMemoryVariables(ctx, map[string]any{})
			require.NoError(t, err)
			assert.Len(t, messagesOf(t, vars), 4)
		})
	}
}

// toolHistory is a conversation with a tool call whose result is large.
func toolHistory() []llms.ChatMessage {
	return []llms.ChatMessage{
		llms.HumanChatMessage{Content: "What's the weather in Oslo and Bergen this week, in detail?"},
		llms.AIChatMessage{Content: "I will call the weather tool for both cities now.", ToolCalls: []llms.ToolCall{
			{ID: "call_oslo", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}},
			{ID: "call_bergen", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Bergen"}`}},
		}},
		llms.ToolChatMessage{ID: "call_oslo", Content: strings.Repeat("Oslo: cloudy, 12°C, light wind. ", 12)},
		llms.ToolChatMessage{ID: "call_bergen", Content: strings.Repeat("Bergen: rain, 9°C, strong wind. ", 12)},
		llms.AIChatMessage{Content: "Oslo stays cloudy around 12°C; Bergen gets rain and wind."},
	}
}

// validPairs reports whether every tool message follows an AI message that
// calls it.
func validPairs(msgs []llms.ChatMessage) bool {
	called := map[string]bool{}
	for _, m := range msgs {
		switch m := m.(type) {
		case llms.AIChatMessage:
			for _, tc := range m.ToolCalls {
				called[tc.ID] = true
			}
		case llms.ToolChatMessage:
			if !called[m.ID] {
				return false
			}
		}
	}
	return true
}

// Upstream drops one message at a time from the front, so the history can
// start with a tool result whose call was pruned, which providers reject.
func TestDefectSplitsToolCallFromResult(t *testing.T) {
	captureLog(t)
	ctx := context.Background()
	// Upstream's limit: what is left once the human and the AI tool-call
	// messages are pruned, so that pruning stops right after the call.
	rest := append(toolHistory()[2:], llms.HumanChatMessage{Content: "thanks"}, llms.AIChatMessage{Content: "you're welcome"})
	text, err := llms.GetBufferString(rest, "Human", "AI")
	require.NoError(t, err)
	limit := llms.CountTokens("", text)

	up := memory.NewConversationTokenBuffer(nil, limit, memory.WithReturnMessages(true),
		memory.WithChatHistory(memory.NewChatMessageHistory(memory.WithPreviousMessages(toolHistory()))))
	require.NoError(t, up.SaveContext(ctx, map[string]any{"input": "thanks"}, map[string]any{"text": "you're welcome"}))
	upVars, err := up.LoadMemoryVariables(ctx, map[string]any{})
	require.NoError(t, err)
	upMsgs := messagesOf(t, upVars)
	assert.IsType(t, llms.ToolChatMessage{}, upMsgs[0], "upstream's history starts with a tool result")
	assert.False(t, validPairs(upMsgs), "upstream separated a tool call from its result")

	// This package, at every limit, on both kinds of history.
	full, err := CountTokens(nil, append(toolHistory(), rest[len(rest)-2:]...))
	require.NoError(t, err)
	for lim := 10; lim <= full+10; lim += 7 {
		for _, h := range []schema.ChatMessageHistory{
			NewChatMessageHistory(WithPreviousMessages(toolHistory())),
			memory.NewChatMessageHistory(memory.WithPreviousMessages(toolHistory())),
		} {
			ours := NewConversationTokenBuffer(nil, lim, WithReturnMessages(true), WithChatHistory(h))
			require.NoError(t, ours.SaveContext(ctx, map[string]any{"input": "thanks"}, map[string]any{"text": "you're welcome"}))
			vars, err := ours.LoadMemoryVariables(ctx, map[string]any{})
			require.NoError(t, err)
			got := messagesOf(t, vars)
			require.True(t, validPairs(got), "limit %d, %T: %v", lim, h, got)
			require.LessOrEqual(t, realTokens(t, got), max(lim, tokensReplyPriming), "limit %d", lim)
		}
	}
}

// noopSetHistory ignores SetMessages, like zep's history or sqlite3's
// without WithOverwrite. After maxSets calls it fails, to stop upstream's loop.
type noopSetHistory struct {
	*memory.ChatMessageHistory
	sets    int
	maxSets int
}

var errStopped = errors.New("stopped after too many SetMessages calls")

func (h *noopSetHistory) SetMessages(context.Context, []llms.ChatMessage) error {
	h.sets++
	return nil
}

func (h *noopSetHistory) Messages(ctx context.Context) ([]llms.ChatMessage, error) {
	if h.sets >= h.maxSets {
		return nil, errStopped
	}
	msgs, err := h.ChatMessageHistory.Messages(ctx)
	return slices.Clone(msgs), err // a fresh slice, like any persistent history
}

// Upstream loops until SetMessages takes effect: forever with a history that
// ignores it. This package calls SetMessages at most once per save.
func TestDefectLoopsOnSetMessages(t *testing.T) {
	captureLog(t)
	ctx := context.Background()
	newHistory := func() *noopSetHistory {
		return &noopSetHistory{ChatMessageHistory: memory.NewChatMessageHistory(memory.WithPreviousMessages(cjkTurns(10))), maxSets: 500}
	}
	h := newHistory()
	up := memory.NewConversationTokenBuffer(nil, 50, memory.WithChatHistory(h))
	err := up.SaveContext(ctx, map[string]any{"input": "q"}, map[string]any{"text": "a"})
	assert.ErrorIs(t, err, errStopped, "upstream only stops because the history failed")
	assert.Equal(t, 500, h.sets)

	h = newHistory()
	ours := NewConversationTokenBuffer(nil, 50, WithChatHistory(h), WithReturnMessages(true))
	require.NoError(t, ours.SaveContext(ctx, map[string]any{"input": "q"}, map[string]any{"text": "a"}))
	assert.Equal(t, 1, h.sets)
	vars, err := ours.LoadMemoryVariables(ctx, map[string]any{})
	require.NoError(t, err)
	assert.LessOrEqual(t, realTokens(t, messagesOf(t, vars)), 50, "the limit holds although SetMessages did nothing")
}

// Upstream prunes in place on the slice its history returned, overwriting a
// history slice handed out earlier by LoadMemoryVariables.
func TestDefectOverwritesReturnedSlice(t *testing.T) {
	captureLog(t)
	ctx := context.Background()
	turn := func(m schema.Memory, i int) {
		require.NoError(t, m.SaveContext(ctx, map[string]any{"input": fmt.Sprintf("question number %d, padded to be long enough", i)},
			map[string]any{"text": fmt.Sprintf("answer number %d, padded to be long enough", i)}))
	}
	// The limit keeps one turn, so every save prunes the previous one.
	up := memory.NewConversationTokenBuffer(nil, 30, memory.WithReturnMessages(true))
	var held []llms.ChatMessage
	var snapshot []llms.ChatMessage
	for i := 1; i <= 4; i++ {
		turn(up, i)
		vars, err := up.LoadMemoryVariables(ctx, map[string]any{})
		require.NoError(t, err)
		if msgs := messagesOf(t, vars); cap(msgs) > len(msgs) && held == nil {
			held = msgs
			snapshot = append([]llms.ChatMessage(nil), msgs...)
		}
	}
	require.NotNil(t, held)
	assert.NotEqual(t, snapshot, held, "upstream changed a slice it had returned")

	ours := NewConversationTokenBuffer(nil, 30, WithReturnMessages(true))
	var results [][]llms.ChatMessage
	var copies [][]llms.ChatMessage
	for i := 1; i <= 4; i++ {
		turn(ours, i)
		vars, err := ours.LoadMemoryVariables(ctx, map[string]any{})
		require.NoError(t, err)
		msgs := messagesOf(t, vars)
		results = append(results, msgs)
		copies = append(copies, append([]llms.ChatMessage(nil), msgs...))
	}
	assert.Equal(t, copies, results, "returned slices never change")

	// Changing a returned slice does not change the history either.
	h := NewChatMessageHistory()
	require.NoError(t, h.AddUserMessage(ctx, "x"))
	msgs, err := h.Messages(ctx)
	require.NoError(t, err)
	msgs[0] = llms.AIChatMessage{Content: "changed"}
	again, err := h.Messages(ctx)
	require.NoError(t, err)
	assert.Equal(t, []llms.ChatMessage{llms.HumanChatMessage{Content: "x"}}, again)
}

// With WithUpstreamTokenCounting the token buffer's window equals upstream's
// after every save, in process and over a persistent Memory.
func TestUpstreamTokenCountingMatchesUpstream(t *testing.T) {
	captureLog(t)
	ctx := context.Background()
	turns := append(cjkTurns(6), llms.HumanChatMessage{Content: "short"}, llms.AIChatMessage{Content: "reply"})
	for _, limit := range []int{0, 20, 45, 120} {
		up := memory.NewConversationTokenBuffer(nil, limit, memory.WithReturnMessages(true))
		mine := []*ConversationTokenBuffer{
			NewConversationTokenBuffer(nil, limit, WithReturnMessages(true), WithUpstreamTokenCounting()),
			NewConversationTokenBuffer(nil, limit, WithReturnMessages(true), WithUpstreamTokenCounting(),
				WithMemory(newMem(t, core.Config{})), WithThread("t", "u")),
		}
		for i := 0; i+1 < len(turns); i += 2 {
			in := map[string]any{"input": turns[i].GetContent()}
			out := map[string]any{"text": turns[i+1].GetContent()}
			require.NoError(t, up.SaveContext(ctx, in, out))
			want, err := up.LoadMemoryVariables(ctx, nil)
			require.NoError(t, err)
			for j, b := range mine {
				require.NoError(t, b.SaveContext(ctx, in, out))
				got, err := b.LoadMemoryVariables(ctx, nil)
				require.NoError(t, err)
				assert.Equal(t, want, got, "limit %d, save %d, buffer %d", limit, i/2+1, j)
			}
		}
	}
}
