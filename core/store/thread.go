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
type Boundary struct {
	CreatedAt         time.Time `json:"createdAt"`
	MessageIDs        []string  `json:"messageIds"`
	MaxTokens         int       `json:"maxTokens"`
	AtMaxRemoveTokens int       `json:"atMaxRemoveTokens"`
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
