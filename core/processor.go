package core

import (
	"github.com/agentmem/agentmem/core/message"
)
import "context"

// Processor transforms the prompt of a turn after memory's own steps (history,
// recall, trimming). Processors run in the order given in Options.Processors.
// One Processor value serves every turn of a Memory, concurrently: it must be
// safe for concurrent use and keep no per-turn state in itself.
type Processor interface {
	// ProcessInput returns the prompt to use. It may drop or rewrite messages
	// but must keep their Source. It must not modify storage.
	ProcessInput(ctx context.Context, in ProcessorInput) ([]message.Message, error)
}

// ProcessorInput is what a Processor sees.
type ProcessorInput struct {
	ThreadID   string
	ResourceID string
	// Messages is the whole prompt: system messages first, then conversation.
	Messages  []message.Message
	Tokenizer Tokenizer
}

// StepProcessor is a Processor that also runs at every Turn.Step, on the
// prompt of each model call of the turn's agent loop (Mastra's
// processInputStep). Like Processor it must keep Sources and not modify
// storage.
type StepProcessor interface {
	ProcessInputStep(ctx context.Context, in ProcessorInput) ([]message.Message, error)
}

// OutputProcessor optionally transforms response messages before Commit
// saves them. Like Processor, it must be safe for concurrent use.
type OutputProcessor interface {
	ProcessOutput(ctx context.Context, in ProcessorInput) ([]message.Message, error)
}
