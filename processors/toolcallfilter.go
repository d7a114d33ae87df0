package processors

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
)

// ToolCallFilter removes tool calls and their results from the prompt.
// By default it removes those of remembered history and keeps the current
// turn's; with FilterAfterToolSteps set it keeps only the tool calls of the
// last N assistant messages that made tool calls. Calls and results are
// removed as pairs; messages left empty are dropped.
type ToolCallFilter struct {
	// Exclude names the tools to filter; nil filters every tool, an empty
	// non-nil slice filters none.
	Exclude []string
	// FilterAfterToolSteps, when non-nil, keeps the tool calls of the last N
	// tool-calling assistant messages (history and current turn alike).
	FilterAfterToolSteps *int
	// PreserveModelOutput replaces a removed pair whose result carries a
	// compact model-facing output (providerMetadata {"mastra":{"modelOutput":
	// "..."}}) with a text part "<toolName> result:\n<output>" in its place.
	PreserveModelOutput bool
}

var _ core.Processor = ToolCallFilter{}

// ProcessInput implements core.Processor.
func (f ToolCallFilter) ProcessInput(ctx context.Context, in core.ProcessorInput) ([]message.Message, error) {
	if f.Exclude != nil && len(f.Exclude) == 0 {
		return in.Messages, nil
	}
	msgs := in.Messages
	preserve := map[string]bool{} // tool call ids to keep
	if f.FilterAfterToolSteps != nil {
		steps := *f.FilterAfterToolSteps
		for i := len(msgs) - 1; i >= 0 && steps > 0; i-- {
			if msgs[i].Role == message.RoleAssistant && hasCall(&msgs[i]) {
				steps--
				for _, id := range msgs[i].ToolCallIDs() {
					preserve[id] = true
				}
			}
		}
	} else {
		for i := range msgs {
			if msgs[i].Source != message.SourceMemory && msgs[i].Source != message.SourceRecall {
				for _, id := range msgs[i].ToolCallIDs() {
					preserve[id] = true
				}
			}
		}
	}
	drop := map[string]bool{}
	for i := range msgs {
		for _, p := range msgs[i].Content.Parts {
			if ti := p.ToolInvocation; ti != nil && !preserve[ti.ToolCallID] && f.excluded(ti.ToolName) {
				drop[ti.ToolCallID] = true
			}
		}
	}
	if len(drop) == 0 {
		return msgs, nil
	}
	var out []message.Message
	for _, msg := range msgs {
		parts := msg.Content.Parts[:0:0]
		for _, p := range msg.Content.Parts {
			ti := p.ToolInvocation
			switch {
			case ti == nil || !drop[ti.ToolCallID]:
				parts = append(parts, p)
			case f.PreserveModelOutput && ti.State == message.ToolStateResult:
				if out, ok := modelOutput(p.ProviderMetadata); ok {
					parts = append(parts, core.TextPart(ti.ToolName+" result:\n"+out))
				}
			}
		}
		if len(parts) == 0 || onlyStepStarts(parts) {
			continue
		}
		msg.Content.Parts = parts
		out = append(out, msg)
	}
	return out, nil
}

func (f ToolCallFilter) excluded(name string) bool {
	return f.Exclude == nil || slices.Contains(f.Exclude, name)
}

func hasCall(m *message.Message) bool {
	for _, p := range m.Content.Parts {
		if p.ToolInvocation != nil {
			return true
		}
	}
	return false
}

func onlyStepStarts(parts []message.Part) bool {
	for _, p := range parts {
		if p.Type != message.PartStepStart {
			return false
		}
	}
	return true
}

// modelOutput reads providerMetadata.mastra.modelOutput (a string, or any
// JSON value rendered as JSON).
func modelOutput(meta json.RawMessage) (string, bool) {
	var m struct {
		Mastra struct {
			ModelOutput json.RawMessage `json:"modelOutput"`
		} `json:"mastra"`
	}
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil || len(m.Mastra.ModelOutput) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(m.Mastra.ModelOutput, &s) == nil {
		return s, true
	}
	return string(m.Mastra.ModelOutput), true
}
