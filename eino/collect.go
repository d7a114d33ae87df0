package eino

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/schema"
	ucb "github.com/cloudwego/eino/utils/callbacks"
)

// runCollector gathers every message one react agent run produces: the
// outputs of the agent's model node (assistant messages, tool calls
// included) and of its tools node (tool results, in call order), in the
// order the nodes finish. It listens to node callbacks rather than using
// react.WithMessageFuture: the react agent hands tool results to one future
// only, so a collector built on a future would take them from a future the
// caller passed, or lose them to it.
//
// Only nodes directly inside the first graph the collector sees (the
// agent's own) are collected, so a graph running inside a tool is ignored.
type runCollector struct {
	mu      sync.Mutex
	own     compose.Address
	claimed bool
	slots   [][]*schema.Message
	err     error
	streams sync.WaitGroup
}

func newRunCollector() *runCollector { return &runCollector{} }

// option returns the agent option that installs the collector's callbacks.
func (c *runCollector) option() agent.AgentOption {
	graph := callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			c.claim(ctx)
			return ctx
		}).
		OnStartWithStreamInputFn(func(ctx context.Context, _ *callbacks.RunInfo, in *schema.StreamReader[callbacks.CallbackInput]) context.Context {
			in.Close()
			c.claim(ctx)
			return ctx
		}).Build()
	cm := &ucb.ModelCallbackHandler{
		OnEnd: func(ctx context.Context, _ *callbacks.RunInfo, out *model.CallbackOutput) context.Context {
			if slot, ok := c.reserve(ctx); ok && out != nil {
				c.fill(slot, []*schema.Message{out.Message}, nil)
			}
			return ctx
		},
		OnEndWithStreamOutput: func(ctx context.Context, _ *callbacks.RunInfo, out *schema.StreamReader[*model.CallbackOutput]) context.Context {
			slot, ok := c.reserve(ctx)
			if !ok {
				out.Close()
				return ctx
			}
			msgs := schema.StreamReaderWithConvert(out, func(o *model.CallbackOutput) (*schema.Message, error) {
				if o == nil || o.Message == nil {
					return nil, schema.ErrNoValue
				}
				return o.Message, nil
			})
			c.concat(slot, func() ([]*schema.Message, error) {
				msg, err := schema.ConcatMessageStream(msgs)
				return []*schema.Message{msg}, err
			})
			return ctx
		},
	}
	tn := &ucb.ToolsNodeCallbackHandlers{
		OnEnd: func(ctx context.Context, _ *callbacks.RunInfo, out []*schema.Message) context.Context {
			if slot, ok := c.reserve(ctx); ok {
				c.fill(slot, out, nil)
			}
			return ctx
		},
		OnEndWithStreamOutput: func(ctx context.Context, _ *callbacks.RunInfo, out *schema.StreamReader[[]*schema.Message]) context.Context {
			slot, ok := c.reserve(ctx)
			if !ok {
				out.Close()
				return ctx
			}
			c.concat(slot, func() ([]*schema.Message, error) { return concatToolStream(out) })
			return ctx
		},
	}
	h := ucb.NewHandlerHelper().Graph(graph).ChatModel(cm).ToolsNode(tn).Handler()
	return agent.WithComposeOptions(compose.WithCallbacks(h))
}

// claim records the address of the first graph started: the agent's own.
func (c *runCollector) claim(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.claimed {
		c.own, c.claimed = compose.GetCurrentAddress(ctx), true
	}
}

// direct reports whether ctx is that of a node directly inside the agent's
// graph.
func (c *runCollector) direct(ctx context.Context) bool {
	addr := compose.GetCurrentAddress(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.claimed && len(addr) == len(c.own)+1 && addr[:len(c.own)].Equals(c.own)
}

// reserve returns the next slot for a node directly inside the agent's graph.
func (c *runCollector) reserve(ctx context.Context) (int, bool) {
	if !c.direct(ctx) {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slots = append(c.slots, nil)
	return len(c.slots) - 1, true
}

func (c *runCollector) fill(slot int, msgs []*schema.Message, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slots[slot] = msgs
	if err != nil && c.err == nil {
		c.err = err
	}
}

// concat fills slot in the background with the messages read from a
// callback's copy of a node's output stream.
func (c *runCollector) concat(slot int, read func() ([]*schema.Message, error)) {
	c.streams.Add(1)
	go func() {
		defer c.streams.Done()
		msgs, err := read()
		c.fill(slot, msgs, err)
	}()
}

// messages returns the run's messages in order, once every stream read is
// complete; call it after the agent's run ended.
func (c *runCollector) messages() ([]*schema.Message, error) {
	c.streams.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	var out []*schema.Message
	for _, s := range c.slots {
		for _, m := range s {
			if m != nil {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// concatToolStream reads a tools node's output stream: each chunk holds, at
// the index of its call, a piece of that call's result message.
func concatToolStream(sr *schema.StreamReader[[]*schema.Message]) ([]*schema.Message, error) {
	defer sr.Close()
	var chunks [][]*schema.Message
	for {
		chunk, err := sr.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		chunks = append(chunks, chunk)
	}
	return schema.ConcatMessageArray(chunks)
}
