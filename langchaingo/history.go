package langchaingo

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/agentmem/agentmem/core/memerr"
	"sync"
	"sync/atomic"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// Default thread and resource of a history created without one, like the
// session "default" of langchaingo's persistent histories.
const (
	DefaultThreadID   = "default"
	DefaultResourceID = "default"
)

// recentCallWindow is how many recent messages are searched for the call of a
// tool result added on its own.
const recentCallWindow = 64

// ChatMessageHistory is a [schema.ChatMessageHistory] stored as one thread of
// a [core.Memory]. Every message type round-trips (tool calls with their ids
// and arguments, tool and function results, generic roles, reasoning). It is
// safe for concurrent use and never returns an internal slice.
//
// NewChatMessageHistory without options keeps the messages in process, like
// langchaingo's memory.NewChatMessageHistory.
type ChatMessageHistory struct {
	mem         *core.Memory
	nilMemory   bool // WithHistoryMemory(nil)
	threadID    string
	resourceID  string
	resourceSet bool // WithHistoryThread named the resource

	seed   *seedState // WithPreviousMessages; shared by views of this history
	thread atomic.Bool
}

type seedState struct {
	mu   sync.Mutex
	done atomic.Bool
	msgs []llms.ChatMessage
}

// Statically assert that ChatMessageHistory implements the interface.
var _ schema.ChatMessageHistory = (*ChatMessageHistory)(nil)

// ChatMessageHistoryOption configures NewChatMessageHistory.
type ChatMessageHistoryOption func(h *ChatMessageHistory)

// WithPreviousMessages seeds the history with messages. They are saved on
// first use, and only if the thread has no messages yet (so a persistent
// thread is seeded once, not on every process start).
func WithPreviousMessages(previousMessages []llms.ChatMessage) ChatMessageHistoryOption {
	return func(h *ChatMessageHistory) {
		h.seed.msgs = append(h.seed.msgs, previousMessages...)
	}
}

// WithHistoryMemory stores the history in mem instead of a private in-process
// memory. A nil mem makes every call fail with ErrNilMemory.
func WithHistoryMemory(mem *core.Memory) ChatMessageHistoryOption {
	return func(h *ChatMessageHistory) { h.mem, h.nilMemory = mem, mem == nil }
}

// WithHistoryThread selects the thread (and the resource owning it) the
// history reads and writes; default DefaultThreadID and DefaultResourceID.
// An empty resourceID keeps DefaultResourceID.
func WithHistoryThread(threadID, resourceID string) ChatMessageHistoryOption {
	return func(h *ChatMessageHistory) {
		h.threadID = threadID
		if resourceID != "" {
			h.resourceID, h.resourceSet = resourceID, true
		}
	}
}

// NewChatMessageHistory returns a chat message history. Without
// WithHistoryMemory the messages live in a private in-process memory that
// keeps every message.
func NewChatMessageHistory(options ...ChatMessageHistoryOption) *ChatMessageHistory {
	h := &ChatMessageHistory{threadID: DefaultThreadID, resourceID: DefaultResourceID, seed: &seedState{}}
	for _, o := range options {
		o(h)
	}
	if h.mem == nil {
		h.mem = newInProcessMemory()
	}
	if len(h.seed.msgs) == 0 {
		h.seed.done.Store(true)
	}
	return h
}

// newInProcessMemory is the memory of histories created without one: a
// memstore that keeps and loads every message, like upstream's slice.
func newInProcessMemory() *core.Memory {
	m, err := core.New(core.Options{Store: memstore.New(), Config: core.Config{LastMessages: core.AllMessages}})
	if err != nil {
		panic(err) // the configuration above is valid
	}
	return m
}

// ForThread returns a view of the history bound to another thread of the
// same memory. The view does not seed WithPreviousMessages.
func (h *ChatMessageHistory) ForThread(threadID, resourceID string) *ChatMessageHistory {
	if resourceID == "" {
		resourceID = DefaultResourceID
	}
	if threadID == h.threadID && resourceID == h.resourceID {
		return h
	}
	v := &ChatMessageHistory{mem: h.mem, nilMemory: h.nilMemory, threadID: threadID, resourceID: resourceID,
		resourceSet: true, seed: &seedState{}}
	v.seed.done.Store(true)
	return v
}

// Memory returns the memory holding the history.
func (h *ChatMessageHistory) Memory() *core.Memory { return h.mem }

// ThreadID returns the thread of the history.
func (h *ChatMessageHistory) ThreadID() string { return h.threadID }

