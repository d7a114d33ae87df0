package langchaingo

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

var sampleTexts = []string{
	"", "hello", "multi\nline\n", "  spaced  ", "<b>html & co</b>", "日本語のテキスト", "emoji 🎉",
	`{"looks":"like json"}`, `"quoted"`, "tab\tsep", "null", "42",
}

var sampleArgs = []string{
	`{"a":1}`, `{ "b" : [1, 2, {"c": null}], "a": "x" }`, `{"z":1,"a":2,"m":{"y":true,"b":false}}`,
	"2+2", "", `"just a string"`, `[1,2,3]`, `{"__arg1":"query <&>"}`, "not json {",
}

type convGen struct {
	r     *rand.Rand
	n     int
	names []string
}

func (g *convGen) text() string { return sampleTexts[g.r.IntN(len(sampleTexts))] }
func (g *convGen) id() string   { g.n++; return fmt.Sprintf("call_%d", g.n) }
func (g *convGen) name() string { return g.names[g.r.IntN(len(g.names))] }

// conversation generates a random conversation in which every tool or
// function result follows its call (the shape providers accept).
func (g *convGen) conversation() []llms.ChatMessage {
	var out []llms.ChatMessage
	for range 1 + g.r.IntN(12) {
		switch g.r.IntN(8) {
		case 0:
			out = append(out, llms.HumanChatMessage{Content: g.text()})
		case 1:
			out = append(out, llms.SystemChatMessage{Content: g.text()})
		case 2:
			roles := []string{"moderator", "ai", "", "Assistant", "narrator"}
			out = append(out, llms.GenericChatMessage{Content: g.text(), Role: roles[g.r.IntN(len(roles))], Name: g.text()})
		case 3:
			out = append(out, llms.AIChatMessage{Content: g.text(), ReasoningContent: g.pick("", "thinking…")})
		case 4, 5: // tool calls and (some of) their results
			ai := llms.AIChatMessage{Content: g.pick("", "let me check"), ReasoningContent: g.pick("", "r")}
			var results []llms.ChatMessage
			for range 1 + g.r.IntN(3) {
				tc := llms.ToolCall{ID: g.id(), Type: g.pick("function", "", "custom")}
				switch g.r.IntN(6) {
				case 0:
					tc.ID = "" // no result can refer to it
				case 1:
					// no function
				default:
					tc.FunctionCall = &llms.FunctionCall{Name: g.pick(g.name(), ""), Arguments: sampleArgs[g.r.IntN(len(sampleArgs))]}
				}
				ai.ToolCalls = append(ai.ToolCalls, tc)
				if tc.ID != "" && g.r.IntN(4) > 0 {
					results = append(results, llms.ToolChatMessage{ID: tc.ID, Content: g.text()})
				}
			}
			g.r.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
			out = append(out, ai)
			out = append(out, results...)
		case 6: // legacy function call and result
			name := g.pick(g.name(), "")
			out = append(out, llms.AIChatMessage{Content: g.pick("", "calling"),
				FunctionCall: &llms.FunctionCall{Name: name, Arguments: sampleArgs[g.r.IntN(len(sampleArgs))]}})
			if g.r.IntN(3) > 0 {
				out = append(out, llms.FunctionChatMessage{Name: name, Content: g.text()})
			}
		case 7:
			out = append(out, llms.AIChatMessage{Content: g.text()})
		}
	}
	return out
}

func (g *convGen) pick(opts ...string) string { return opts[g.r.IntN(len(opts))] }

func newGen(seed uint64) *convGen {
	return &convGen{r: rand.New(rand.NewPCG(seed, 7)), names: []string{"search", "calculator", "weather"}}
}

// normalizeLikeJSONB re-encodes the stored content the way PostgreSQL jsonb
// does (keys reordered, whitespace dropped).
func normalizeLikeJSONB(t *testing.T, msgs []core.Message) []core.Message {
	t.Helper()
	out := make([]core.Message, len(msgs))
	for i, m := range msgs {
		b, err := json.Marshal(m.Content)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal(b, &v))
		b, err = json.Marshal(v)
		require.NoError(t, err)
		var c core.Content
		require.NoError(t, json.Unmarshal(b, &c))
		m.Content = c
		out[i] = m
	}
	return out
}

