package core

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// TurnRequest starts a turn.
type TurnRequest struct {
	ThreadID   string
	ResourceID string
	// System holds instructions: protected, counted in the budget, never stored.
	System []string
	// Input holds the new messages of the turn. A client may echo the whole
	// conversation; unless RetainFullInput is set it is filtered against storage.
	Input []Message
	// Context holds extra messages for this prompt only: protected, never stored.
	Context []Message
	// Config overrides the instance config for this turn.
	Config *Config
}

// Tool is a tool memory offers the model (updateWorkingMemory).
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments.
	Parameters json.RawMessage
	// Call runs the tool with JSON arguments and returns a JSON result the
	// model can read; invalid input yields a result describing the problem.
	Call func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)
}

// Turn is one model call with memory: Begin builds the prompt, Commit persists
// the turn. A Turn is not safe for concurrent use; Commit may be called once.
type Turn struct {
	m         *Memory
	st        settings
	req       TurnRequest
	thread    Thread
	prompt    []Message
	persist   []Message // filtered input to save on Commit
	tools     []Tool
	trimmed   []Message
	recalled  map[string]bool // ids of same-thread semantic hits
	recallErr error
	omErr     error
	mu        sync.Mutex
	committed bool
}

// Begin loads memory for a turn and builds its prompt: input filter, working
// memory, history (count and/or token bounded, after the boundary), semantic
// recall, token trimming of remembered messages (persisting the boundary),
// then the user's processors and a final tool-pairing guard.
//
// With observational memory on, the observations come right after the
// instructions (fenced system messages, chunked so that the prefix stays
// byte-identical while no observation is added) and history is every message
// not yet observed (up to a safety cap) instead of the count or token window;
// nothing is trimmed. Working memory and semantic recall still apply.
func (m *Memory) Begin(ctx context.Context, req TurnRequest) (*Turn, error) {
	const op = "Begin"
	s, err := m.checked()
	if err != nil {
		return nil, err
	}
	if err := ValidateID("threadId", req.ThreadID); err != nil {
		return nil, err
	}
	if err := ValidateID("resourceId", req.ResourceID); err != nil {
		return nil, err
	}
	st, err := m.settings(req.Config)
	if err != nil {
		return nil, err
	}
	t := &Turn{m: m, st: st, req: req}
	supplied := map[string]bool{} // ids the caller gave (generated ones are new by construction)
	for _, in := range req.Input {
		if in.ID != "" {
			supplied[in.ID] = true
		}
	}
	input, err := m.turnInput(op, req)
	if err != nil {
		return nil, err
	}
	for i := range req.Context {
		if err := m.validateMessage(op, &req.Context[i]); err != nil {
			return nil, err
		}
	}
	if t.thread, err = m.turnThread(ctx, s, req, st.readOnly); err != nil {
		return nil, err
	}
	var hist history
	var omv *omView
	if st.om != nil {
		// Observational memory replaces history: the observed part of the
		// conversation is in the observations, the rest is loaded whole.
		v, err := m.omLoad(ctx, s, st.om, t.thread)
		if err != nil {
			return nil, err
		}
		omv, hist.messages = &v, v.own
	} else if hist, err = m.loadHistory(ctx, s, t.thread, st, DateRange{}); err != nil {
		return nil, err
	}
	past := omv != nil && omv.past
	if t.persist, err = m.filterInput(ctx, s, st, hist.messages, past, input, supplied); err != nil {
		return nil, err
	}
	if !st.retainFullInput && (st.historyEnabled || st.om != nil) {
		input = t.persist
	} else if st.retainFullInput {
		// The input is kept as supplied: a stored message it echoes is in the
		// prompt once, at its input position, not also as history.
		hist.messages = withoutIDs(hist.messages, input)
	}
	var system []Message
	for _, text := range req.System {
		system = append(system, m.systemMessage(text))
	}
	var others []Message // messages of other threads, one fenced system message
	if omv != nil {
		system = append(system, m.omSystemMessages(omv.rec)...)
		others = omv.other
	}
	if st.wm != nil {
		wm, tools, err := m.workingMemoryTurn(ctx, st, t.thread)
		if err != nil {
			return nil, err
		}
		system = append(system, m.systemMessage(wm))
		t.tools = tools
	}
	conversation := setSource(hist.messages, SourceMemory)
	if st.recall != nil {
		same, other, err := m.recallForTurn(ctx, s, st, t.thread, conversation, input)
		if err != nil {
			t.recallErr = err
			m.log.WarnContext(ctx, "agentmem: semantic recall failed; the turn goes on with history", "err", err)
		}
		t.recalled = make(map[string]bool, len(same))
		for _, h := range same {
			t.recalled[h.ID] = true
		}
		conversation = mergeChronological(conversation, setSource(same, SourceMemory))
		others = append(others, other...)
	}
	if len(others) > 0 {
		system = append(system, m.systemMessage(renderOtherThreads(mergeChronological(others))))
	}
	extra := setSource(cloneMessages(req.Context), SourceContext)
	for i := range extra {
		m.countTokens(&extra[i])
	}
	conversation = append(conversation, extra...)
	conversation = append(conversation, input...)
	if st.tokenBudget() && st.om == nil {
		if conversation, err = t.trim(ctx, s, system, conversation); err != nil {
			return nil, err
		}
	}
	prompt := append(system, conversation...)
	for _, p := range m.opts.Processors {
		if prompt, err = p.ProcessInput(ctx, ProcessorInput{ThreadID: req.ThreadID, ResourceID: req.ResourceID, Messages: prompt, Tokenizer: m.tk}); err != nil {
			return nil, err
		}
	}
	t.prompt = pairToolCalls(prompt, st.filterIncomplete)
	return t, nil
}

