package memory

import (
	"context"

	"github.com/tmc/langchaingo/llms"

	lcmem "github.com/agentmem/agentmem/langchaingo"
)

// The adapter's names under upstream's.
type (
	ConversationBuffer       = lcmem.ConversationBuffer
	ConversationBufferOption = lcmem.ConversationBufferOption
	ChatMessageHistory       = lcmem.ChatMessageHistory
	ConversationTokenBuffer  = lcmem.ConversationTokenBuffer
)

var (
	NewConversationBuffer      = lcmem.NewConversationBuffer
	NewConversationTokenBuffer = lcmem.NewConversationTokenBuffer
	NewChatMessageHistory      = lcmem.NewChatMessageHistory
	WithPreviousMessages       = lcmem.WithPreviousMessages
	WithChatHistory            = lcmem.WithChatHistory
	WithReturnMessages         = lcmem.WithReturnMessages
)

// ConversationWindowBuffer has the fields of the adapter's window buffer;
// its methods run the adapter's. It exists for cutMessages (see doc.go).
type ConversationWindowBuffer struct {
	ConversationBuffer
	ConversationWindowSize int
}

func NewConversationWindowBuffer(conversationWindowSize int, options ...ConversationBufferOption) *ConversationWindowBuffer {
	wb := lcmem.NewConversationWindowBuffer(conversationWindowSize, options...)
	return &ConversationWindowBuffer{ConversationBuffer: wb.ConversationBuffer, ConversationWindowSize: wb.ConversationWindowSize}
}

// adapter returns the adapter's window buffer with wb's fields.
func (wb *ConversationWindowBuffer) adapter() *lcmem.ConversationWindowBuffer {
	return &lcmem.ConversationWindowBuffer{ConversationBuffer: wb.ConversationBuffer, ConversationWindowSize: wb.ConversationWindowSize}
}

func (wb *ConversationWindowBuffer) MemoryVariables(ctx context.Context) []string {
	return wb.adapter().MemoryVariables(ctx)
}

func (wb *ConversationWindowBuffer) LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error) {
	return wb.adapter().LoadMemoryVariables(ctx, inputs)
}

func (wb *ConversationWindowBuffer) SaveContext(ctx context.Context, inputs, outputs map[string]any) error {
	return wb.adapter().SaveContext(ctx, inputs, outputs)
}

func (wb *ConversationWindowBuffer) Clear(ctx context.Context) error { return wb.adapter().Clear(ctx) }

// cutMessages returns the messages the adapter's window keeps of message,
// and whether it dropped any.
func (wb *ConversationWindowBuffer) cutMessages(message []llms.ChatMessage) ([]llms.ChatMessage, bool) {
	b := lcmem.NewConversationWindowBuffer(wb.ConversationWindowSize, lcmem.WithReturnMessages(true),
		lcmem.WithChatHistory(lcmem.NewChatMessageHistory(lcmem.WithPreviousMessages(message))))
	vars, err := b.LoadMemoryVariables(context.Background(), nil)
	if err != nil {
		panic(err) // an in-process history does not fail
	}
	kept := vars[b.MemoryKey].([]llms.ChatMessage)
	return kept, len(kept) < len(message)
}
