package window

import (
	"regexp"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/core/message"
)

var workingMemoryTagRE = regexp.MustCompile(`(?s)<working_memory>.*?</working_memory>`)

// Persistable returns the message as it should be stored, or false when
// nothing of it is stored: system messages, transient signals, partial tool
// calls, parts of the working-memory tool (named workingMemoryTool) and
// <working_memory> tags are removed.
func Persistable(msg message.Message, workingMemoryTool string) (message.Message, bool) {
	if msg.Role == message.RoleSystem || isTransientSignal(&msg) {
		return msg, false
	}
	if !slices.ContainsFunc(msg.Content.Parts, func(p message.Part) bool { return unpersisted(p, workingMemoryTool) }) {
		return msg, len(msg.Content.Parts) > 0 // the common case: nothing to strip, nothing to copy
	}
	parts := make([]message.Part, 0, len(msg.Content.Parts))
	for _, p := range msg.Content.Parts {
		if unpersisted(p, workingMemoryTool) {
			if p.Type != message.PartText {
				continue
			}
			p.Text = strings.TrimSpace(workingMemoryTagRE.ReplaceAllString(p.Text, ""))
			if p.Text == "" {
				continue
			}
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return msg, false
	}
	msg.Content.Parts = parts
	return msg, true
}

// unpersisted reports whether a part is dropped (a partial tool call, the
// working-memory tool) or has its working-memory tags stripped when saved.
func unpersisted(p message.Part, workingMemoryTool string) bool {
	switch {
	case p.Type == message.PartToolInvocation && p.ToolInvocation != nil:
		return p.ToolInvocation.State == message.ToolStatePartialCall || p.ToolInvocation.ToolName == workingMemoryTool
	case p.Type == message.PartText:
		return strings.Contains(p.Text, "<working_memory>")
	}
	return false
}

// isTransientSignal reports a signal message marked transient, never stored.
func isTransientSignal(m *message.Message) bool {
	sig, ok := m.Content.Metadata["signal"].(map[string]any)
	return ok && sig["transient"] == true
}