func TestRoundTripProperty(t *testing.T) {
	t.Parallel()
	for seed := range uint64(400) {
		conv := newGen(seed).conversation()
		msgs, err := MessagesToCore(conv)
		require.NoError(t, err)
		require.Len(t, msgs, len(conv))
		require.Equal(t, conv, MessagesFromCore(msgs), "seed %d: direct", seed)
		require.Equal(t, conv, MessagesFromCore(normalizeLikeJSONB(t, msgs)), "seed %d: jsonb", seed)

		js, err := MarshalMessages(conv)
		require.NoError(t, err)
		back, err := UnmarshalMessages(js)
		require.NoError(t, err)
		require.Equal(t, conv, back, "seed %d: JSON", seed)
	}
}

// Stored through a history (in process, one message at a time, and SQLite
// with SetMessages), every message comes back exactly.
func TestRoundTripThroughHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "rt.db"))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	mem, err := core.New(core.Options{Store: store})
	require.NoError(t, err)
	for seed := range uint64(60) {
		conv := newGen(1000 + seed).conversation()

		h := NewChatMessageHistory()
		for _, m := range conv {
			require.NoError(t, h.AddMessage(ctx, m))
		}
		got, err := h.Messages(ctx)
		require.NoError(t, err)
		require.Equal(t, conv, got, "seed %d: AddMessage", seed)

		hs := NewChatMessageHistory(WithHistoryMemory(mem), WithHistoryThread(fmt.Sprint("t", seed), "r"))
		require.NoError(t, hs.AddUserMessage(ctx, "to be replaced"))
		require.NoError(t, hs.SetMessages(ctx, conv))
		got, err = hs.Messages(ctx)
		require.NoError(t, err)
		require.Equal(t, conv, got, "seed %d: SQLite SetMessages", seed)
	}
}

func TestToolResultsStored(t *testing.T) {
	t.Parallel()
	msgs, err := MessagesToCore([]llms.ChatMessage{
		llms.AIChatMessage{ToolCalls: []llms.ToolCall{{ID: "c1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"q":"go"}`}}}},
		llms.ToolChatMessage{ID: "c1", Content: "results"},
	})
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	assert.Equal(t, core.RoleAssistant, msgs[1].Role)
	ti := msgs[1].Content.Parts[0].ToolInvocation
	require.NotNil(t, ti)
	assert.Equal(t, message.ToolStateResult, ti.State)
	assert.Equal(t, "c1", ti.ToolCallID)
	assert.Equal(t, "search", ti.ToolName, "name recovered from the call")
	assert.JSONEq(t, `{"q":"go"}`, string(ti.Args), "args recovered from the call")
	assert.JSONEq(t, `"results"`, string(ti.Result))
	assert.Nil(t, msgs[1].Content.Metadata, "plain tool results carry no langchaingo metadata")
}

// A tool result added on its own finds its call among the stored messages.
func TestToolResultRecoversCallFromStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := NewChatMessageHistory()
	require.NoError(t, h.AddMessage(ctx, llms.AIChatMessage{ToolCalls: []llms.ToolCall{{ID: "c9", Type: "function",
		FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}}}}))
	require.NoError(t, h.AddMessage(ctx, llms.AIChatMessage{FunctionCall: &llms.FunctionCall{Name: "calc", Arguments: "1+1"}}))
	require.NoError(t, h.AddMessage(ctx, llms.ToolChatMessage{ID: "c9", Content: "rain"}))
	require.NoError(t, h.AddMessage(ctx, llms.FunctionChatMessage{Name: "calc", Content: "2"}))
	stored, err := h.stored(ctx)
	require.NoError(t, err)
	require.Len(t, stored, 4)
	ti := stored[2].Content.Parts[0].ToolInvocation
	assert.Equal(t, "weather", ti.ToolName)
	assert.JSONEq(t, `{"city":"Oslo"}`, string(ti.Args))
	fn := stored[3].Content.Parts[0].ToolInvocation
	assert.Equal(t, "calc", fn.ToolName)
	assert.Equal(t, stored[1].Content.Parts[0].ToolInvocation.ToolCallID, fn.ToolCallID, "function result paired with its call")
	assert.Len(t, groupsOf(stored), 2, "each call is grouped with its result")
}

func groupsOf(msgs []core.Message) [][]int { return message.ToolGroups(msgs) }

// A result row whose call row is not emitted becomes the call plus the
// result; one whose call was emitted becomes only the tool message.
func TestOrphanResults(t *testing.T) {
	t.Parallel()
	msgs, err := MessagesToCore([]llms.ChatMessage{
		llms.AIChatMessage{ToolCalls: []llms.ToolCall{{ID: "a", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: `{}`}}}},
		llms.ToolChatMessage{ID: "a", Content: "ra"},
		llms.ToolChatMessage{ID: "b", Content: "rb"},
		llms.FunctionChatMessage{Name: "g", Content: "rg"},
	})
	require.NoError(t, err)
	assert.Equal(t, UnknownToolName, msgs[2].Content.Parts[0].ToolInvocation.ToolName)

	// The call row left out (e.g. a window edge): the result brings its call.
	got := MessagesFromCore(msgs[1:])
	assert.Equal(t, []llms.ChatMessage{
		llms.AIChatMessage{ToolCalls: []llms.ToolCall{{ID: "a", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: `{}`}}}},
		llms.ToolChatMessage{ID: "a", Content: "ra"},
		llms.AIChatMessage{ToolCalls: []llms.ToolCall{{ID: "b", Type: "function", FunctionCall: &llms.FunctionCall{Name: UnknownToolName}}}},
		llms.ToolChatMessage{ID: "b", Content: "rb"},
		llms.AIChatMessage{FunctionCall: &llms.FunctionCall{Name: "g"}},
		llms.FunctionChatMessage{Name: "g", Content: "rg"},
	}, got)
}