// turnInput validates the input and stamps it with ids, thread and time.
func (m *Memory) turnInput(op string, req TurnRequest) ([]Message, error) {
	input := cloneMessages(req.Input)
	for i := range input {
		in := &input[i]
		if err := m.validateMessage(op, in); err != nil {
			return nil, err
		}
		if in.ThreadID != "" && in.ThreadID != req.ThreadID {
			return nil, Errorf(CodeInvalidArgument, op, "Received input message with wrong threadId. Input %s, expected %s", in.ThreadID, req.ThreadID)
		}
		if in.ResourceID != "" && in.ResourceID != req.ResourceID {
			return nil, Errorf(CodeInvalidArgument, op, "Received input message with wrong resourceId. Input %s, expected %s", in.ResourceID, req.ResourceID)
		}
		in.ThreadID, in.ResourceID, in.Source = req.ThreadID, req.ResourceID, SourceInput
		if in.ID == "" {
			in.ID = m.opts.NewID()
		}
		if in.CreatedAt.IsZero() {
			in.CreatedAt = m.stamp()
		}
		// Counts supplied by the caller are not trusted: new messages are
		// counted here, once (system input is not stored but is in the prompt).
		in.Tokens, in.TokenEncoding = 0, ""
		m.countTokens(in)
	}
	return input, nil
}

// turnThread loads the thread, creating it when missing (unless read-only),
// and enforces ownership.
func (m *Memory) turnThread(ctx context.Context, s *CheckedStore, req TurnRequest, readOnly bool) (Thread, error) {
	th, err := s.GetThread(ctx, req.ThreadID)
	switch {
	case errors.Is(err, ErrThreadNotFound) && readOnly:
		return Thread{ID: req.ThreadID, ResourceID: req.ResourceID}, nil
	case errors.Is(err, ErrThreadNotFound):
		now := m.stamp()
		return s.SaveThread(ctx, Thread{ID: req.ThreadID, ResourceID: req.ResourceID, CreatedAt: now, UpdatedAt: now})
	case err != nil:
		return Thread{}, err
	case th.ResourceID != req.ResourceID:
		return Thread{}, Errorf(CodeResourceMismatch, "Begin",
			"Thread %q belongs to resource %q but resource %q was provided. A thread can only be used by the resource that owns it.", th.ID, th.ResourceID, req.ResourceID)
	}
	return th, nil
}

func (m *Memory) systemMessage(text string) Message {
	msg := NewMessage(RoleSystem, text)
	msg.Source = SourceSystem
	msg.Tokens = m.systemTokens(text)
	msg.TokenEncoding = m.tk.Encoding()
	return msg
}

