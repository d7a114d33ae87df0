package observe

import (
	"regexp"
	"strings"

	"github.com/agentmem/agentmem/core/internal/transcript"
)

// HintsKey is the thread metadata key holding a thread's continuation hints
// (Mastra keeps them in thread metadata too): what the assistant is working
// on and what its next message should do, rewritten by every observation.
const HintsKey = "observationalMemory"

// HintInstructions asks the observer or reflector for the continuation
// hints; it follows the format rules of their system prompts.
const HintInstructions = `Besides the observation lines, end your reply with two short sections that help the assistant continue the conversation:
<current-task>
What the assistant is working on now; other pending tasks, marked "waiting for user" where that applies. A new question or task in the user's latest message is the current task.
</current-task>
<suggested-response>
A hint for the assistant's next message: continue the work, answer the question, or wait for the user's reply.
</suggested-response>
Leave a section out when there is nothing to put in it.`

var hintRE = regexp.MustCompile(`(?s)<(current-task|suggested-response)>(.*?)</(?:current-task|suggested-response)>`)

// SplitHints takes the continuation-hint sections out of a model's reply:
// the reply without them, and the hints found (nil for none).
func SplitHints(reply string) (string, map[string]any) {
	var hints map[string]any
	for _, m := range hintRE.FindAllStringSubmatch(reply, -1) {
		if text := strings.TrimSpace(m[2]); text != "" {
			if hints == nil {
				hints = map[string]any{}
			}
			hints[map[string]string{"current-task": "currentTask", "suggested-response": "suggestedResponse"}[m[1]]] = text
		}
	}
	return Clean(hintRE.ReplaceAllString(reply, "")), hints
}

// HintsPatch is the thread metadata patch that stores hints over those in
// metadata: a hint the reply left out keeps its stored value, as in Mastra.
func HintsPatch(metadata, hints map[string]any) map[string]any {
	merged := map[string]any{}
	if prev, ok := metadata[HintsKey].(map[string]any); ok {
		for k, v := range prev {
			merged[k] = v
		}
	}
	for k, v := range hints {
		merged[k] = v
	}
	return map[string]any{HintsKey: merged}
}

// HintTexts renders the hints stored in a thread's metadata as system
// message texts, current task first, escaped like observations.
func HintTexts(metadata map[string]any) []string {
	hints, _ := metadata[HintsKey].(map[string]any)
	var out []string
	for _, k := range [][2]string{{"currentTask", "current-task"}, {"suggestedResponse", "suggested-response"}} {
		if text, ok := hints[k[0]].(string); ok && strings.TrimSpace(text) != "" {
			out = append(out, "<"+k[1]+">\n"+transcript.EscapeFence(text)+"\n</"+k[1]+">")
		}
	}
	return out
}
