package store

import (
	"slices"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
)

// ObservationLookback is how far before LastObservedAt an observation record
// tracks observed messages by id. A message saved after others were observed
// but created earlier (a turn stamps its input at Begin and saves it at
// Commit, while a concurrent turn of the thread or resource commits and is
// observed) is still observed if it is at most this much older than
// LastObservedAt; older messages count as observed by time alone.
const ObservationLookback = 10 * time.Minute

// ObservationRecord is the observational-memory state of one thread (key
// "thread:<id>") or resource ("resource:<id>"): the active generation of
// observations and how far the conversation has been observed (see Observed).
type ObservationRecord struct {
	Key string
	// Observations is the text of the active generation: observation lines
	// appended by the observer, or the reflector's condensed text.
	Observations string
	// ObservationTokens is the token count of Observations.
	ObservationTokens int
	// Generation counts reflections: 0 until the first one.
	Generation int
	// LastObservedAt is the CreatedAt of the newest observed message.
	LastObservedAt time.Time
	// ObservedMessageIDs are the ids of the observed messages created at most
	// ObservationLookback before LastObservedAt (the id of such a message
	// deleted since may stay until the window passes LastObservedAt).
	ObservedMessageIDs []string
	// UnobservedMessageIDs are the ids of messages created more than
	// ObservationLookback before LastObservedAt that the record has not
	// observed: those of a thread moved in from another resource
	// (MoveThread), until an observation covers them. A resource record
	// may list them; they are observed like any message after the cursor.
	UnobservedMessageIDs []string
	// Buffer holds observations and a reflection made ahead of time, not
	// active yet (see ObservationBuffer).
	Buffer ObservationBuffer
	// Version counts writes: 0 for a never-written record.
	Version   int64
	UpdatedAt time.Time
}

// Clone returns a deep copy of r.
func (r ObservationRecord) Clone() ObservationRecord {
	r.ObservedMessageIDs = append([]string(nil), r.ObservedMessageIDs...)
	r.UnobservedMessageIDs = append([]string(nil), r.UnobservedMessageIDs...)
	r.Buffer = r.Buffer.Clone()
	return r
}

// DropObservedChunks removes the buffered chunks that cover a message r
// already observes (another writer observed it first), so a chunk is never
// applied on top of its messages' observations; it returns how many it
// dropped.
func (r *ObservationRecord) DropObservedChunks() int {
	var kept []BufferedChunk
	observed := r.ObservedFunc()
	for _, c := range r.Buffer.Chunks {
		if !slices.ContainsFunc(c.Messages, func(m ObservedMessage) bool { return observed(m.CreatedAt, m.ID) }) {
			kept = append(kept, c)
		}
	}
	n := len(r.Buffer.Chunks) - len(kept)
	r.Buffer.Chunks = kept
	return n
}

// Observed reports whether a message with the given time and id is covered by
// the record: listed in ObservedMessageIDs, or created more than
// ObservationLookback before LastObservedAt and not listed in
// UnobservedMessageIDs.
func (r ObservationRecord) Observed(createdAt time.Time, id string) bool {
	return r.ObservedFunc()(createdAt, id)
}

// ObservedFunc returns Observed as a function that checks many messages
// against r without searching its id lists each time.
func (r ObservationRecord) ObservedFunc() func(createdAt time.Time, id string) bool {
	if r.LastObservedAt.IsZero() {
		return func(time.Time, string) bool { return false }
	}
	observed, unobserved := idSet(r.ObservedMessageIDs), idSet(r.UnobservedMessageIDs)
	since := r.ObservedSince()
	return func(createdAt time.Time, id string) bool {
		if observed[id] {
			return true
		}
		return createdAt.Before(since) && !unobserved[id]
	}
}

func idSet(ids []string) map[string]bool {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set
}

// ObservedSince is the start of the window of messages that may still be
// unobserved; zero when nothing was observed.
func (r ObservationRecord) ObservedSince() time.Time {
	if r.LastObservedAt.IsZero() {
		return time.Time{}
	}
	return r.LastObservedAt.Add(-ObservationLookback)
}

// ObservationKey returns the record key of observational memory: "thread:<threadID>"
// in thread scope, "resource:<resourceID>" in resource scope.
func ObservationKey(scope Scope, threadID, resourceID string) string {
	if scope == ScopeResource {
		return "resource:" + resourceID
	}
	return "thread:" + threadID
}

// ParseObservationKey validates an observation key and returns its scope and
// id; stores call it first.
func ParseObservationKey(key string) (Scope, string, error) {
	if id, ok := strings.CutPrefix(key, "thread:"); ok {
		return ScopeThread, id, ValidateID("threadId", id)
	}
	if id, ok := strings.CutPrefix(key, "resource:"); ok {
		return ScopeResource, id, ValidateID("resourceId", id)
	}
	return "", "", memerr.Errorf(memerr.CodeInvalidArgument, "", "observation key must be thread:<id> or resource:<id>, got %q", key)
}

// CheckObservationWrite validates a PutObservations against the stored
// record cur (already known to be at expectVersion): the generation rule and
// the monotonic LastObservedAt. It reports whether the write is a reflection
// that must archive cur. Stores call it inside their atomic section.
func CheckObservationWrite(cur, rec ObservationRecord) (archive bool, err error) {
	const op = "PutObservations"
	switch {
	case cur.Version == 0 && rec.Generation >= 0:
		// A new record may start at any generation: a cloned record keeps
		// its source's.
	case rec.Generation == cur.Generation:
	case rec.Generation == cur.Generation+1:
		archive = cur.Version > 0
	default:
		return false, memerr.Errorf(memerr.CodeInvalidArgument, op, "generation %d follows neither %d nor %d", rec.Generation, cur.Generation, cur.Generation+1)
	}
	if rec.LastObservedAt.Before(cur.LastObservedAt) {
		return false, memerr.Errorf(memerr.CodeInvalidArgument, op, "lastObservedAt may not move backwards (%s < %s)",
			rec.LastObservedAt.Format(time.RFC3339Nano), cur.LastObservedAt.Format(time.RFC3339Nano))
	}
	if rec.ObservationTokens < 0 {
		return false, memerr.Errorf(memerr.CodeInvalidArgument, op, "observationTokens must be non-negative")
	}
	return archive, checkBuffer(rec)
}
