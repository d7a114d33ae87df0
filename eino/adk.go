package einomem

import (
	"context"
	"errors"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
)

// Middleware is an adk.ChatModelAgentMiddleware that gives a ChatModelAgent
// memory. BeforeAgent binds a run to the thread of the context (WithThread);
// the first BeforeModelRewriteState of the run begins the turn, replacing the
// state's messages with the system messages (the agent's instruction is kept
// as an instruction), the remembered history and recall, and the input;
// AfterAgent commits the turn with every message the run added (assistant
// tool calls, tool results, the answer).
//
// AfterAgent runs only when the agent finishes successfully, so a run that
// fails or is interrupted saves nothing. Messages another middleware adds to
// the state (e.g. a summary) are saved as part of the response.
type Middleware struct {
	*adk.BaseChatModelAgentMiddleware
	m *Memory
}

var _ adk.ChatModelAgentMiddleware = (*Middleware)(nil)

// Middleware returns the ADK middleware of m; add it to
// adk.ChatModelAgentConfig.Handlers.
func (m *Memory) Middleware() *Middleware {
	return &Middleware{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, m: m}
}

type adkRunKey struct{}

// adkRun is the memory state of one agent run.
type adkRun struct {
	mu     sync.Mutex
	begun  bool
	turn   *core.Turn
	calls  map[string]callInfo
	loaded map[*schema.Message]bool
}

// BeforeAgent binds the run to the context's thread.
func (h *Middleware) BeforeAgent(ctx context.Context, rc *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	if _, _, ok := ThreadFromContext(ctx); !ok {
		return ctx, rc, ErrNoThread
	}
	return context.WithValue(ctx, adkRunKey{}, &adkRun{}), rc, nil
}

// BeforeModelRewriteState loads memory before the first model call of a run.
func (h *Middleware) BeforeModelRewriteState(ctx context.Context, st *adk.ChatModelAgentState, mc *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	run, _ := ctx.Value(adkRunKey{}).(*adkRun)
	if run == nil {
		return ctx, st, errors.New("einomem: BeforeModelRewriteState without BeforeAgent; is the middleware in ChatModelAgentConfig.Handlers?")
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.begun {
		return ctx, st, nil
	}
	turn, prompt, calls, err := h.m.begin(ctx, st.Messages)
	if err != nil {
		return ctx, st, err
	}
	run.begun, run.turn, run.calls = true, turn, calls
	run.loaded = make(map[*schema.Message]bool, len(prompt))
	for _, msg := range prompt {
		run.loaded[msg] = true
	}
	next := *st
	next.Messages = prompt
	return ctx, &next, nil
}

// AfterAgent saves the run.
func (h *Middleware) AfterAgent(ctx context.Context, st *adk.ChatModelAgentState) (context.Context, error) {
	run, _ := ctx.Value(adkRunKey{}).(*adkRun)
	if run == nil {
		return ctx, nil
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.turn == nil {
		return ctx, nil
	}
	var produced []*schema.Message
	for _, msg := range st.Messages {
		if msg != nil && !run.loaded[msg] && msg.Role != schema.System {
			produced = append(produced, msg)
		}
	}
	turn := run.turn
	run.turn = nil
	return ctx, commit(ctx, turn, run.calls, produced)
}
