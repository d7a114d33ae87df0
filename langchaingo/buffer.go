package langchaingo

import (
	"context"
	"errors"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"slices"

	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"

	"github.com/agentmem/agentmem/core"
)

// ErrInvalidInputValues is langchaingo's memory.ErrInvalidInputValues, which
// SaveContext errors wrap exactly as upstream's do.
var ErrInvalidInputValues = memory.ErrInvalidInputValues

// intermediateStepsKey is where agents.Executor returns its steps.
const intermediateStepsKey = "intermediateSteps"

// ConversationBuffer is a [schema.Memory] that remembers the conversation,
// a drop-in for langchaingo's memory.ConversationBuffer with the same
// exported fields. With a [ChatMessageHistory] (the default) it loads through
// [core.Memory.Begin] and saves through [core.Turn.Commit]; with any other
// [schema.ChatMessageHistory] it reads and appends to that history.
//
// It is safe for concurrent use (chains.Apply) as long as the exported fields
// are not changed meanwhile.
type ConversationBuffer struct {
	// ChatHistory holds the messages; a *ChatMessageHistory unless replaced
	// with WithChatHistory.
	ChatHistory schema.ChatMessageHistory

	// ReturnMessages makes LoadMemoryVariables return []llms.ChatMessage
	// instead of a "Human: …\nAI: …" string.
	ReturnMessages bool
	// InputKey names the input saved as the human message; when empty the
	// inputs must hold exactly one value.
	InputKey string
	// OutputKey names the output saved as the AI message; when empty the
	// outputs must hold exactly one value (besides agent intermediate steps).
	OutputKey string
	// HumanPrefix and AIPrefix label the messages in the rendered history.
	HumanPrefix string
	AIPrefix    string
	// MemoryKey is the variable LoadMemoryVariables returns; default "history".
	MemoryKey string

	x *bufferState
}

// Statically assert that the buffers implement the memory interface.
var (
	_ schema.Memory = (*ConversationBuffer)(nil)
	_ schema.Memory = (*ConversationWindowBuffer)(nil)
	_ schema.Memory = (*ConversationTokenBuffer)(nil)
)

// bufferState is the unexported configuration of a buffer; a pointer, so a
// buffer copied into a window or token buffer keeps it.
type bufferState struct {
	mem                    *core.Memory
	memSet, historySet     bool // WithMemory, WithChatHistory given
	threadID, resourceID   string
	resourceSet            bool // WithThread named the resource
	threadKey, resourceKey string
	fromCtx                bool
	system                 []string
	cfg                    *core.Config
	asJSON                 bool
	upstreamTokens         bool
	pending                pendingTurns
	handler                callbacks.Handler // WithCallbacksHandler
}

// ConversationBufferOption configures a buffer.
type ConversationBufferOption func(b *ConversationBuffer)

func (b *ConversationBuffer) state() *bufferState {
	if b.x == nil {
		b.x = &bufferState{}
	}
	return b.x
}

// WithChatHistory sets the history. A *ChatMessageHistory is used through
// its core.Memory; any other implementation is read and appended to directly.
// It cannot be combined with WithMemory (the first call fails with
// ErrConflictingOptions): give the memory to the history instead.
func WithChatHistory(chatHistory schema.ChatMessageHistory) ConversationBufferOption {
	return func(b *ConversationBuffer) {
		b.ChatHistory = chatHistory
		b.state().historySet = true
	}
}

// WithReturnMessages makes LoadMemoryVariables return []llms.ChatMessage.
func WithReturnMessages(returnMessages bool) ConversationBufferOption {
	return func(b *ConversationBuffer) { b.ReturnMessages = returnMessages }
}

// WithInputKey sets the input key.
func WithInputKey(inputKey string) ConversationBufferOption {
	return func(b *ConversationBuffer) { b.InputKey = inputKey }
}

// WithOutputKey sets the output key.
func WithOutputKey(outputKey string) ConversationBufferOption {
	return func(b *ConversationBuffer) { b.OutputKey = outputKey }
}

