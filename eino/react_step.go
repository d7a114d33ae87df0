package eino

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
)

type reactRunKey struct{}

// reactRun is what the model calls of one ReactAgent run share: the turn,
// the prompt it began with (by pointer), the collector of its messages,
// whether StepModifier fitted a call and the first error that ended it.
type reactRun struct {
	m      *Memory
	mu     sync.Mutex
	turn   *core.Turn
	calls  map[string]callInfo
	loaded map[*schema.Message]bool
	col    *runCollector
	fitted bool
	err    error
	cancel context.CancelCauseFunc
}

// newReactRun returns the run's context, which end cancels: a run that can
// no longer be fitted is canceled, so the agent's graph stops before its
// next model call.
func (m *Memory) newReactRun(ctx context.Context, turn *core.Turn, prompt []*schema.Message, calls map[string]callInfo) (context.Context, *reactRun) {
	run := &reactRun{m: m, turn: turn, calls: calls, loaded: make(map[*schema.Message]bool, len(prompt)), col: newRunCollector()}
	for _, msg := range prompt {
		run.loaded[msg] = true
	}
	ctx, run.cancel = context.WithCancelCause(ctx)
	return context.WithValue(ctx, reactRunKey{}, run), run
}

// end releases the run's context once the run and its save are over.
func (r *reactRun) end() { r.cancel(nil) }

// failed returns the error that ended the run: a step that could not be
// fitted, or an agent that fits none (ErrNoStepModifier).
func (r *reactRun) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// stop records err as the error that ended the run, the first one only,
// and cancels the run. The model call in flight, if any, sees a canceled
// context; the graph starts no further node.
func (r *reactRun) stop(err error) {
	if r.err == nil {
		r.err = err
		r.cancel(err)
	}
}

// step fits the messages of one model call: those the run began with and
// those it produced since, which go through core.Turn.Step.
func (r *reactRun) step(ctx context.Context, in []*schema.Message) []*schema.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fitted = true
	var produced []*schema.Message
	for _, msg := range in {
		if msg != nil && !r.loaded[msg] && msg.Role != schema.System {
			produced = append(produced, msg)
		}
	}
	resp, err := fromEino(produced, r.calls)
	var prompt []*schema.Message
	if err == nil {
		prompt, err = reportedStep(ctx, r.turn, produced, resp)
	}
	if err != nil {
		// A modifier cannot fail the call: the run is stopped and Generate
		// or Stream reports the error instead of saving.
		r.stop(fmt.Errorf("agentmem/eino: fitting a model call: %w", err))
		return in
	}
	return prompt
}

// StepModifier returns a react.MessageModifier that fits the prompt of every
// model call of a ReactAgent run to the turn's token budget with
// core.Turn.Step: older history gives way first, then recalled messages,
// then the newest exchange of history, then the oldest tool results of the
// run are elided, never the newest. Set it as react.AgentConfig.MessageModifier (NewReact does); next,
// when not nil, runs after it on the fitted prompt (what next adds is not in
// the budget: give instructions as Options.System instead). Outside a run
// of a ReactAgent of m it only calls next.
func (m *Memory) StepModifier(next react.MessageModifier) react.MessageModifier {
	return func(ctx context.Context, in []*schema.Message) []*schema.Message {
		out := in
		if run, _ := ctx.Value(reactRunKey{}).(*reactRun); run != nil && run.m == m {
			out = run.step(ctx, in)
		}
		if next != nil {
			out = next(ctx, out)
		}
		return out
	}
}

// NewReact builds a react agent from cfg with StepModifier (wrapping
// cfg.MessageModifier) and wraps it like WrapReact: every model call of a
// run is fitted to the turn's budget. cfg is not modified.
func (m *Memory) NewReact(ctx context.Context, cfg *react.AgentConfig) (*ReactAgent, error) {
	c := *cfg
	c.MessageModifier = m.StepModifier(cfg.MessageModifier)
	c.ToolsConfig.ToolCallMiddlewares = append([]compose.ToolMiddleware(nil), cfg.ToolsConfig.ToolCallMiddlewares...)
	a, err := react.NewAgent(ctx, &c)
	if err != nil {
		return nil, err
	}
	return m.WrapReact(a), nil
}
