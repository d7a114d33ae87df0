package processors

import (
	"context"

	"github.com/agentmem/agentmem/core"
)

// Strategies of TokenLimiter.
const (
	BestFit    = "best-fit"   // keep scanning older groups after one does not fit
	Contiguous = "contiguous" // stop at the first group that does not fit
)

// TokenLimiter bounds the prompt to Limit tokens by dropping the oldest
// conversation messages (tool call groups together). System messages and the
// current input are never removed.
type TokenLimiter struct {
	Limit    int
	Strategy string // BestFit (default) or Contiguous
}

var _ core.Processor = TokenLimiter{}

// ProcessInput implements core.Processor.
func (l TokenLimiter) ProcessInput(ctx context.Context, in core.ProcessorInput) ([]core.Message, error) {
	const op = "TokenLimiter"
	if l.Limit <= 0 {
		return nil, core.Errorf(core.CodeInvalidConfig, op, "limit must be positive")
	}
	msgs := in.Messages
	used := core.PromptTokens(nil)
	protected := make([]bool, len(msgs))
	hasConversation := false
	for i := range msgs {
		if msgs[i].Role == core.RoleSystem || msgs[i].Source == core.SourceSystem {
			protected[i] = true
			used += msgs[i].Tokens
		} else {
			hasConversation = true
		}
	}
	if used >= l.Limit {
		return nil, core.Errorf(core.CodeTokenLimit, op, "System messages alone exceed token limit: %d >= %d", used, l.Limit)
	}
	if !hasConversation {
		return nil, core.Errorf(core.CodeTokenLimit, op, "No messages to process")
	}
	groups := core.ToolGroups(msgs)
	keep := append([]bool(nil), protected...)
	// The current input is kept first, whatever it costs.
	for _, g := range groups {
		if anyInput(msgs, g) {
			for _, i := range g {
				if !keep[i] {
					keep[i] = true
					used += msgs[i].Tokens
				}
			}
		}
	}
	kept := 0
	for gi := len(groups) - 1; gi >= 0; gi-- {
		g := groups[gi]
		if keep[g[0]] {
			kept++
			continue
		}
		sum := 0
		for _, i := range g {
			sum += msgs[i].Tokens
		}
		if used+sum > l.Limit {
			if l.Strategy == Contiguous {
				break
			}
			continue
		}
		used += sum
		kept++
		for _, i := range g {
			keep[i] = true
		}
	}
	if kept == 0 {
		return nil, core.Errorf(core.CodeTokenLimit, op, "No messages fit within the remaining token budget")
	}
	var out []core.Message
	for i, k := range keep {
		if k {
			out = append(out, msgs[i])
		}
	}
	return out, nil
}

func anyInput(msgs []core.Message, g []int) bool {
	for _, i := range g {
		if msgs[i].Source == core.SourceInput {
			return true
		}
	}
	return false
}
