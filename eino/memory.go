package eino

import (
	"context"
	"errors"
	"sync"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/internal/threadctx"
)

// ErrNoThread is returned when a memory node runs without a thread in its
// context (see WithThread).
var ErrNoThread = errors.New("agentmem/eino: no thread in context; wrap the context with einomem.WithThread")

// ErrNoTurn is returned by a save step that finds no turn loaded in the same
// invocation (no load step ran, or the turn was already saved).
var ErrNoTurn = errors.New("agentmem/eino: no pending turn; a load step must run before the save step in the same invocation")

// Options configure a Memory.
type Options struct {
	// System holds instructions put before every prompt (TurnRequest.System):
	// counted in the token budget, never stored.
	System []string
	// Config overrides the core.Memory configuration for every turn.
	Config *core.Config
}

// Memory adapts a core.Memory to eino: graph nodes and state handlers, a
// react agent wrapper, an ADK middleware and a retriever. It is safe for
// concurrent use.
type Memory struct {
	mem     *core.Memory
	opts    Options
	pending pendingSaves
}

// New returns an eino adapter over mem.
func New(mem *core.Memory, opts Options) *Memory {
	opts.System = append([]string(nil), opts.System...)
	return &Memory{mem: mem, opts: opts}
}

// Core returns the underlying core.Memory.
func (m *Memory) Core() *core.Memory { return m.mem }

type configKey struct{}
type slotKey struct{}

// WithThread returns a context that runs memory steps on the given thread of
// resourceID (the context key is the one of the langchaingo adapter's
// ContextWithThread). It also carries a fresh holder for the turn that a load
// step begins and the save step commits, so use one WithThread context per
// invocation (a graph whose local state implements TurnCarrier keeps the
// turn in its state instead).
func WithThread(ctx context.Context, threadID, resourceID string) context.Context {
	return context.WithValue(threadctx.With(ctx, threadID, resourceID), slotKey{}, &TurnState{})
}

// ThreadFromContext returns the thread and resource set by WithThread.
func ThreadFromContext(ctx context.Context) (threadID, resourceID string, ok bool) {
	return threadctx.From(ctx)
}

// WithConfig returns a context whose memory steps use cfg on top of
// Options.Config (e.g. &core.Config{ReadOnly: core.Bool(true)}).
func WithConfig(ctx context.Context, cfg *core.Config) context.Context {
	return context.WithValue(ctx, configKey{}, cfg)
}

// config is Options.Config merged with the context's config; nil when neither is set.
func (m *Memory) config(ctx context.Context) *core.Config {
	over, _ := ctx.Value(configKey{}).(*core.Config)
	if m.opts.Config == nil && over == nil {
		return nil
	}
	var c core.Config
	if m.opts.Config != nil {
		c = *m.opts.Config
	}
	c = c.Merge(over)
	return &c
}

// TurnState holds the turn between the load and the save step of one
// invocation. Embed it (or a pointer to it) in a graph's local state, or use
// GenState, to keep the turn in the state instead of the context. It is not
// serialisable: a checkpointed run that is resumed must load again.
type TurnState struct {
	mu    sync.Mutex
	turn  *core.Turn
	calls map[string]callInfo
}

// MemoryTurn returns s; it makes *TurnState (and structs embedding it) a TurnCarrier.
func (s *TurnState) MemoryTurn() *TurnState { return s }

// Turn returns the pending turn, or nil when none is loaded or it was saved.
func (s *TurnState) Turn() *core.Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn
}

func (s *TurnState) set(t *core.Turn, calls map[string]callInfo) {
	s.mu.Lock()
	s.turn, s.calls = t, calls
	s.mu.Unlock()
}

func (s *TurnState) take() (*core.Turn, map[string]callInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, c := s.turn, s.calls
	s.turn, s.calls = nil, nil
	return t, c
}

// TurnCarrier is implemented by graph states that hold a TurnState. The load
// and save lambdas find it through compose.ProcessState, also in parent graphs.
type TurnCarrier interface {
	MemoryTurn() *TurnState
}

// GenState is a compose.GenLocalState for graphs that have no state of their
// own: compose.NewGraph[I, O](compose.WithGenLocalState(einomem.GenState)).
func GenState(context.Context) *TurnState { return &TurnState{} }