// ResourceID returns the resource owning the thread.
func (h *ChatMessageHistory) ResourceID() string { return h.resourceID }

// prepare fails a misconfigured history and saves WithPreviousMessages on
// first use when the thread is empty.
func (h *ChatMessageHistory) prepare(ctx context.Context) error {
	if h.nilMemory {
		return configError("ChatMessageHistory", ErrNilMemory)
	}
	s := h.seed
	if s.done.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done.Load() {
		return nil
	}
	res, err := h.mem.Recall(ctx, core.RecallQuery{ThreadID: h.threadID, ResourceID: h.resourceID, PerPage: 1})
	if err != nil && !errors.Is(err, memerr.ErrThreadNotFound) {
		return err
	}
	if len(res.Messages) == 0 {
		if err := h.save(ctx, s.msgs); err != nil {
			return err
		}
	}
	s.msgs = nil
	s.done.Store(true)
	return nil
}

// Messages returns every message of the thread, oldest first, as a new slice.
func (h *ChatMessageHistory) Messages(ctx context.Context) ([]llms.ChatMessage, error) {
	if err := h.prepare(ctx); err != nil {
		return nil, err
	}
	msgs, err := h.stored(ctx)
	if err != nil {
		return nil, err
	}
	return MessagesFromCore(msgs), nil
}

// stored returns the stored messages of the thread; none when it is missing.
func (h *ChatMessageHistory) stored(ctx context.Context) ([]message.Message, error) {
	res, err := h.mem.Recall(ctx, core.RecallQuery{ThreadID: h.threadID, ResourceID: h.resourceID, PerPage: store.PerPageAll})
	if errors.Is(err, memerr.ErrThreadNotFound) {
		return nil, nil
	}
	return res.Messages, err
}

// AddMessage appends a message of any type. A tool or function result added
// on its own takes its tool name and arguments from the call among the
// recent messages of the thread.
func (h *ChatMessageHistory) AddMessage(ctx context.Context, message llms.ChatMessage) error {
	if err := h.prepare(ctx); err != nil {
		return err
	}
	return h.save(ctx, []llms.ChatMessage{message})
}

// AddUserMessage appends a HumanChatMessage.
func (h *ChatMessageHistory) AddUserMessage(ctx context.Context, message string) error {
	return h.AddMessage(ctx, llms.HumanChatMessage{Content: message})
}

// AddAIMessage appends an AIChatMessage.
func (h *ChatMessageHistory) AddAIMessage(ctx context.Context, message string) error {
	return h.AddMessage(ctx, llms.AIChatMessage{Content: message})
}

// Clear deletes the thread with its messages, their semantic-recall vectors,
// its token-budget boundary and its thread-scoped working memory; the next
// message starts it again. A thread of another resource is left alone.
func (h *ChatMessageHistory) Clear(ctx context.Context) error {
	if h.nilMemory {
		return configError("ChatMessageHistory", ErrNilMemory)
	}
	s := h.seed
	s.mu.Lock()
	s.msgs = nil
	s.done.Store(true)
	s.mu.Unlock()
	h.thread.Store(false)
	if _, err := h.mem.GetThread(ctx, h.threadID, h.resourceID); err != nil {
		if errors.Is(err, memerr.ErrThreadNotFound) {
			return nil
		}
		return err
	}
	return h.mem.DeleteThread(ctx, h.threadID)
}

// SetMessages replaces the messages of the thread: the new messages are saved
// first, then the old ones are deleted, so a failure never loses both.
func (h *ChatMessageHistory) SetMessages(ctx context.Context, messages []llms.ChatMessage) error {
	if err := h.prepare(ctx); err != nil {
		return err
	}
	old, err := h.stored(ctx)
	if err != nil {
		return err
	}
	ids := make([]string, len(old))
	for i := range old {
		ids[i] = old[i].ID
	}
	if err := h.save(ctx, messages); err != nil {
		return err
	}
	return h.mem.DeleteMessages(ctx, ids)
}

