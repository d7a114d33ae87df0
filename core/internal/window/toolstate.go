package window

import (
	"encoding/json"

	"github.com/agentmem/agentmem/core/message"
)

// ToolCallStates maps the tool-call ids of stored messages to their state;
// a result anywhere finishes the call.
func ToolCallStates(known map[string]*message.Message) map[string]string {
	states := map[string]string{}
	for _, msg := range known {
		for _, p := range msg.Content.Parts {
			if ti := p.ToolInvocation; ti != nil && states[ti.ToolCallID] != message.ToolStateResult {
				states[ti.ToolCallID] = ti.State
			}
		}
	}
	return states
}

// TrailingResults returns msg with only its trailing run of tool results.
func TrailingResults(msg message.Message) message.Message {
	parts := msg.Content.Parts
	i := len(parts)
	for i > 0 && IsToolResult(&parts[i-1]) {
		i--
	}
	msg.Content.Parts = parts[i:]
	return msg
}

// IsToolResult reports whether p is a tool invocation in state result.
func IsToolResult(p *message.Part) bool {
	return p.ToolInvocation != nil && p.ToolInvocation.State == message.ToolStateResult
}

// WithoutKey returns a copy of raw without key (raw itself when it lacks it).
func WithoutKey(raw map[string]json.RawMessage, key string) map[string]json.RawMessage {
	if _, ok := raw[key]; !ok {
		return raw
	}
	out := make(map[string]json.RawMessage, len(raw))
	for k, v := range raw {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// AdvanceCalls replaces the pending calls of msg with the matching results
// and returns the results that matched none.
func AdvanceCalls(msg *message.Message, results []message.Part) []message.Part {
	var rest []message.Part
	for _, r := range results {
		matched := false
		for i := range msg.Content.Parts {
			ti := msg.Content.Parts[i].ToolInvocation
			if ti != nil && ti.ToolCallID == r.ToolInvocation.ToolCallID && ti.State == message.ToolStateCall {
				msg.Content.Parts[i] = r
				matched = true
				break
			}
		}
		if !matched {
			rest = append(rest, r)
		}
	}
	return rest
}

// StripProviderMetadata removes the provider metadata of an assistant
// message's parts, tool results excepted.
func StripProviderMetadata(msg *message.Message) {
	if msg.Role != message.RoleAssistant {
		return
	}
	parts := make([]message.Part, len(msg.Content.Parts))
	for i, p := range msg.Content.Parts {
		if !IsToolResult(&p) {
			p.ProviderMetadata = nil
			p.Extra = WithoutKey(p.Extra, "providerOptions")
		}
		parts[i] = p
	}
	msg.Content.Parts = parts
}
