package eino

import (
	"context"
	"errors"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
)

// TypedMiddleware is an adk.TypedChatModelAgentMiddleware that gives a
// ChatModelAgent memory, for agents over *schema.Message (Middleware) and
// over *schema.AgenticMessage (AgenticMiddleware). BeforeAgent binds a run
// to the thread of the context (WithThread); the first
// BeforeModelRewriteState of the run begins the turn, replacing the state's
// messages with the system messages (the agent's instruction is kept as an
// instruction), the remembered history and recall, and the input; every
// later one fits the next model call to the turn's token budget
// (core.Turn.Step); AfterAgent commits the turn with every message the run
// added (assistant tool calls, tool results, the answer), whole.
//
// AfterAgent runs only when the agent finishes successfully, so a run that
// fails or is interrupted saves nothing. Messages another middleware adds to
// the state (e.g. a summary) are saved as part of the response.
//
// Agentic messages are stored as schema messages (see agenticToMessages)
// that keep each agentic message's JSON, so both kinds of agent can share a
// thread and an agentic agent gets its blocks back exactly.
type TypedMiddleware[M adk.MessageType] struct {
	*adk.TypedBaseChatModelAgentMiddleware[M]
	m     *Memory
	codec messageCodec[M]
}

// Middleware is the middleware of agents over *schema.Message.
type Middleware = TypedMiddleware[*schema.Message]

// AgenticMiddleware is the middleware of agents over *schema.AgenticMessage.
type AgenticMiddleware = TypedMiddleware[*schema.AgenticMessage]

var (
	_ adk.ChatModelAgentMiddleware                              = (*Middleware)(nil)
	_ adk.TypedChatModelAgentMiddleware[*schema.AgenticMessage] = (*AgenticMiddleware)(nil)
)

// messageCodec converts an agent's messages to and from schema messages.
type messageCodec[M adk.MessageType] struct {
	toSchema   func([]M) ([]*schema.Message, error)
	fromSchema func([]*schema.Message) ([]M, error)
}

// Middleware returns the ADK middleware of m for agents over
// *schema.Message; add it to adk.ChatModelAgentConfig.Handlers.
func (m *Memory) Middleware() *Middleware {
	return &Middleware{TypedBaseChatModelAgentMiddleware: &adk.TypedBaseChatModelAgentMiddleware[*schema.Message]{}, m: m,
		codec: messageCodec[*schema.Message]{
			toSchema:   func(ms []*schema.Message) ([]*schema.Message, error) { return ms, nil },
			fromSchema: func(ms []*schema.Message) ([]*schema.Message, error) { return ms, nil },
		}}
}

// AgenticMiddleware returns the ADK middleware of m for agents over
// *schema.AgenticMessage; add it to the Handlers of an
// adk.TypedChatModelAgentConfig[*schema.AgenticMessage].
func (m *Memory) AgenticMiddleware() *AgenticMiddleware {
	return &AgenticMiddleware{TypedBaseChatModelAgentMiddleware: &adk.TypedBaseChatModelAgentMiddleware[*schema.AgenticMessage]{}, m: m,
		codec: messageCodec[*schema.AgenticMessage]{toSchema: agenticToMessages, fromSchema: messagesToAgentic}}
}

type adkRunKey struct{}

// adkRun is the memory state of one agent run.
type adkRun struct {
	mu    sync.Mutex
	begun bool
	turn  *core.Turn
	calls map[string]callInfo
	// ours holds the messages the middleware put in the state (by
	// pointer); any other message in the state the run produced.
	ours map[any]bool
	// produced holds the run's messages as produced, before any step
	// elided them: what AfterAgent commits.
	produced []any
}

// BeforeAgent binds the run to the context's thread.
func (h *TypedMiddleware[M]) BeforeAgent(ctx context.Context, rc *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	if _, _, ok := ThreadFromContext(ctx); !ok {
		return ctx, rc, ErrNoThread
	}
	return context.WithValue(ctx, adkRunKey{}, &adkRun{}), rc, nil
}