// save converts and stores msgs in one atomic batch.
func (h *ChatMessageHistory) save(ctx context.Context, msgs []llms.ChatMessage) error {
	if len(msgs) == 0 {
		return nil
	}
	st := newToCoreState()
	var recent *recentCalls
	load := func() *recentCalls {
		if recent == nil {
			recent = h.recentCalls(ctx)
		}
		return recent
	}
	st.lookup = func(id string) (callInfo, bool) { return load().call(id) }
	st.lookupFn = func(name string) (string, callInfo, bool) { return load().function(name) }
	st.lookupNoID = func() (string, callInfo, bool) { return load().nextNoID() }
	batch, err := st.convertAll(msgs)
	if err != nil {
		return err
	}
	for i := range batch {
		batch[i].ThreadID, batch[i].ResourceID = h.threadID, h.resourceID
	}
	if err := h.ensureThread(ctx); err != nil {
		return err
	}
	_, err = h.mem.SaveMessages(ctx, batch, nil)
	if errors.Is(err, memerr.ErrThreadNotFound) { // deleted meanwhile
		h.thread.Store(false)
		if err = h.ensureThread(ctx); err == nil {
			_, err = h.mem.SaveMessages(ctx, batch, nil)
		}
	}
	return err
}

// ensureThread creates the thread when it does not exist.
func (h *ChatMessageHistory) ensureThread(ctx context.Context) error {
	if h.thread.Load() {
		return nil
	}
	_, err := h.mem.GetThread(ctx, h.threadID, h.resourceID)
	if errors.Is(err, memerr.ErrThreadNotFound) {
		_, err = h.mem.CreateThread(ctx, core.ThreadInput{ID: h.threadID, ResourceID: h.resourceID})
	}
	if err == nil {
		h.thread.Store(true)
	}
	return err
}

// recentCalls indexes the tool calls among the recent messages of a thread.
type recentCalls struct {
	calls  map[string]callInfo
	openFn map[string][]string // function name -> unanswered call ids, oldest first
	noID   []string            // unanswered id-less calls of the last AI message with calls
}

func (h *ChatMessageHistory) recentCalls(ctx context.Context) *recentCalls {
	rc := &recentCalls{calls: map[string]callInfo{}, openFn: map[string][]string{}}
	// Recall returns the newest page in chronological order.
	res, err := h.mem.Recall(ctx, core.RecallQuery{ThreadID: h.threadID, ResourceID: h.resourceID,
		PerPage: recentCallWindow, Direction: store.Desc})
	if err != nil {
		return rc // no call found: the result keeps UnknownToolName
	}
	answered := map[string]bool{}
	for i := range res.Messages {
		m := &res.Messages[i]
		if s, ok := metaString(lcMeta(m), metaFunctionCall); ok {
			var f storedFunctionCall
			if json.Unmarshal([]byte(s), &f) == nil {
				rc.openFn[f.Function.Name] = append(rc.openFn[f.Function.Name], f.ID)
			}
		}
		if s, ok := metaString(lcMeta(m), metaToolCalls); ok {
			var calls []storedCall
			if json.Unmarshal([]byte(s), &calls) == nil && len(calls) > 0 {
				rc.noID = nil
				for _, sc := range calls {
					if sc.Call.ID == "" {
						rc.noID = append(rc.noID, sc.ID)
					}
				}
			}
		}
		for _, p := range m.Content.Parts {
			ti := p.ToolInvocation
			if ti == nil {
				continue
			}
			if ti.State == message.ToolStateResult {
				answered[ti.ToolCallID] = true
			}
			if _, ok := rc.calls[ti.ToolCallID]; !ok || ti.State != message.ToolStateResult {
				rc.calls[ti.ToolCallID] = callInfo{name: ti.ToolName, args: ti.Args}
			}
		}
	}
	for name, ids := range rc.openFn {
		kept := ids[:0]
		for _, id := range ids {
			if !answered[id] {
				kept = append(kept, id)
			}
		}
		rc.openFn[name] = kept
	}
	kept := rc.noID[:0]
	for _, id := range rc.noID {
		if !answered[id] {
			kept = append(kept, id)
		}
	}
	rc.noID = kept
	return rc
}

func (rc *recentCalls) nextNoID() (string, callInfo, bool) {
	if len(rc.noID) == 0 {
		return "", callInfo{}, false
	}
	id := rc.noID[0]
	rc.noID = rc.noID[1:]
	c, ok := rc.calls[id]
	return id, c, ok
}

func (rc *recentCalls) call(id string) (callInfo, bool) {
	c, ok := rc.calls[id]
	return c, ok
}

func (rc *recentCalls) function(name string) (string, callInfo, bool) {
	ids := rc.openFn[name]
	if len(ids) == 0 {
		return "", callInfo{}, false
	}
	id := ids[len(ids)-1]
	rc.openFn[name] = ids[:len(ids)-1]
	return id, rc.calls[id], true
}
