package eino

import (
	"context"
	"github.com/agentmem/agentmem/core/message"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
)

// Memory steps report through eino's callbacks, so that the handlers of
// the run (the graph's, the agent's, global ones: tracing handlers among
// them) see them beside the model and tool nodes. Their RunInfo has
// Component ComponentOfMemory, Type CallbackType and Name the step: "Begin",
// "Step" or "Commit".
const (
	ComponentOfMemory components.Component = "Memory"
	CallbackType                           = "agentmem"
)

// CallbackInput is what a memory step's OnStart receives: the thread and
// the messages given to the step (Begin: the turn's input; Step and Commit:
// what the loop produced).
type CallbackInput struct {
	ThreadID, ResourceID string
	Messages             []*schema.Message
}

// CallbackOutput is what a memory step's OnEnd receives: the prompt Begin
// or Step built; for Commit, the messages it committed (the response, as
// the model produced it).
type CallbackOutput struct {
	Messages []*schema.Message
}

// reported runs a memory step under eino's callbacks of ctx: OnStart with
// in, then OnEnd with the prompt do returns, or OnError.
func reported(ctx context.Context, step, threadID, resourceID string, in []*schema.Message,
	do func(ctx context.Context) ([]*schema.Message, error)) ([]*schema.Message, error) {
	ctx = callbacks.ReuseHandlers(ctx, &callbacks.RunInfo{Name: step, Type: CallbackType, Component: ComponentOfMemory})
	ctx = callbacks.OnStart(ctx, &CallbackInput{ThreadID: threadID, ResourceID: resourceID, Messages: in})
	out, err := do(ctx)
	if err != nil {
		callbacks.OnError(ctx, err)
		return nil, err
	}
	callbacks.OnEnd(ctx, &CallbackOutput{Messages: out})
	return out, nil
}

// reportedStep is Turn.Step of resp (converted from produced) under eino's
// callbacks; it returns the prompt as eino messages.
func reportedStep(ctx context.Context, turn *core.Turn, produced []*schema.Message, resp []message.Message) ([]*schema.Message, error) {
	th := turn.Thread()
	return reported(ctx, "Step", th.ID, th.ResourceID, produced, func(ctx context.Context) ([]*schema.Message, error) {
		prompt, err := turn.Step(ctx, resp)
		if err != nil {
			return nil, err
		}
		return ToEino(prompt), nil
	})
}
