package langchaingo

import (
	"context"
	"github.com/agentmem/agentmem/core/message"

	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/schema"
)

// WithCallbacksHandler reports the buffer's memory loads to h as
// langchaingo reports a retriever's: HandleRetrieverStart with the input,
// HandleRetrieverEnd with the loaded messages as documents (the text as
// PageContent, "role", "source" and "id" as Metadata). StepAgent reports
// each fitted step the same way, to the wrapped agent's handler when it
// has one (callbacks.HandlerHaver), else to h.
func WithCallbacksHandler(h callbacks.Handler) ConversationBufferOption {
	return func(b *ConversationBuffer) { b.state().handler = h }
}

// retrieved runs a memory load for query, reported to h (nil: not reported).
func retrieved(ctx context.Context, h callbacks.Handler, query string, load func() ([]message.Message, error)) ([]message.Message, error) {
	if h == nil {
		return load()
	}
	h.HandleRetrieverStart(ctx, query)
	msgs, err := load()
	if err != nil {
		return nil, err
	}
	docs := make([]schema.Document, len(msgs))
	for i, msg := range msgs {
		docs[i] = schema.Document{PageContent: msg.Text(),
			Metadata: map[string]any{"role": string(msg.Role), "source": string(msg.Source), "id": msg.ID}}
	}
	h.HandleRetrieverEnd(ctx, query, docs)
	return msgs, nil
}

// handler returns the handler the agent's memory steps report to.
func (s stepAgent) handler() callbacks.Handler {
	if hh, ok := s.Agent.(callbacks.HandlerHaver); ok && hh.GetCallbackHandler() != nil {
		return hh.GetCallbackHandler()
	}
	if s.m != nil && s.m.x != nil {
		return s.m.x.handler
	}
	return nil
}

// handlerOf returns the buffer's handler; nil without one.
func (x *bufferState) handlerOf() callbacks.Handler {
	if x == nil {
		return nil
	}
	return x.handler
}
