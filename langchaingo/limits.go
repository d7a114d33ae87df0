package langchaingo

import (
	"context"
	"sync"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/tokenizer"
)

const (
	// defaultConversationWindowSize is upstream's default window (in turns).
	defaultConversationWindowSize = 5
	// messagesPerTurn is a human and an AI message.
	messagesPerTurn = 2
	// tokensReplyPriming is the fixed cost of a chat prompt (core counts it too).
	tokensReplyPriming = 3
)

// ConversationWindowBuffer is a buffer that keeps the last
// ConversationWindowSize turns (2·ConversationWindowSize messages), a drop-in
// for langchaingo's. The window is applied when loading and when saving, and
// never separates a tool call from its result.
type ConversationWindowBuffer struct {
	ConversationBuffer
	// ConversationWindowSize is the number of turns kept; values <= 0 mean 5.
	ConversationWindowSize int
}

// NewConversationWindowBuffer returns a window buffer of
// conversationWindowSize turns (5 when <= 0).
func NewConversationWindowBuffer(conversationWindowSize int, options ...ConversationBufferOption) *ConversationWindowBuffer {
	if conversationWindowSize <= 0 {
		conversationWindowSize = defaultConversationWindowSize
	}
	return &ConversationWindowBuffer{
		ConversationWindowSize: conversationWindowSize,
		ConversationBuffer:     *applyBufferOptions(options...),
	}
}

func (wb *ConversationWindowBuffer) limits() limits {
	k := wb.ConversationWindowSize
	if k <= 0 {
		k = defaultConversationWindowSize
	}
	return limits{window: k * messagesPerTurn}
}

// MemoryVariables returns []string{MemoryKey}.
func (wb *ConversationWindowBuffer) MemoryVariables(ctx context.Context) []string {
	return wb.ConversationBuffer.MemoryVariables(ctx)
}

// LoadMemoryVariables returns the last 2·ConversationWindowSize messages.
func (wb *ConversationWindowBuffer) LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error) {
	return wb.load(ctx, inputs, wb.limits())
}

// SaveContext saves the turn like ConversationBuffer.SaveContext.
func (wb *ConversationWindowBuffer) SaveContext(ctx context.Context, inputs, outputs map[string]any) error {
	return wb.save(ctx, inputs, outputs, wb.limits())
}

// Clear deletes the conversation.
func (wb *ConversationWindowBuffer) Clear(ctx context.Context) error {
	return wb.ConversationBuffer.Clear(ctx)
}

// ConversationTokenBuffer is a buffer bounded by MaxTokenLimit tokens, a
// drop-in for langchaingo's. Unlike upstream it counts real tiktoken tokens
// with the Memory's tokenizer (default o200k_base, offline), including
// per-message overhead and tool calls; the limit bounds the prompt memory
// builds (system text, history and the new input) and is applied when
// loading as well as when saving, in O(window), cutting only between tool
// call groups. Messages beyond the limit stay stored: the thread's persisted
// boundary hides them from later turns.
type ConversationTokenBuffer struct {
	ConversationBuffer
	// LLM is kept for compatibility; as upstream, it is not used.
	LLM llms.Model
	// MaxTokenLimit is the token budget.
	MaxTokenLimit int
}

// NewConversationTokenBuffer returns a token buffer with a budget of
// maxTokenLimit tokens.
func NewConversationTokenBuffer(llm llms.Model, maxTokenLimit int, options ...ConversationBufferOption) *ConversationTokenBuffer {
	return &ConversationTokenBuffer{
		LLM:                llm,
		MaxTokenLimit:      maxTokenLimit,
		ConversationBuffer: *applyBufferOptions(options...),
	}
}

func (tb *ConversationTokenBuffer) limits() limits {
	n := tb.MaxTokenLimit
	if n <= 0 {
		n = -1 // keep nothing, like upstream; limits.tokens must stay non-zero
	}
	return limits{tokens: n, upstream: tb.x != nil && tb.x.upstreamTokens}
}

// MemoryVariables returns []string{MemoryKey}.
func (tb *ConversationTokenBuffer) MemoryVariables(ctx context.Context) []string {
	return tb.ConversationBuffer.MemoryVariables(ctx)
}