// WithHumanPrefix sets the prefix of human messages in the rendered history.
func WithHumanPrefix(humanPrefix string) ConversationBufferOption {
	return func(b *ConversationBuffer) { b.HumanPrefix = humanPrefix }
}

// WithAIPrefix sets the prefix of AI messages in the rendered history.
func WithAIPrefix(aiPrefix string) ConversationBufferOption {
	return func(b *ConversationBuffer) { b.AIPrefix = aiPrefix }
}

// WithMemoryKey sets the memory key.
func WithMemoryKey(memoryKey string) ConversationBufferOption {
	return func(b *ConversationBuffer) { b.MemoryKey = memoryKey }
}

// WithMemory keeps the conversation in mem (for example over
// core/store/sqlite or postgres). Its Config governs token budget, semantic
// recall and working memory; the window and token buffers apply their own
// limit, and a plain buffer keeps the whole conversation unless the Memory's
// Config (or WithConfig) sets LastMessages.
//
// Constructors cannot fail, so a misconfiguration fails the first call:
// WithMemory(nil) with ErrNilMemory, WithMemory together with
// WithChatHistory with ErrConflictingOptions.
func WithMemory(mem *core.Memory) ConversationBufferOption {
	return func(b *ConversationBuffer) {
		x := b.state()
		x.mem, x.memSet = mem, true
	}
}

// WithThread selects the thread and the resource owning it; default
// DefaultThreadID and DefaultResourceID. An empty resourceID keeps the
// default.
func WithThread(threadID, resourceID string) ConversationBufferOption {
	return func(b *ConversationBuffer) {
		x := b.state()
		x.threadID, x.resourceID, x.resourceSet = threadID, resourceID, resourceID != ""
		if resourceID == "" {
			x.resourceID = DefaultResourceID
		}
	}
}

// WithThreadFromInput takes the thread id (and, when resourceKey is not
// empty, the resource id) of each call from these input keys, e.g.
// chains.Call(ctx, chain, map[string]any{"input": q, "thread_id": t,
// "user_id": u}). The keys are not saved as the human input. A call without
// them fails, unless WithThreadFromContext supplies the thread.
func WithThreadFromInput(threadKey, resourceKey string) ConversationBufferOption {
	return func(b *ConversationBuffer) {
		x := b.state()
		x.threadKey, x.resourceKey = threadKey, resourceKey
	}
}

// WithThreadFromContext takes the thread of each call from the context (see
// ContextWithThread) when it carries one.
func WithThreadFromContext() ConversationBufferOption {
	return func(b *ConversationBuffer) { b.state().fromCtx = true }
}

// WithSystem adds system instructions to every turn. They are counted in the
// token budget, never stored, and appear first in the loaded history (as
// "system: …" lines in the string form).
func WithSystem(instructions ...string) ConversationBufferOption {
	return func(b *ConversationBuffer) {
		x := b.state()
		x.system = append(x.system, instructions...)
	}
}

// WithConfig overrides the memory's Config for this buffer's turns (fields
// set in cfg replace the Memory's).
func WithConfig(cfg core.Config) ConversationBufferOption {
	return func(b *ConversationBuffer) { b.state().cfg = &cfg }
}

// WithReturnMessagesAsJSON makes LoadMemoryVariables return the history as a
// JSON string (see MarshalMessages), for agents.Executor, which accepts only
// string inputs; decode it in the prompt with HistoryPlaceholder. It takes
// precedence over ReturnMessages.
func WithReturnMessagesAsJSON() ConversationBufferOption {
	return func(b *ConversationBuffer) { b.state().asJSON = true }
}

// NewConversationBuffer returns a buffer memory. Without options it keeps
// the conversation in process and returns it rendered as
// "Human: …\nAI: …" under "history", exactly like langchaingo's.
func NewConversationBuffer(options ...ConversationBufferOption) *ConversationBuffer {
	return applyBufferOptions(options...)
}

