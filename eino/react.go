package einomem

import (
	"context"
	"io"

	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
)

// ReactAgent is a flow/agent/react agent with memory: every run loads the
// thread's memory into the agent's input and persists the run's input and
// every message it produced (assistant tool calls, tool results and the
// answer), captured with react.WithMessageFuture. The thread comes from
// WithThread. A run that fails saves nothing.
type ReactAgent struct {
	m     *Memory
	agent *react.Agent
}

// WrapReact returns the react agent a with memory.
func (m *Memory) WrapReact(a *react.Agent) *ReactAgent { return &ReactAgent{m: m, agent: a} }

// Generate runs the agent on the new messages in input with the thread's
// memory and saves the run.
func (r *ReactAgent) Generate(ctx context.Context, input []*schema.Message, opts ...agent.AgentOption) (*schema.Message, error) {
	turn, prompt, calls, err := r.m.begin(ctx, input)
	if err != nil {
		return nil, err
	}
	opt, fut := react.WithMessageFuture()
	out, err := r.agent.Generate(ctx, prompt, append(append([]agent.AgentOption(nil), opts...), opt)...)
	if err != nil {
		return nil, err
	}
	var produced []*schema.Message
	iter := fut.GetMessages()
	for {
		msg, ok, err := iter.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		produced = append(produced, msg)
	}
	if err := commit(ctx, turn, calls, orderToolResults(produced)); err != nil {
		return nil, err
	}
	return out, nil
}

// Stream runs the agent like Generate and streams its answer. The run is
// saved once all of its messages are complete; the returned stream ends
// (io.EOF) only after the save, and reports a failed save as its last error.
func (r *ReactAgent) Stream(ctx context.Context, input []*schema.Message, opts ...agent.AgentOption) (*schema.StreamReader[*schema.Message], error) {
	turn, prompt, calls, err := r.m.begin(ctx, input)
	if err != nil {
		return nil, err
	}
	opt, fut := react.WithMessageFuture()
	sr, err := r.agent.Stream(ctx, prompt, append(append([]agent.AgentOption(nil), opts...), opt)...)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() {
		var produced []*schema.Message
		iter := fut.GetMessageStreams()
		for {
			s, ok, err := iter.Next()
			if err != nil {
				done <- err
				return
			}
			if !ok {
				break
			}
			msg, err := schema.ConcatMessageStream(s)
			if err != nil {
				done <- err
				return
			}
			produced = append(produced, msg)
		}
		done <- commit(ctx, turn, calls, orderToolResults(produced))
	}()
	pass := func(m *schema.Message) (*schema.Message, error) { return m, nil }
	return schema.StreamReaderWithConvert(sr, pass, schema.WithOnEOF(func() (any, error) {
		if err := <-done; err != nil {
			return nil, err
		}
		return nil, io.EOF
	})), nil
}

// orderToolResults puts the tool messages that follow an assistant message in
// the order of its tool calls (tools may finish in any order).
func orderToolResults(msgs []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, 0, len(msgs))
	for i := 0; i < len(msgs); {
		msg := msgs[i]
		out = append(out, msg)
		i++
		if msg.Role != schema.Assistant || len(msg.ToolCalls) < 2 {
			continue
		}
		j := i
		for j < len(msgs) && msgs[j].Role == schema.Tool {
			j++
		}
		results := msgs[i:j]
		used := make([]bool, len(results))
		for _, tc := range msg.ToolCalls {
			for k, r := range results {
				if !used[k] && r.ToolCallID == tc.ID {
					used[k] = true
					out = append(out, r)
					break
				}
			}
		}
		for k, r := range results {
			if !used[k] {
				out = append(out, r)
			}
		}
		i = j
	}
	return out
}