// LoadMemoryVariables returns the newest history that fits MaxTokenLimit.
func (tb *ConversationTokenBuffer) LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error) {
	return tb.load(ctx, inputs, tb.limits())
}

// SaveContext saves the turn like ConversationBuffer.SaveContext.
func (tb *ConversationTokenBuffer) SaveContext(ctx context.Context, inputs, outputs map[string]any) error {
	return tb.save(ctx, inputs, outputs, tb.limits())
}

// Clear deletes the conversation.
func (tb *ConversationTokenBuffer) Clear(ctx context.Context) error {
	return tb.ConversationBuffer.Clear(ctx)
}

// WithUpstreamTokenCounting makes a ConversationTokenBuffer count and cut as
// langchaingo v0.1.14's does, for migrations that need identical windows:
// the history rendered with llms.GetBufferString (tool messages included),
// counted as its runes÷4 (what upstream's llms.CountTokens("", …) always
// falls back to), oldest messages dropped one at a time until the count is
// at most MaxTokenLimit. Differences that remain: the cut is applied when
// loading too (upstream cuts only after a save, so an over-long preloaded
// history is first sent whole), messages beyond the window stay stored, and
// no warning is logged. Without this option the buffer counts real tokens
// with the Memory's tokenizer and never splits a tool call from its result.
func WithUpstreamTokenCounting() ConversationBufferOption {
	return func(b *ConversationBuffer) { b.state().upstreamTokens = true }
}

// upstreamCharsPerToken is llms' _tokenApproximation.
const upstreamCharsPerToken = 4

// cutUpstream keeps the longest suffix of chat whose upstream count, the
// runes of llms.GetBufferString over it divided by 4, is at most limit: the
// window upstream's pruning loop leaves. GetBufferString joins one line per
// message with "\n", so the count of a suffix is the sum of its lines' runes
// plus the separators, computed once per message.
func (m *ConversationBuffer) cutUpstream(chat []llms.ChatMessage, limit int) ([]llms.ChatMessage, error) {
	lines := make([]int, len(chat))
	total := 0
	for i, msg := range chat {
		s, err := llms.GetBufferString([]llms.ChatMessage{msg}, m.HumanPrefix, m.AIPrefix)
		if err != nil {
			return nil, err
		}
		lines[i] = utf8.RuneCountInString(s)
		total += lines[i]
	}
	start := 0
	for start < len(chat) {
		runes := total + len(chat) - start - 1 // the lines and the "\n" between them
		if runes/upstreamCharsPerToken <= limit {
			break
		}
		total -= lines[start]
		start++
	}
	return chat[start:], nil
}

// CountTokens returns the tokens of messages as the token buffer counts them:
// per message its role, text, reasoning and tool calls plus framing, and the
// reply priming of the prompt.
func CountTokens(tk core.Tokenizer, messages []llms.ChatMessage) (int, error) {
	if tk == nil {
		tk = defaultTokenizer()
	}
	msgs, err := MessagesToCore(messages)
	if err != nil {
		return 0, err
	}
	n := tokensReplyPriming
	for i := range msgs {
		n += budget.MessageTokens(tk, &msgs[i])
	}
	return n, nil
}

func defaultTokenizer() core.Tokenizer { return tokenizer.Default() }

// cut keeps the newest messages within the limit, whole tool-call groups
// only (message by message with WithUpstreamTokenCounting).
func (m *ConversationBuffer) cut(chat []llms.ChatMessage, lim limits) ([]llms.ChatMessage, error) {
	if lim.upstream {
		return m.cutUpstream(chat, lim.tokens)
	}
	msgs, err := MessagesToCore(chat)
	if err != nil {
		return nil, err
	}
	tk := m.tokenizer()
	limit := max(lim.tokens, 0)
	groups := message.ToolGroups(msgs)
	keep := make([]bool, len(msgs))
	count, tokens := 0, tokensReplyPriming
	for g := len(groups) - 1; g >= 0; g-- {
		n, t := len(groups[g]), 0
		if lim.tokens != 0 {
			for _, i := range groups[g] {
				t += budget.MessageTokens(tk, &msgs[i])
			}
		}
		if (lim.window > 0 && count+n > lim.window) || (lim.tokens != 0 && tokens+t > limit) {
			break
		}
		count, tokens = count+n, tokens+t
		for _, i := range groups[g] {
			keep[i] = true
		}
	}
	out := make([]llms.ChatMessage, 0, count)
	for i, k := range keep {
		if k {
			out = append(out, chat[i])
		}
	}
	return out, nil
}

