package core

import (
	"context"

	"github.com/agentmem/agentmem/core/message"
)

// stepToolResults is the Begin step "tool results" (see fillToolResults).
func (t *Turn) stepToolResults(_ context.Context, b *build) error {
	fillToolResults(b.input, b.history)
	return nil
}

// fillToolResults completes the tool results of a turn's input whose call is
// not in the input: a placeholder tool name and missing arguments are taken
// from the call with the same id in the history Begin already loaded. An
// adapter that receives a bare tool result (a client-side tool answering an
// earlier call) thus stores it with its call's name and arguments without a
// lookup of its own. Results whose call is in neither stay as they are.
func fillToolResults(input, history []Message) {
	var calls map[string]*message.ToolInvocation
	for i := range input {
		for _, p := range input[i].Content.Parts {
			ti := p.ToolInvocation
			if ti == nil || ti.State != message.ToolStateResult || !(message.IsPlaceholderToolName(ti.ToolName) || len(ti.Args) == 0) {
				continue
			}
			if calls == nil {
				calls = knownCalls(history)
			}
			c, ok := calls[ti.ToolCallID]
			if !ok {
				continue
			}
			if message.IsPlaceholderToolName(ti.ToolName) {
				ti.ToolName = c.ToolName
			}
			if len(ti.Args) == 0 {
				ti.Args = append(ti.Args[:0:0], c.Args...)
			}
		}
	}
}

// knownCalls indexes the named tool invocations of msgs by call id, the call
// itself winning over a result of it.
func knownCalls(msgs []Message) map[string]*message.ToolInvocation {
	out := map[string]*message.ToolInvocation{}
	for i := range msgs {
		for _, p := range msgs[i].Content.Parts {
			ti := p.ToolInvocation
			if ti == nil || message.IsPlaceholderToolName(ti.ToolName) {
				continue
			}
			if _, seen := out[ti.ToolCallID]; !seen || ti.State == message.ToolStateCall {
				out[ti.ToolCallID] = ti
			}
		}
	}
	return out
}
