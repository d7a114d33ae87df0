package core

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/agentmem/agentmem/core/message"
	"sync"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/internal/thread"
	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// TurnRequest starts a turn.
type TurnRequest struct {
	ThreadID   string
	ResourceID string
	// System holds instructions: protected, counted in the budget, never stored.
	System []string
	// Input holds the new messages of the turn. A client may echo the whole
	// conversation; unless RetainFullInput is set it is filtered against storage.
	Input []message.Message
	// Context holds extra messages for this prompt only: protected, never stored.
	Context []message.Message
	// Config overrides the instance config for this turn.
	Config *Config
	// ReadOnly makes this turn read-only whatever the config says (as
	// Config.ReadOnly): Begin creates no thread and moves no boundary,
	// Commit stores nothing, working memory is shown but not offered for
	// update. False leaves the config's choice.
	ReadOnly bool
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

// Turn is one model call with memory: Begin builds the prompt, each Step of
// an agent loop saves what the loop produced so far, Commit persists the
// rest of the turn. A Turn is not safe for concurrent use; Commit succeeds
// once.
type Turn struct {
	m         *Memory
	st        settings
	req       TurnRequest
	thread    store.Thread
	prompt    []message.Message
	persist   []message.Message // filtered input, saved by the first Step or Commit
	prior     indexing.Prior    // the thread's messages before the turn, as loaded
	tools     []Tool
	trimmed   []message.Message
	recalled  map[string]int // rank of same-thread recalled messages (see markRecalled)
	recallErr error
	memoryErr error // working-memory read failure
	obsErr    error // this turn's observation failure (Turn.ObservationErr)
	// unobserved are the thread's unobserved messages Begin read, all of
	// them (nil when capped or observational memory is off or
	// resource-scoped): Commit's cycle sums them with what it saved
	// instead of reading them again.
	unobserved []message.Message
	obs        *observe.Shown // what the prompt shows of observational memory; nil without it
	steps      stepState      // shared by the Step calls
	saves      turnSaves      // what the Steps and Commit stored
	mu         sync.Mutex
	committed  bool
	// boundaryMoved reports that Begin advanced the boundary (telemetry).
	boundaryMoved bool
}

// intake takes in what a turn brings: its input messages and its thread.
type intake struct {
	rules  thread.Rules
	newID  func() string
	clock  *clock
	tokens *messageTokens
}

// turnInput validates the input and stamps it with ids, thread and time.
func (ik *intake) turnInput(op string, req TurnRequest) ([]message.Message, error) {
	input := window.Clone(req.Input)
	for i := range input {
		in := &input[i]
		if err := ik.rules.ValidateMessage(op, in, thread.At("input", i, len(input))); err != nil {
			return nil, err
		}
		if in.ThreadID != "" && in.ThreadID != req.ThreadID {
			return nil, memerr.Errorf(memerr.CodeInvalidArgument, op, "Received input message with wrong threadId. Input %s, expected %s", in.ThreadID, req.ThreadID)
		}
		if in.ResourceID != "" && in.ResourceID != req.ResourceID {
			return nil, memerr.Errorf(memerr.CodeInvalidArgument, op, "Received input message with wrong resourceId. Input %s, expected %s", in.ResourceID, req.ResourceID)
		}
		in.ThreadID, in.ResourceID, in.Source = req.ThreadID, req.ResourceID, message.SourceInput
		if in.ID == "" {
			in.ID = ik.newID()
		}
		if in.CreatedAt.IsZero() {
			in.CreatedAt = ik.clock.Stamp()
		}
		// Counts supplied by the caller are not trusted: new messages are
		// counted here, once (system input is not stored but is in the prompt).
		in.Tokens, in.TokenEncoding = 0, ""
		ik.tokens.count(in)
	}
	return input, nil
}

// turnThread loads the thread, creating it when missing (unless read-only),
// and enforces ownership.
func (ik *intake) turnThread(ctx context.Context, s *store.Checked, req TurnRequest, readOnly bool) (store.Thread, error) {
	th, err := s.GetThread(ctx, req.ThreadID)
	switch {
	case errors.Is(err, memerr.ErrThreadNotFound) && readOnly:
		return store.Thread{ID: req.ThreadID, ResourceID: req.ResourceID}, nil
	case errors.Is(err, memerr.ErrThreadNotFound):
		now := ik.clock.Stamp()
		return s.SaveThread(ctx, store.Thread{ID: req.ThreadID, ResourceID: req.ResourceID, CreatedAt: now, UpdatedAt: now})
	case err != nil:
		return store.Thread{}, err
	case th.ResourceID != req.ResourceID:
		return store.Thread{}, memerr.Errorf(memerr.CodeResourceMismatch, "Begin",
			"Thread %q belongs to resource %q but resource %q was provided. A thread can only be used by the resource that owns it.", th.ID, th.ResourceID, req.ResourceID)
	}
	return th, nil
}

// systemMessage is a system message of text for the prompt, counted.
func (hr *historyReader) systemMessage(text string) message.Message {
	msg := NewMessage(message.RoleSystem, text)
	msg.Source = message.SourceSystem
	msg.Tokens = hr.systemTokens(text)
	msg.TokenEncoding = hr.tk.Encoding()
	return msg
}

// systemTokens caches the counts of system texts: instructions repeat every
// turn and must not be re-tokenized.
func (hr *historyReader) systemTokens(text string) int {
	hr.sysMu.Lock()
	n, ok := hr.sysCache[text]
	hr.sysMu.Unlock()
	if ok {
		return n
	}
	n = budget.TextTokens(hr.tk, text)
	hr.sysMu.Lock()
	if hr.sysCache == nil || len(hr.sysCache) >= 1024 {
		hr.sysCache = map[string]int{}
	}
	hr.sysCache[text] = n
	hr.sysMu.Unlock()
	return n
}

// The accessors of a nil *Turn (Begin failed) return zero values, so a
// caller that logs a turn after an error does not panic; Commit returns an
// error.

// Messages returns the prompt: system messages, then history and recalled
// messages, context and input, each with its Source. The slice is a copy.
func (t *Turn) Messages() []message.Message {
	if t == nil {
		return nil
	}
	return window.Clone(t.prompt)
}

// Tools returns the memory tools of this turn (updateWorkingMemory when
// working memory is enabled and the turn is not read-only; recall when
// SemanticRecall.Retrieval is set and the thread has a resource).
func (t *Turn) Tools() []Tool {
	if t == nil {
		return nil
	}
	return append([]Tool(nil), t.tools...)
}

// Thread returns the thread as loaded at Begin.
func (t *Turn) Thread() store.Thread {
	if t == nil {
		return store.Thread{}
	}
	return t.thread.Clone()
}

// Trimmed returns the remembered messages the token budget dropped this turn.
// Those the history read did not decode (beyond what the budget can keep,
// see store.WindowReader) have no text: their ids, times, Seq and token
// counts are exact, and their tool invocations carry only the call ids.
func (t *Turn) Trimmed() []message.Message {
	if t == nil {
		return nil
	}
	return window.Clone(t.trimmed)
}

// RecallErr reports a semantic-recall failure of this turn (the turn went on
// with history alone); nil when recall worked or is off.
func (t *Turn) RecallErr() error {
	if t == nil {
		return nil
	}
	return t.recallErr
}