// BeforeModelRewriteState runs before every model call of a run. The first
// begins the turn and replaces the state's messages with its prompt; each
// later one fits the prompt and what the run produced since to the turn's
// token budget (core.Turn.Step: older history gives way first, then
// recalled messages, then the newest exchange of history, then the oldest tool results of the run are elided,
// never the newest). The state then holds the fitted messages; the run's
// messages are kept whole aside for AfterAgent.
func (h *TypedMiddleware[M]) BeforeModelRewriteState(ctx context.Context, st *adk.TypedChatModelAgentState[M], _ *adk.TypedModelContext[M]) (context.Context, *adk.TypedChatModelAgentState[M], error) {
	run, _ := ctx.Value(adkRunKey{}).(*adkRun)
	if run == nil {
		return ctx, st, errors.New("agentmem/eino: BeforeModelRewriteState without BeforeAgent; is the middleware in ChatModelAgentConfig.Handlers?")
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.begun && run.turn == nil {
		return ctx, st, nil // committed
	}
	var msgs []M
	if !run.begun {
		in, err := h.codec.toSchema(st.Messages)
		if err != nil {
			return ctx, st, err
		}
		turn, prompt, calls, err := h.m.begin(ctx, in)
		if err != nil {
			return ctx, st, err
		}
		if msgs, err = h.codec.fromSchema(prompt); err != nil {
			return ctx, st, err
		}
		run.begun, run.turn, run.calls = true, turn, calls
		run.ours = make(map[any]bool, len(msgs))
	} else {
		run.collect(st.Messages)
		produced, err := h.produced(run)
		if err != nil {
			return ctx, st, err
		}
		resp, err := fromEino(produced, run.calls)
		if err != nil {
			return ctx, st, err
		}
		prompt, err := reportedStep(ctx, run.turn, produced, resp)
		if err != nil {
			return ctx, st, err
		}
		if msgs, err = h.codec.fromSchema(prompt); err != nil {
			return ctx, st, err
		}
	}
	for _, msg := range msgs {
		run.ours[msg] = true
	}
	next := *st
	next.Messages = msgs
	return ctx, &next, nil
}

// collect adds the state's messages the middleware did not put there to
// the run's produced messages.
func (r *adkRun) collect(msgs any) {
	switch ms := msgs.(type) {
	case []*schema.Message:
		for _, msg := range ms {
			if !r.ours[msg] {
				r.ours[msg] = true
				r.produced = append(r.produced, msg)
			}
		}
	case []*schema.AgenticMessage:
		for _, msg := range ms {
			if !r.ours[msg] {
				r.ours[msg] = true
				r.produced = append(r.produced, msg)
			}
		}
	}
}

// produced returns the run's produced messages as schema messages, system
// messages (another middleware's) left out.
func (h *TypedMiddleware[M]) produced(run *adkRun) ([]*schema.Message, error) {
	typed := make([]M, 0, len(run.produced))
	for _, msg := range run.produced {
		typed = append(typed, msg.(M))
	}
	out, err := h.codec.toSchema(typed)
	if err != nil {
		return nil, err
	}
	kept := out[:0]
	for _, msg := range out {
		if msg != nil && msg.Role != schema.System {
			kept = append(kept, msg)
		}
	}
	return kept, nil
}

// AfterAgent saves the run: every message it produced, whole.
func (h *TypedMiddleware[M]) AfterAgent(ctx context.Context, st *adk.TypedChatModelAgentState[M]) (context.Context, error) {
	run, _ := ctx.Value(adkRunKey{}).(*adkRun)
	if run == nil {
		return ctx, nil
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.turn == nil {
		return ctx, nil
	}
	run.collect(st.Messages)
	produced, err := h.produced(run)
	if err != nil {
		return ctx, err
	}
	turn := run.turn
	run.turn = nil
	return ctx, commit(ctx, turn, run.calls, produced)
}