// pendingTurns keeps the turn begun by LoadMemoryVariables until
// SaveContext commits it, keyed by thread and human input, so concurrent
// calls (chains.Apply) each commit their own turn.
type pendingTurns struct {
	mu    sync.Mutex
	seq   uint64
	turns map[pendingKey][]pendingTurn
	n     int
}

type pendingKey struct{ threadID, resourceID, input string }

type pendingTurn struct {
	turn *core.Turn
	seq  uint64
}

// maxPendingTurns bounds the turns loaded but never saved (failed chains).
const maxPendingTurns = 256

func (p *pendingTurns) put(k pendingKey, t *core.Turn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.turns == nil {
		p.turns = map[pendingKey][]pendingTurn{}
	}
	p.seq++
	p.turns[k] = append(p.turns[k], pendingTurn{turn: t, seq: p.seq})
	p.n++
	if p.n > maxPendingTurns {
		var oldK pendingKey
		oldSeq := p.seq + 1
		for key, l := range p.turns {
			if l[0].seq < oldSeq {
				oldK, oldSeq = key, l[0].seq
			}
		}
		p.removeFirst(oldK)
	}
}

func (p *pendingTurns) removeFirst(k pendingKey) {
	l := p.turns[k]
	if len(l) <= 1 {
		delete(p.turns, k)
	} else {
		p.turns[k] = l[1:]
	}
	p.n--
}

// take returns the newest turn loaded for k, or nil.
func (p *pendingTurns) take(k pendingKey) *core.Turn {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.turns[k]
	if len(l) == 0 {
		return nil
	}
	t := l[len(l)-1].turn
	if len(l) == 1 {
		delete(p.turns, k)
	} else {
		p.turns[k] = l[:len(l)-1]
	}
	p.n--
	return t
}

// drop forgets the turns of a thread (it was cleared).
func (p *pendingTurns) drop(threadID, resourceID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, l := range p.turns {
		if k.threadID == threadID && k.resourceID == resourceID {
			p.n -= len(l)
			delete(p.turns, k)
		}
	}
}

// StepsToMessages converts the intermediate steps of an agents.Executor into
// chat messages the way langchaingo's functions agent builds its scratchpad:
// consecutive steps with the same Log become one AIChatMessage (Content: the
// Log) with their tool calls, each followed by its ToolChatMessage with the
// Observation. A step without ToolID gets a generated id; tool input that is
// not a JSON object is passed as {"__arg1": input}, the argument schema the
// functions agent declares. Steps without a tool (parser errors) and
// updateWorkingMemory calls are left out.
func StepsToMessages(steps []schema.AgentStep) []llms.ChatMessage {
	var out []llms.ChatMessage
	var cur *llms.AIChatMessage
	var results []llms.ChatMessage
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			out = append(out, results...)
		}
		cur, results = nil, nil
	}
	lastLog := ""
	for _, st := range steps {
		a := st.Action
		if a.Tool == "" || a.Tool == core.WorkingMemoryToolName {
			continue
		}
		if cur == nil || a.Log != lastLog {
			flush()
			cur = &llms.AIChatMessage{Content: a.Log}
			lastLog = a.Log
		}
		id := a.ToolID
		if id == "" {
			id = message.NewToolCallID()
		}
		cur.ToolCalls = append(cur.ToolCalls, llms.ToolCall{ID: id, Type: "function",
			FunctionCall: &llms.FunctionCall{Name: a.Tool, Arguments: toolArguments(a.ToolInput)}})
		results = append(results, llms.ToolChatMessage{ID: id, Content: st.Observation})
	}
	flush()
	return out
}

func toolArguments(input string) string {
	if isJSONObject(input) {
		return input
	}
	return mustJSON(map[string]string{"__arg1": input})
}
