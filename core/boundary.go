package core

// seenSeq is the SeenSeq of a boundary candidate: the highest Seq among the
// messages of the thread this turn loaded (history and recalled messages).
// The store clamps the candidate so that it covers no message with a higher
// Seq, that is no message committed after this turn read the thread
// (store.ClampBoundary); a message saved later at or before the boundary
// pulls it back (store.PullBack). Together: a boundary advanced by a turn
// never hides a message that turn did not see, although a turn's input is
// stamped at Begin and saved at Commit while other turns trim.
func seenSeq(threadID string, loaded []Message) int64 {
	var seen int64
	for i := range loaded {
		if loaded[i].ThreadID == threadID && loaded[i].Source == SourceMemory {
			seen = max(seen, loaded[i].Seq)
		}
	}
	return seen
}
