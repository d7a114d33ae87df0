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
// core.Turn.Step) when the agent was built with StepModifier as its
// MessageModifier, as NewReact does; WrapReact cannot change the modifier
// of an agent already built, so without it only the run's first prompt is
// within the budget.
//
// The run's messages are collected with callbacks on the agent's own model
// and tools nodes (see runCollector), not with react.WithMessageFuture, so a
// caller may pass its own WithMessageFuture and both see every message.
type ReactAgent struct {
	m     *Memory
	agent *react.Agent
}

// WrapReact returns the react agent a with memory.
func (m *Memory) WrapReact(a *react.Agent) *ReactAgent { return &ReactAgent{m: m, agent: a} }

// Generate runs the agent on the new messages in input with the thread's
// memory and saves the run before returning.
func (r *ReactAgent) Generate(ctx context.Context, input []*schema.Message, opts ...agent.AgentOption) (*schema.Message, error) {
	turn, prompt, calls, err := r.m.begin(ctx, input)
	if err != nil {
		return nil, err
	}
	col := newRunCollector()
	ctx, run := r.m.newReactRun(ctx, turn, prompt, calls)
	out, err := r.agent.Generate(ctx, prompt, append(append([]agent.AgentOption(nil), opts...), col.option())...)
	if err != nil {
		return nil, err
	}
	if err := run.failed(); err != nil {
		return nil, err
	}
	produced, err := col.messages()
	if err != nil {
		return nil, err
	}
	if err := commit(ctx, turn, calls, produced); err != nil {
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
	turn, prompt, calls, err := r.m.begin(ctx, input)
	if err != nil {
		return nil, err
	}
	col := newRunCollector()
	ctx, run := r.m.newReactRun(ctx, turn, prompt, calls)
	sr, err := r.agent.Stream(ctx, prompt, append(append([]agent.AgentOption(nil), opts...), col.option())...)
	if err != nil {
		return nil, err
	}
	th := turn.Thread()
	done := r.m.pending.start(th.ID, th.ResourceID)
	out, w := schema.Pipe[*schema.Message](0)
	go func() {
		defer done()
		defer w.Close()
		if err := forward(sr, w); err != nil {
			w.Send(nil, err)
			return // the run failed: the turn is abandoned
		}
		err := run.failed()
		var produced []*schema.Message
		if err == nil {
			produced, err = col.messages()
		}
		if err == nil {
			err = commit(ctx, turn, calls, produced)
		}
		if err != nil {
			w.Send(nil, err)
		}
	}()
	return out, nil
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