// Rows written by other frameworks (Mastra merges a call and its result into
// one assistant message, followed by more text) convert to a valid sequence.
func TestForeignRows(t *testing.T) {
	t.Parallel()
	step := 0
	row := core.Message{Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{
		{Type: core.PartStepStart},
		core.TextPart("Let me look."),
		{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: "x",
			ToolName: "lookup", Args: json.RawMessage(`{"k":1}`), Result: json.RawMessage(`{"v":2}`), Step: &step}},
		core.TextPart("Found it."),
		{Type: core.PartFile, Data: "aGk=", MimeType: "text/plain"},
	}}}
	user := core.Message{Role: core.RoleUser, Content: core.Content{Format: 2, Parts: []core.Part{core.TextPart("a"), core.TextPart("b")}}}
	got := MessagesFromCore([]core.Message{user, row})
	assert.Equal(t, []llms.ChatMessage{
		llms.HumanChatMessage{Content: "a\nb"},
		llms.AIChatMessage{Content: "Let me look.", ToolCalls: []llms.ToolCall{{ID: "x", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"k":1}`}}}},
		llms.ToolChatMessage{ID: "x", Content: `{"v":2}`},
		llms.AIChatMessage{Content: "Found it."},
	}, got)
}

// Pointer messages and other ChatMessage implementations are accepted.
func TestConvertOtherImplementations(t *testing.T) {
	t.Parallel()
	got := MessagesFromCore(must(MessagesToCore([]llms.ChatMessage{
		&llms.HumanChatMessage{Content: "p"},
		llms.ChatMessage(customMsg{"c"}),
	})))
	assert.Equal(t, []llms.ChatMessage{llms.HumanChatMessage{Content: "p"}, llms.AIChatMessage{Content: "c"}}, got)

	_, err := MessagesToCore([]llms.ChatMessage{nil})
	assert.Error(t, err)
	_, err = MessagesToCore([]llms.ChatMessage{llms.HumanChatMessage{Content: "bad \xff"}})
	assert.ErrorIs(t, err, core.ErrInvalidMessage)
}

type customMsg struct{ s string }

func (c customMsg) GetType() llms.ChatMessageType { return llms.ChatMessageTypeAI }
func (c customMsg) GetContent() string            { return c.s }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
