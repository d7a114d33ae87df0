package eino

import (
	"context"
	"errors"
	"io"

	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
)

// ReactAgent is a flow/agent/react agent with memory: every run loads the
// thread's memory into the agent's input and persists the run's input and
// every message it produced (assistant tool calls, tool results and the
// answer). The thread comes from WithThread. A run that fails saves nothing.
//
// Every model call of a run is fitted to the turn's token budget (see
// core.Turn.Step) by StepModifier, which the agent must have been built
// with as its MessageModifier, as NewReact does. A react agent offers no
// way to change the prompt of its later model calls once it is built, so a
// run of an agent without this Memory's StepModifier fails with
// ErrNoStepModifier once its tools have run, before its second model call,
// instead of sending prompts over the budget.
//
// The run's messages are collected with callbacks on the agent's own model
// and tools nodes (see runCollector), not with react.WithMessageFuture, so a
// caller may pass its own WithMessageFuture and both see every message.
type ReactAgent struct {
	m     *Memory
	agent *react.Agent
}

// WrapReact returns the react agent a with memory. a must have been built
// with m.StepModifier as its MessageModifier (NewReact builds and wraps in
// one step): otherwise a run fails with ErrNoStepModifier once its tools
// have run, before its next model call, as only the first call's prompt
// can be fitted from outside the agent.
func (m *Memory) WrapReact(a *react.Agent) *ReactAgent { return &ReactAgent{m: m, agent: a} }

// start begins the turn of a run: it returns the run's context, its state,
// the prompt and the options the agent runs with.
func (r *ReactAgent) start(ctx context.Context, input []*schema.Message, opts []agent.AgentOption) (context.Context, *reactRun, []*schema.Message, []agent.AgentOption, error) {
	turn, prompt, calls, err := r.m.begin(ctx, input)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ctx, run := r.m.newReactRun(ctx, turn, prompt, calls)
	opts = append(append([]agent.AgentOption(nil), opts...), run.col.option(), run.guard())
	return ctx, run, prompt, opts, nil
}

// Generate runs the agent on the new messages in input with the thread's
// memory and saves the run before returning.
func (r *ReactAgent) Generate(ctx context.Context, input []*schema.Message, opts ...agent.AgentOption) (*schema.Message, error) {
	ctx, run, prompt, opts, err := r.start(ctx, input, opts)
	if err != nil {
		return nil, err
	}
	defer run.end()
	out, err := r.agent.Generate(ctx, prompt, opts...)
	if err := run.save(ctx, err); err != nil {
		return nil, err
	}
	return out, nil
}

// Stream runs the agent like Generate and streams its answer. The run is
// saved once all of its messages are complete: the returned stream ends
// (io.EOF) only after the save and reports a failed save as its last error.
//
// A caller may Close the stream before io.EOF. The agent then still runs to
// its end in the background, its output is discarded and the complete run
// is saved; the next turn this Memory begins on the same thread waits for
// that save (or for the run to fail, which abandons it: nothing is saved).
func (r *ReactAgent) Stream(ctx context.Context, input []*schema.Message, opts ...agent.AgentOption) (*schema.StreamReader[*schema.Message], error) {
	ctx, run, prompt, opts, err := r.start(ctx, input, opts)
	if err != nil {
		return nil, err
	}
	sr, err := r.agent.Stream(ctx, prompt, opts...)
	if err != nil {
		run.end()
		return nil, run.outcome(err)
	}
	th := run.turn.Thread()
	done := r.m.pending.start(th.ID, th.ResourceID)
	out, w := schema.Pipe[*schema.Message](0)
	go func() {
		defer done()
		defer w.Close()
		defer run.end()
		if err := run.save(ctx, forward(sr, w)); err != nil {
			w.Send(nil, err)
		}
	}()
	return out, nil
}

// outcome returns the error that ended the run, else runErr, the agent's.
func (r *reactRun) outcome(runErr error) error {
	if err := r.failed(); err != nil {
		return err
	}
	return runErr
}

// save commits the turn with the run's messages once the agent returned
// runErr. A run that failed, or was stopped, saves nothing.
func (r *reactRun) save(ctx context.Context, runErr error) error {
	if err := r.outcome(runErr); err != nil {
		return err
	}
	produced, err := r.col.messages()
	if err != nil {
		return err
	}
	return commit(ctx, r.turn, r.calls, produced)
}

// forward copies sr to w until sr ends; once the reader of w has closed it,
// the rest of sr is drained so that the run completes. It returns the run's
// error, nil at io.EOF.
func forward(sr *schema.StreamReader[*schema.Message], w *schema.StreamWriter[*schema.Message]) error {
	defer sr.Close()
	closed := false
	for {
		msg, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !closed {
			closed = w.Send(msg, nil)
		}
	}
}
