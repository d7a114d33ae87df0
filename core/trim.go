package core

import (
	"context"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/window"
)

// trim enforces the token budget on the whole prompt: over MaxTokens,
// remembered messages give way (in the order of rememberedPolicy) until the
// prompt is at most MaxTokens − AtMaxRemoveTokens. System, input and context
// messages are never dropped. Dropped sliding history of this thread
// advances the persisted boundary, so later turns start after it.
func (t *Turn) trim(ctx context.Context, s *CheckedStore, system, conv []Message) ([]Message, error) {
	st := t.st
	if budget.PromptTokens(system, conv) <= st.maxTokens {
		return conv, nil
	}
	res := budget.Fit(conv, window.Remembered(conv, t.recalled, st.maxTokens-st.atMaxRemove, budget.PromptTokens(system)))
	var kept []Message
	for i, msg := range conv {
		if res.Keep[i] {
			kept = append(kept, msg)
		} else {
			t.trimmed = append(t.trimmed, msg)
		}
	}
	if st.readOnly {
		return kept, nil
	}
	if b, ok := window.BoundaryFor(t.thread.ID, window.SlidingOnly(t.trimmed), st.maxTokens, st.atMaxRemove); ok {
		b = t.seen(b, conv)
		stored, err := s.AdvanceBoundary(ctx, t.thread.ID, t.thread.ResourceID, b)
		if err != nil {
			return nil, err
		}
		t.thread.Boundary = &stored
	}
	return kept, nil
}
