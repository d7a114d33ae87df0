package core

import "github.com/agentmem/agentmem/core/store"

// seen fills what the store needs to clamp a boundary candidate b: SeenSeq
// and ReadAt (see store.ClampBoundary).
func (t *Turn) seen(b store.Boundary, loaded []Message) store.Boundary {
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
func seenSeq(threadID string, loaded []Message) int64 {
	var seen int64
	for i := range loaded {
		if src := loaded[i].Source; loaded[i].ThreadID == threadID && (src == SourceMemory || src == SourceRecall) {
			seen = max(seen, loaded[i].Seq)
		}
	}
	return seen
}