// systemTokens caches the counts of system texts: instructions repeat every
// turn and must not be re-tokenized.
func (m *Memory) systemTokens(text string) int {
	m.sysMu.Lock()
	n, ok := m.sysCache[text]
	m.sysMu.Unlock()
	if ok {
		return n
	}
	n = CountTextTokens(m.tk, text)
	m.sysMu.Lock()
	if m.sysCache == nil || len(m.sysCache) >= 1024 {
		m.sysCache = map[string]int{}
	}
	m.sysCache[text] = n
	m.sysMu.Unlock()
	return n
}

// withoutIDs returns msgs without the messages whose id is in drop.
func withoutIDs(msgs, drop []Message) []Message {
	ids := make(map[string]bool, len(drop))
	for _, d := range drop {
		ids[d.ID] = true
	}
	out := msgs[:0:0]
	for _, msg := range msgs {
		if !ids[msg.ID] {
			out = append(out, msg)
		}
	}
	return out
}

func setSource(msgs []Message, src Source) []Message {
	for i := range msgs {
		msgs[i].Source = src
	}
	return msgs
}

func cloneMessages(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].Clone()
	}
	return out
}

// Messages returns the prompt: system messages, then history and recalled
// messages, context and input, each with its Source. The slice is a copy.
func (t *Turn) Messages() []Message { return cloneMessages(t.prompt) }

// Tools returns the memory tools of this turn (updateWorkingMemory when
// working memory is enabled and the turn is not read-only).
func (t *Turn) Tools() []Tool { return append([]Tool(nil), t.tools...) }

// Thread returns the thread as loaded at Begin.
func (t *Turn) Thread() Thread { return t.thread.Clone() }

// Trimmed returns the remembered messages the token budget dropped this turn.
func (t *Turn) Trimmed() []Message { return cloneMessages(t.trimmed) }

// RecallErr reports a semantic-recall failure of this turn (the turn went on
// with history alone); nil when recall worked or is off.
func (t *Turn) RecallErr() error { return t.recallErr }

// Commit persists the turn: the (filtered) input and the response messages in
// one atomic save, then indexes them for semantic recall, generates a title
// and runs observational memory (observation and reflection, inside Commit
// or in the background; their failures are logged and never fail Commit, see
// ObservationErr). Read-only turns and turns with history disabled (and
// observational memory off) save nothing.
func (t *Turn) Commit(ctx context.Context, response []Message) error {
	const op = "Commit"
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.committed {
		return Errorf(CodeInvalidArgument, op, "turn already committed")
	}
	m := t.m
	resp := cloneMessages(response)
	for i := range resp {
		r := &resp[i]
		if r.Role == "" {
			r.Role = RoleAssistant
		}
		if err := m.validateMessage(op, r); err != nil {
			return err
		}
		r.ThreadID, r.ResourceID, r.Source = t.req.ThreadID, t.req.ResourceID, SourceResponse
		r.Tokens, r.TokenEncoding = 0, "" // counted once when saved
	}
	for _, p := range m.opts.Processors {
		if op, ok := p.(OutputProcessor); ok {
			var err error
			if resp, err = op.ProcessOutput(ctx, ProcessorInput{ThreadID: t.req.ThreadID, ResourceID: t.req.ResourceID, Messages: resp, Tokenizer: m.tk}); err != nil {
				return err
			}
		}
	}
	t.committed = true
	if t.st.readOnly || (!t.st.historyEnabled && t.st.om == nil) {
		return nil
	}
	var batch []Message
	for _, msg := range append(cloneMessages(t.persist), resp...) {
		if p, ok := m.prepare(op, msg); ok {
			batch = append(batch, p)
		}
	}
	if len(batch) > 0 {
		s, err := m.checked()
		if err != nil {
			return err
		}
		saved, err := s.SaveMessages(ctx, batch)
		if err != nil {
			t.committed = false
			return err
		}
		if t.st.recall != nil {
			m.index(ctx, t.st, saved)
		}
		m.title(ctx, t.st, t.thread, saved)
	}
	if t.st.om != nil {
		t.omErr = m.omAfterCommit(ctx, t.st.om, t.thread)
	}
	return nil
}