// holder finds the per-invocation TurnState: the graph state first, then the
// WithThread context.
func holder(ctx context.Context) (*TurnState, error) {
	var s *TurnState
	err := compose.ProcessState(ctx, func(_ context.Context, c TurnCarrier) error {
		s = c.MemoryTurn()
		return nil
	})
	if err == nil && s != nil {
		return s, nil
	}
	if _, _, ok := threadctx.From(ctx); ok {
		if s, _ := ctx.Value(slotKey{}).(*TurnState); s != nil {
			return s, nil
		}
	}
	return nil, ErrNoThread
}

// request builds the turn request of an invocation: system messages of the
// input become instructions, the rest is the turn's input.
func (m *Memory) request(ctx context.Context, in []*schema.Message) (core.TurnRequest, error) {
	threadID, resourceID, ok := threadctx.From(ctx)
	if !ok {
		return core.TurnRequest{}, ErrNoThread
	}
	req := core.TurnRequest{ThreadID: threadID, ResourceID: resourceID, System: append([]string(nil), m.opts.System...), Config: m.config(ctx)}
	var rest []*schema.Message
	tools := false
	for _, msg := range in {
		if msg == nil {
			continue
		}
		if msg.Role == schema.System {
			req.System = append(req.System, systemText(msg))
			continue
		}
		tools = tools || msg.Role == schema.Tool
		rest = append(rest, msg)
	}
	input, err := fromEino(rest, nil)
	if err != nil {
		return req, err
	}
	if tools {
		// Begin completes results whose call is in the stored history.
		// Tool results sent as input (client-side tools) are stored as
		// assistant messages, which core's echo filter would take for an
		// echo of the conversation and drop. Eino input holds new messages
		// (stored ones are recognised by their ExtraIDKey), so keep it whole.
		cfg := core.Config{}
		if req.Config != nil {
			cfg = *req.Config
		}
		cfg.RetainFullInput = core.Bool(true)
		req.Config = &cfg
	}
	req.Input = input
	return req, nil
}

// callsOf indexes the tool calls of format-2 messages by id.
func callsOf(msgs []message.Message) map[string]callInfo {
	out := map[string]callInfo{}
	for i := range msgs {
		for _, p := range msgs[i].Content.Parts {
			if ti := p.ToolInvocation; ti != nil && !message.IsPlaceholderToolName(ti.ToolName) {
				if _, ok := out[ti.ToolCallID]; !ok || ti.State == message.ToolStateCall {
					out[ti.ToolCallID] = callInfo{name: ti.ToolName, args: ti.Args}
				}
			}
		}
	}
	return out
}

// systemText is the text of a system message (Content, else its text parts).
func systemText(msg *schema.Message) string {
	if msg.Content != "" {
		return msg.Content
	}
	cm, err := MessageFromEino(msg)
	if err != nil {
		return ""
	}
	return cm.Text()
}

// begin starts the turn of an invocation and returns the prompt as eino messages.
func (m *Memory) begin(ctx context.Context, in []*schema.Message) (*core.Turn, []*schema.Message, map[string]callInfo, error) {
	req, err := m.request(ctx, in)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := m.pending.wait(ctx, req.ThreadID, req.ResourceID); err != nil {
		return nil, nil, nil, err
	}
	var turn *core.Turn
	var prompt []message.Message
	out, err := reported(ctx, "Begin", req.ThreadID, req.ResourceID, in, func(ctx context.Context) ([]*schema.Message, error) {
		t, err := m.mem.Begin(ctx, req)
		if err != nil {
			return nil, err
		}
		turn, prompt = t, t.Messages()
		return ToEino(prompt), nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return turn, out, callsOf(prompt), nil
}

// commit converts the response messages and commits the turn.
func commit(ctx context.Context, turn *core.Turn, calls map[string]callInfo, out []*schema.Message) error {
	resp, err := fromEino(out, calls)
	if err != nil {
		return err
	}
	th := turn.Thread()
	_, err = reported(ctx, "Commit", th.ID, th.ResourceID, out, func(ctx context.Context) ([]*schema.Message, error) {
		return out, turn.Commit(ctx, resp)
	})
	return err
}