func applyBufferOptions(opts ...ConversationBufferOption) *ConversationBuffer {
	m := &ConversationBuffer{
		HumanPrefix: "Human",
		AIPrefix:    "AI",
		MemoryKey:   "history",
		x:           &bufferState{},
	}
	for _, opt := range opts {
		opt(m)
	}
	if m.ChatHistory == nil {
		var hopts []ChatMessageHistoryOption
		if m.x.memSet {
			hopts = append(hopts, WithHistoryMemory(m.x.mem))
		}
		if m.x.threadID != "" {
			hopts = append(hopts, WithHistoryThread(m.x.threadID, m.x.resourceID))
		}
		m.ChatHistory = NewChatMessageHistory(hopts...)
	}
	return m
}

// GetMemoryKey returns MemoryKey.
func (m *ConversationBuffer) GetMemoryKey(context.Context) string { return m.MemoryKey }

// MemoryVariables returns []string{MemoryKey}.
func (m *ConversationBuffer) MemoryVariables(context.Context) []string {
	return []string{m.MemoryKey}
}

// LoadMemoryVariables returns the conversation under MemoryKey: a string
// rendered with llms.GetBufferString, or []llms.ChatMessage when
// ReturnMessages is set. With a ChatMessageHistory it begins a turn with the
// human input (when the inputs hold one) so that semantic recall and the
// token budget see it; SaveContext commits that turn.
func (m *ConversationBuffer) LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error) {
	return m.load(ctx, inputs, limits{})
}

// SaveContext saves the human input and the AI output (selected as by
// langchaingo's memory.GetInputValue, with the same errors) and, when the
// outputs hold an agent's intermediate steps ([]schema.AgentStep under
// "intermediateSteps"), the tool calls and results in between.
func (m *ConversationBuffer) SaveContext(ctx context.Context, inputs, outputs map[string]any) error {
	return m.save(ctx, inputs, outputs, limits{})
}

// Clear deletes the conversation (the thread of the context when
// WithThreadFromContext applies).
func (m *ConversationBuffer) Clear(ctx context.Context) error {
	if err := m.x.checkConfig("Clear"); err != nil {
		return err
	}
	h, ok := m.ChatHistory.(*ChatMessageHistory)
	if !ok {
		if m.ChatHistory == nil {
			return errNoHistory
		}
		return m.ChatHistory.Clear(ctx)
	}
	ct, err := m.x.resolveThread(ctx, nil, h)
	if err != nil {
		return err
	}
	if m.x != nil {
		m.x.pending.drop(ct.threadID, ct.resourceID)
	}
	return ct.explain(h.ForThread(ct.threadID, ct.resourceID).Clear(ctx))
}

var errNoHistory = errors.New("langchaingo memory: ChatHistory is nil")

// limits are the window and token limits of one load or save.
type limits struct {
	window int // messages; 0: none
	tokens int // tokens; 0: none
	// upstream counts tokens as langchaingo v0.1.14 does (runes÷4 of the
	// rendered history) instead of with the Memory's tokenizer.
	upstream bool
}

func (l limits) any() bool { return l.window > 0 || l.tokens != 0 }

// turnConfig is the per-turn config: WithConfig plus the buffer's limit. A
// buffer without a window or token limit keeps the whole conversation unless
// WithConfig or the Memory's own Config sets LastMessages: core's default
// window (the last 10 messages) is not the buffer's promise.
func (m *ConversationBuffer) turnConfig(h *ChatMessageHistory, lim limits) *core.Config {
	var cfg core.Config
	if m.x != nil && m.x.cfg != nil {
		cfg = *m.x.cfg
	}
	switch {
	case lim.window > 0:
		cfg.LastMessages = core.LastN(lim.window)
	case lim.upstream:
		cfg.LastMessages = core.AllMessages // cut in the adapter, see cutUpstream
	case lim.tokens != 0:
		cfg.LastMessages = core.AllMessages
		cfg.MessageHistory = &core.MessageHistory{MaxTokens: max(lim.tokens, 1), AtMaxRemoveTokens: core.Int(0)}
	case !cfg.LastMessages.IsSet() && !h.mem.Config().LastMessages.IsSet():
		cfg.LastMessages = core.AllMessages
	}
	return &cfg
}

