package core

import (
	"context"
	"github.com/agentmem/agentmem/core/message"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/store"
)

// trim enforces the token budget on the whole prompt: over MaxTokens,
// remembered messages give way (in the order of window.Remembered) until the
// prompt is at most MaxTokens − AtMaxRemoveTokens. System, input and context
// messages are never dropped. Dropped sliding history of this thread
// advances the persisted boundary, so later turns start after it.
func (t *Turn) trim(ctx context.Context, s *store.Checked, system, conv []message.Message) ([]message.Message, error) {
	st := t.st
	if budget.PromptTokens(system, conv) <= st.maxTokens {
		return conv, nil
	}
	res := budget.Fit(conv, window.Remembered(conv, t.recalled, st.maxTokens-st.atMaxRemove, budget.PromptTokens(system)))
	var kept []message.Message
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
		t.thread.Boundary, t.boundaryMoved = &stored, true
	}
	return kept, nil
}

// seen fills what the store needs to clamp a boundary candidate b: SeenSeq
// and ReadAt (see store.ClampBoundary).
func (t *Turn) seen(b store.Boundary, loaded []message.Message) store.Boundary {
	b.SeenSeq = seenSeq(t.thread.ID, loaded)
	if r := t.thread.Boundary; r != nil && r.SameEpoch(b) {
		b.ReadAt = r.CreatedAt
	}
	return b
}

// seenSeq is the SeenSeq of a boundary candidate: the highest Seq among the
// messages of the thread this turn loaded (history and recalled messages).
// The store clamps the candidate so that it covers no message with a higher
// Seq (committed after this turn read the thread) and does not pass a
// boundary pulled back since this turn read it (store.ClampBoundary); a
// message saved later at or before the boundary pulls it back
// (store.PullBack). Together: a boundary advanced by a turn never hides a
// message that turn did not see, although a turn's input is stamped at Begin
// and saved at Commit while other turns trim.
func seenSeq(threadID string, loaded []message.Message) int64 {
	var seen int64
	for i := range loaded {
		if src := loaded[i].Source; loaded[i].ThreadID == threadID && (src == message.SourceMemory || src == message.SourceRecall) {
			seen = max(seen, loaded[i].Seq)
		}
	}
	return seen
}
