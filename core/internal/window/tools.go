package window

import (
	"encoding/json"

	"github.com/agentmem/agentmem/core/message"
)

// PairToolCalls is the final guard before a prompt leaves memory: a tool call
// without a result anywhere in the prompt is removed (or, with
// keepIncomplete false, given a pending placeholder result), so no provider
// receives an unpaired tool call. Messages left empty are dropped.
func PairToolCalls(prompt []message.Message, filterIncomplete bool) []message.Message {
	resolved := map[string]bool{}
	for i := range prompt {
		for _, p := range prompt[i].Content.Parts {
			if ti := p.ToolInvocation; ti != nil && ti.State == message.ToolStateResult {
				resolved[ti.ToolCallID] = true
			}
		}
	}
	unpaired := func(p *message.Part) bool {
		ti := p.ToolInvocation
		return ti != nil && ti.State != message.ToolStateResult && !resolved[ti.ToolCallID]
	}
	some := false
	for i := range prompt {
		for j := range prompt[i].Content.Parts {
			some = some || unpaired(&prompt[i].Content.Parts[j])
		}
	}
	if !some {
		return prompt // the common case: nothing to change, nothing to copy
	}
	out := make([]message.Message, 0, len(prompt))
	for _, msg := range prompt {
		changed := false
		parts := msg.Content.Parts[:0:0]
		for _, p := range msg.Content.Parts {
			ti := p.ToolInvocation
			if !unpaired(&p) {
				parts = append(parts, p)
				continue
			}
			changed = true
			if !filterIncomplete && ti.State == message.ToolStateCall {
				c := *ti
				c.State, c.Result = message.ToolStateResult, json.RawMessage(`{"status":"pending"}`)
				p.ToolInvocation = &c
				parts = append(parts, p)
			}
		}
		if changed {
			if len(parts) == 0 {
				continue
			}
			msg.Content.Parts = parts
		}
		out = append(out, msg)
	}
	return out
}

// FillToolResults completes the tool results of a turn's input whose call is
// not in the input: a placeholder tool name and missing arguments are taken
// from the call with the same id in the history Begin already loaded. An
// adapter that receives a bare tool result (a client-side tool answering an
// earlier call) thus stores it with its call's name and arguments without a
// lookup of its own. Results whose call is in neither stay as they are.
func FillToolResults(input, history []message.Message) {
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
func knownCalls(msgs []message.Message) map[string]*message.ToolInvocation {
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