func (m *ConversationBuffer) load(ctx context.Context, inputs map[string]any, lim limits) (map[string]any, error) {
	if err := m.x.checkConfig("LoadMemoryVariables"); err != nil {
		return nil, err
	}
	h, ok := m.ChatHistory.(*ChatMessageHistory)
	if !ok {
		return m.loadForeign(ctx, lim)
	}
	if err := h.prepare(ctx); err != nil {
		return nil, err
	}
	ct, err := m.x.resolveThread(ctx, inputs, h)
	if err != nil {
		return nil, err
	}
	req := core.TurnRequest{ThreadID: ct.threadID, ResourceID: ct.resourceID, Config: m.turnConfig(h, lim)}
	if m.x != nil {
		req.System = slices.Clone(m.x.system)
	}
	input, inErr := GetInputValue(m.x.userInputs(inputs), m.InputKey)
	if inErr == nil {
		req.Input = []message.Message{core.NewMessage(message.RoleUser, input)}
	}
	var turn *core.Turn
	prompt, err := retrieved(ctx, m.x.handlerOf(), input, func() ([]message.Message, error) {
		t, err := h.mem.Begin(ctx, req)
		if err != nil {
			return nil, err
		}
		turn = t
		return t.Messages(), nil
	})
	if err != nil {
		return nil, ct.explain(err)
	}
	hist := prompt[:0]
	for _, msg := range prompt {
		if msg.Source != message.SourceInput {
			hist = append(hist, msg)
		}
	}
	if inErr == nil && m.x != nil {
		m.x.pending.put(pendingKey{ct.threadID, ct.resourceID, input}, turn)
	}
	chat := MessagesFromCore(hist)
	if lim.upstream {
		if chat, err = m.cutUpstream(chat, lim.tokens); err != nil {
			return nil, err
		}
	}
	return m.render(chat)
}

// render returns the memory variable: the messages, their JSON, or the
// rendered "Human: …\nAI: …" text. The text leaves out tool calls and their
// results (an agent's intermediate steps): upstream's buffer never stores
// them, so its text has only the human inputs and the final answers.
func (m *ConversationBuffer) render(chat []llms.ChatMessage) (map[string]any, error) {
	if m.x != nil && m.x.asJSON {
		s, err := MarshalMessages(chat)
		if err != nil {
			return nil, err
		}
		return map[string]any{m.MemoryKey: s}, nil
	}
	if m.ReturnMessages {
		return map[string]any{m.MemoryKey: chat}, nil
	}
	s, err := llms.GetBufferString(withoutToolSteps(chat), m.HumanPrefix, m.AIPrefix)
	if err != nil {
		return nil, err
	}
	return map[string]any{m.MemoryKey: s}, nil
}

// withoutToolSteps drops AI messages that call tools (their text is the
// agent's reasoning, "Thought: … Action: …") and tool and function results.
func withoutToolSteps(chat []llms.ChatMessage) []llms.ChatMessage {
	out := make([]llms.ChatMessage, 0, len(chat))
	for _, msg := range chat {
		switch m := msg.(type) {
		case llms.AIChatMessage:
			if len(m.ToolCalls) > 0 || m.FunctionCall != nil {
				continue
			}
		case llms.ToolChatMessage, llms.FunctionChatMessage:
			continue
		}
		out = append(out, msg)
	}
	return out
}

// turnMessages validates the inputs and outputs of SaveContext and returns
// the human input and the response: the agent's tool steps, then the output.
func (m *ConversationBuffer) turnMessages(inputs, outputs map[string]any) (string, []llms.ChatMessage, error) {
	in, err := GetInputValue(m.x.userInputs(inputs), m.InputKey)
	if err != nil {
		return "", nil, err
	}
	outs, steps := splitSteps(outputs, m.OutputKey)
	out, err := GetInputValue(outs, m.OutputKey)
	if err != nil {
		return "", nil, err
	}
	resp := append(StepsToMessages(steps), llms.AIChatMessage{Content: out})
	return in, resp, nil
}

