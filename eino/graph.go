package eino

import (
	"context"
	"io"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// LoadLambda returns the load node, placed before the ChatModel node:
// []*schema.Message in (the new messages of the turn; system messages among
// them are used as instructions), []*schema.Message out: system prompt,
// remembered history, semantic recall and the input, within the configured
// budget. The thread comes from WithThread; the turn is kept for SaveLambda
// in the graph's TurnCarrier state, else in the WithThread context.
func (m *Memory) LoadLambda() *compose.Lambda {
	return compose.InvokableLambda(func(ctx context.Context, in []*schema.Message) ([]*schema.Message, error) {
		s, err := holder(ctx)
		if err != nil {
			return nil, err
		}
		turn, prompt, calls, err := m.begin(ctx, in)
		if err != nil {
			return nil, err
		}
		s.set(turn, calls)
		return prompt, nil
	}, compose.WithLambdaType("MemoryLoad"))
}

// SaveLambda returns the save node, placed after the ChatModel node:
// *schema.Message in and out unchanged. It commits the turn that LoadLambda
// began in the same invocation with the model's message as the response. On
// a stream it passes every chunk through and commits the concatenated message
// (schema.ConcatMessages) when the stream ends; a failed commit is reported
// as the stream's last error. A stream that is closed early is not saved.
func (m *Memory) SaveLambda() *compose.Lambda {
	invoke := func(ctx context.Context, msg *schema.Message, _ ...struct{}) (*schema.Message, error) {
		s, err := holder(ctx)
		if err != nil {
			return nil, err
		}
		if err := saveOne(ctx, s, msg); err != nil {
			return nil, err
		}
		return msg, nil
	}
	transform := func(ctx context.Context, in *schema.StreamReader[*schema.Message], _ ...struct{}) (*schema.StreamReader[*schema.Message], error) {
		s, err := holder(ctx)
		if err != nil {
			in.Close()
			return nil, err
		}
		return saveStream(ctx, s, in), nil
	}
	l, _ := compose.AnyLambda(invoke, nil, nil, transform, compose.WithLambdaType("MemorySave"))
	return l
}

func saveOne(ctx context.Context, s *TurnState, msg *schema.Message) error {
	turn, calls := s.take()
	if turn == nil {
		return ErrNoTurn
	}
	return commit(ctx, turn, calls, []*schema.Message{msg})
}

// saveStream passes the chunks of in through and commits their concatenation at EOF.
func saveStream(ctx context.Context, s *TurnState, in *schema.StreamReader[*schema.Message]) *schema.StreamReader[*schema.Message] {
	var chunks []*schema.Message
	collect := func(c *schema.Message) (*schema.Message, error) {
		if c != nil {
			chunks = append(chunks, c)
		}
		return c, nil
	}
	return schema.StreamReaderWithConvert(in, collect, schema.WithOnEOF(func() (any, error) {
		msg, err := schema.ConcatMessages(chunks)
		if err != nil {
			return nil, err
		}
		if err := saveOne(ctx, s, msg); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}))
}

// PreHandler returns a state pre-handler for the ChatModel node of a graph
// whose local state type S carries a TurnState (e.g. *TurnState from
// GenState, or the user's own state embedding TurnState). It does what
// LoadLambda does, without an extra node.
func PreHandler[S TurnCarrier](m *Memory) compose.StatePreHandler[[]*schema.Message, S] {
	return func(ctx context.Context, in []*schema.Message, state S) ([]*schema.Message, error) {
		turn, prompt, calls, err := m.begin(ctx, in)
		if err != nil {
			return nil, err
		}
		state.MemoryTurn().set(turn, calls)
		return prompt, nil
	}
}

// PostHandler returns a state post-handler for the ChatModel node that does
// what SaveLambda does on Invoke (on a stream eino concatenates the output
// first; use StreamPostHandler to pass the chunks through).
func PostHandler[S TurnCarrier](m *Memory) compose.StatePostHandler[*schema.Message, S] {
	return func(ctx context.Context, out *schema.Message, state S) (*schema.Message, error) {
		if err := saveOne(ctx, state.MemoryTurn(), out); err != nil {
			return nil, err
		}
		return out, nil
	}
}

// StreamPostHandler returns a stream state post-handler for the ChatModel
// node: it passes the chunks through and commits the concatenated message
// when the stream ends, like SaveLambda.
func StreamPostHandler[S TurnCarrier](m *Memory) compose.StreamStatePostHandler[*schema.Message, S] {
	return func(ctx context.Context, out *schema.StreamReader[*schema.Message], state S) (*schema.StreamReader[*schema.Message], error) {
		return saveStream(ctx, state.MemoryTurn(), out), nil
	}
}
