package store

import (
	"time"

	"github.com/agentmem/agentmem/core/message"
)

// Thread is one conversation. It belongs to exactly one resource.
type Thread struct {
	ID         string         `json:"id"`
	ResourceID string         `json:"resourceId"`
	Title      string         `json:"title"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	CreatedAt  time.Time      `json:"createdAt"`
	UpdatedAt  time.Time      `json:"updatedAt"`
	// Boundary is the persisted trim boundary of token-budgeted history; only
	// Store.AdvanceBoundary changes it.
	Boundary *Boundary `json:"boundary,omitempty"`
}

// Clone returns a deep copy of t.
func (t Thread) Clone() Thread {
	t.Metadata = message.CloneMetadata(t.Metadata)
	if t.Boundary != nil {
		b := t.Boundary.Clone()
		t.Boundary = &b
	}
	return t
}

// Resource is the owner of threads, usually a user or tenant.
type Resource struct {
	ID            string         `json:"id"`
	WorkingMemory string         `json:"workingMemory"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	CreatedAt     time.Time      `json:"createdAt"`
	UpdatedAt     time.Time      `json:"updatedAt"`
}

// Boundary is the per-thread trim boundary: messages at or before it that were
// trimmed by the token budget are excluded from later turns (they stay stored).
// It is honoured only while MaxTokens and AtMaxRemoveTokens are unchanged.
//
// A boundary never hides a message the turn that advanced it did not see:
// AdvanceBoundary clamps a candidate before the first message of the thread
// with a Seq above the candidate's SeenSeq, and to the stored boundary when
// that was pulled back after the turn read it (ClampBoundary); SaveMessages
// pulls the stored boundary back before a message it inserts at or before it
// (PullBack). Seq must grow in commit order within a thread.
type Boundary struct {
	CreatedAt         time.Time `json:"createdAt"`
	MessageIDs        []string  `json:"messageIds"`
	MaxTokens         int       `json:"maxTokens"`
	AtMaxRemoveTokens int       `json:"atMaxRemoveTokens"`
	// SeenSeq and ReadAt are set on a candidate only; stores do not keep
	// them. SeenSeq is the highest Seq of the thread's messages the
	// advancing turn loaded (0: unknown). ReadAt is the CreatedAt of the
	// boundary (of the same epoch) the turn loaded history under, zero when
	// there was none.
	SeenSeq int64     `json:"-"`
	ReadAt  time.Time `json:"-"`
}

// Clone returns a deep copy of b.
func (b Boundary) Clone() Boundary {
	b.MessageIDs = append([]string(nil), b.MessageIDs...)
	return b
}

// SameEpoch reports whether b was written under the same limits as o.
func (b Boundary) SameEpoch(o Boundary) bool {
	return b.MaxTokens == o.MaxTokens && b.AtMaxRemoveTokens == o.AtMaxRemoveTokens
}

// Excludes reports whether a message with the given time and id lies at or
// before the boundary (and so is not loaded into history).
func (b Boundary) Excludes(createdAt time.Time, id string) bool {
	if createdAt.Before(b.CreatedAt) {
		return true
	}
	if createdAt.Equal(b.CreatedAt) {
		for _, x := range b.MessageIDs {
			if x == id {
				return true
			}
		}
	}
	return false
}

// MergeBoundary computes the boundary that AdvanceBoundary stores: it never
// moves backwards within one epoch, unions ids at equal timestamps, and a
// candidate of another epoch replaces the old boundary. Stores call it inside
// their atomic section.
func MergeBoundary(old *Boundary, cand Boundary) Boundary {
	cand = cand.Clone()
	cand.CreatedAt = cand.CreatedAt.UTC()
	cand.SeenSeq, cand.ReadAt = 0, time.Time{}
	if old == nil || !old.SameEpoch(cand) {
		return cand
	}
	switch {
	case old.CreatedAt.After(cand.CreatedAt):
		return old.Clone()
	case old.CreatedAt.Equal(cand.CreatedAt):
		out := old.Clone()
		seen := make(map[string]bool, len(out.MessageIDs))
		for _, id := range out.MessageIDs {
			seen[id] = true
		}
		for _, id := range cand.MessageIDs {
			if !seen[id] {
				seen[id] = true
				out.MessageIDs = append(out.MessageIDs, id)
			}
		}
		return out
	}
	return cand
}

// ClampBoundary limits cand so that it covers no message its turn did not
// see, given the stored boundary cur. firstUnseen is the earliest CreatedAt
// of the thread's messages with a Seq above cand.SeenSeq (committed after the
// turn read), zero when there is none (stores skip the lookup when SeenSeq is
// 0): a candidate past it moves to one microsecond before it. A stored
// boundary older than cand.ReadAt was pulled back after the turn read (a
// message was inserted behind the boundary the turn loaded under, so the turn
// did not see it): the candidate goes no further than cur. A clamped
// candidate has no ids. Stores call it inside AdvanceBoundary's atomic
// section, before MergeBoundary.
func ClampBoundary(cand Boundary, cur *Boundary, firstUnseen time.Time) Boundary {
	limit := cand.CreatedAt
	if !firstUnseen.IsZero() && firstUnseen.Before(limit) {
		limit = firstUnseen.UTC().Add(-time.Microsecond)
	}
	if !cand.ReadAt.IsZero() && cur != nil && cur.SameEpoch(cand) && cur.CreatedAt.Before(cand.ReadAt) && cur.CreatedAt.Before(limit) {
		limit = cur.CreatedAt
	}
	if !limit.Before(cand.CreatedAt) {
		return cand
	}
	cand = cand.Clone()
	cand.CreatedAt, cand.MessageIDs = limit, nil
	return cand
}

// PullBack returns the boundary to store after a message created at
// createdAt was inserted into the thread: a boundary at or after createdAt
// moves to one microsecond before it, without ids, so that a message written
// after the boundary (a turn's input is stamped at Begin and saved at
// Commit) never starts hidden. Stores call it inside SaveMessages' atomic
// section for every message they insert; nil stays nil.
func PullBack(b *Boundary, createdAt time.Time) *Boundary {
	if b == nil || b.CreatedAt.Before(createdAt) {
		return b
	}
	return &Boundary{CreatedAt: createdAt.UTC().Add(-time.Microsecond), MaxTokens: b.MaxTokens, AtMaxRemoveTokens: b.AtMaxRemoveTokens}
}

// MergeMetadata returns old shallow-merged with patch, as UpdateThread and
// UpdateResource store it: a nil value deletes the key. old is not changed;
// a nil old with an empty patch stays nil.
func MergeMetadata(old, patch map[string]any) map[string]any {
	if old == nil && len(patch) == 0 {
		return nil
	}
	out := make(map[string]any, len(old)+len(patch))
	for k, v := range old {
		out[k] = v
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}
