package processors

import (
	"context"
	"github.com/agentmem/agentmem/core/message"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/memerr"
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
func (l TokenLimiter) ProcessInput(ctx context.Context, in core.ProcessorInput) ([]message.Message, error) {
	const op = "TokenLimiter"
	if l.Limit <= 0 {
		return nil, memerr.Errorf(memerr.CodeInvalidConfig, op, "limit must be positive")
	}
	msgs := in.Messages
	used := budget.PromptTokens(nil)
	protected := make([]bool, len(msgs))
	hasConversation := false
	for i := range msgs {
		if msgs[i].Role == message.RoleSystem || msgs[i].Source == message.SourceSystem {
			protected[i] = true
			used += msgs[i].Tokens
		} else {
			hasConversation = true
		}
	}
	if used >= l.Limit {
		return nil, memerr.Errorf(memerr.CodeTokenLimit, op, "System messages alone exceed token limit: %d >= %d", used, l.Limit)
	}
	if !hasConversation {
		return nil, memerr.Errorf(memerr.CodeTokenLimit, op, "No messages to process")
	}
	hasInput := false
	for i := range msgs {
		hasInput = hasInput || msgs[i].Source == message.SourceInput
	}
	res := budget.Fit(msgs, budget.Policy{
		Limit:    l.Limit,
		Overhead: budget.PromptTokens(nil),
		Protected: func(m *message.Message) bool {
			return m.Role == message.RoleSystem || m.Source == message.SourceSystem || m.Source == message.SourceInput
		},
		BestFit: l.Strategy != Contiguous,
	})
	if res.Kept == 0 && !hasInput {
		return nil, memerr.Errorf(memerr.CodeTokenLimit, op, "No messages fit within the remaining token budget")
	}
	return budget.Apply(msgs, res.Keep), nil
}