// splitSteps removes the agent's intermediate steps from outputs when no
// output key is set, so the single remaining output is found. (Upstream
// fails there with "multiple keys and no input key set"; this buffer saves
// the steps as tool calls and results instead.)
func splitSteps(outputs map[string]any, outputKey string) (map[string]any, []schema.AgentStep) {
	steps, ok := outputs[intermediateStepsKey].([]schema.AgentStep)
	if !ok {
		return outputs, nil
	}
	if outputKey != "" {
		return outputs, steps
	}
	rest := make(map[string]any, len(outputs))
	for k, v := range outputs {
		if k != intermediateStepsKey {
			rest[k] = v
		}
	}
	return rest, steps
}

func (m *ConversationBuffer) save(ctx context.Context, inputs, outputs map[string]any, lim limits) error {
	if err := m.x.checkConfig("SaveContext"); err != nil {
		return err
	}
	h, ok := m.ChatHistory.(*ChatMessageHistory)
	if !ok {
		return m.saveForeign(ctx, inputs, outputs, lim)
	}
	in, resp, err := m.turnMessages(inputs, outputs)
	if err != nil {
		return err
	}
	if err := h.prepare(ctx); err != nil {
		return err
	}
	ct, err := m.x.resolveThread(ctx, inputs, h)
	if err != nil {
		return err
	}
	coreResp, err := MessagesToCore(resp)
	if err != nil {
		return err
	}
	if m.x != nil {
		if turn := m.x.pending.take(pendingKey{ct.threadID, ct.resourceID, in}); turn != nil {
			err := turn.Commit(ctx, coreResp)
			if !errors.Is(err, memerr.ErrThreadNotFound) {
				return ct.explain(err)
			}
			// The thread was cleared after the load: start it again below.
		}
	}
	turn, err := h.mem.Begin(ctx, core.TurnRequest{ThreadID: ct.threadID, ResourceID: ct.resourceID, Config: m.turnConfig(h, lim)})
	if err != nil {
		return ct.explain(err)
	}
	return ct.explain(turn.Commit(ctx, append([]message.Message{core.NewMessage(message.RoleUser, in)}, coreResp...)))
}

// loadForeign reads a history that is not a ChatMessageHistory, applying the
// limit to a copy.
func (m *ConversationBuffer) loadForeign(ctx context.Context, lim limits) (map[string]any, error) {
	if m.ChatHistory == nil {
		return nil, errNoHistory
	}
	msgs, err := m.ChatHistory.Messages(ctx)
	if err != nil {
		return nil, err
	}
	chat := make([]llms.ChatMessage, len(msgs))
	copy(chat, msgs)
	if lim.any() {
		if chat, err = m.cut(chat, lim); err != nil {
			return nil, err
		}
	}
	return m.render(chat)
}

// saveForeign appends the turn to a history that is not a
// ChatMessageHistory and, when the limit drops messages, replaces them once
// with SetMessages (whether that takes effect or not, the next load applies
// the limit again).
func (m *ConversationBuffer) saveForeign(ctx context.Context, inputs, outputs map[string]any, lim limits) error {
	if m.ChatHistory == nil {
		return errNoHistory
	}
	in, resp, err := m.turnMessages(inputs, outputs)
	if err != nil {
		return err
	}
	if err := m.ChatHistory.AddUserMessage(ctx, in); err != nil {
		return err
	}
	for i, msg := range resp {
		if i == len(resp)-1 {
			err = m.ChatHistory.AddAIMessage(ctx, msg.GetContent())
		} else {
			err = m.ChatHistory.AddMessage(ctx, msg)
		}
		if err != nil {
			return err
		}
	}
	if !lim.any() {
		return nil
	}
	msgs, err := m.ChatHistory.Messages(ctx)
	if err != nil {
		return err
	}
	chat := slices.Clone(msgs)
	kept, err := m.cut(chat, lim)
	if err != nil {
		return err
	}
	if len(kept) < len(msgs) {
		return m.ChatHistory.SetMessages(ctx, kept)
	}
	return nil
}

func (m *ConversationBuffer) tokenizer() core.Tokenizer {
	if m.x != nil && m.x.mem != nil {
		return m.x.mem.Tokenizer()
	}
	return defaultTokenizer()
}
