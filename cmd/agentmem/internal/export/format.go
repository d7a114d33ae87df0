package export

import (
	"bytes"
	"encoding/json"
	"github.com/agentmem/agentmem/core/message"
	"time"

	"github.com/agentmem/agentmem/core/store"
)

// The export format is JSON Lines. The first line is a header
// {"kind":"agentmem-export","version":1}; then, per resource, a resource line,
// and per thread of it a thread line followed by its messages (oldest first),
// its working memory and its observations (archived generations oldest first,
// then the active one); the resource's own observations close the resource.
// Keys are sorted and times are UTC with microsecond precision, so two exports
// of the same memory are byte-identical whatever store they come from.
const (
	KindHeader        = "agentmem-export"
	KindResource      = "resource"
	KindThread        = "thread"
	KindMessage       = "message"
	KindWorkingMemory = "workingMemory"
	KindObservations  = "observations"
	FormatVersion     = 1
)

// Record is one line of an export.
type Record struct {
	Kind          string            `json:"kind"`
	Version       int               `json:"version,omitempty"`
	Resource      *ResourceDoc      `json:"resource,omitempty"`
	Thread        *store.Thread     `json:"thread,omitempty"`
	Message       *message.Message  `json:"message,omitempty"`
	WorkingMemory *WorkingMemoryDoc `json:"workingMemory,omitempty"`
	Observations  *ObservationDoc   `json:"observations,omitempty"`
}

// ResourceDoc is a resource: its metadata and resource-scoped working memory.
type ResourceDoc struct {
	ID            string         `json:"id"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	WorkingMemory string         `json:"workingMemory,omitempty"`
}

// WorkingMemoryDoc is the thread-scoped working memory of a thread.
type WorkingMemoryDoc struct {
	ThreadID string `json:"threadId"`
	Data     string `json:"data"`
}

// ObservationDoc is one generation of an observational-memory record.
type ObservationDoc struct {
	Key                string    `json:"key"`
	Observations       string    `json:"observations"`
	ObservationTokens  int       `json:"observationTokens"`
	Generation         int       `json:"generation"`
	LastObservedAt     time.Time `json:"lastObservedAt"`
	ObservedMessageIDs []string  `json:"observedMessageIds,omitempty"`
	// UnobservedMessageIDs are the messages of a thread moved in that the
	// Record has not observed yet (the active Record only).
	UnobservedMessageIDs []string `json:"unobservedMessageIds,omitempty"`
	// Buffer is what buffered observational memory made ahead of time (the
	// active Record only).
	Buffer *store.ObservationBuffer `json:"buffer,omitempty"`
	// Archived marks a generation replaced by a reflection.
	Archived bool `json:"archived,omitempty"`
}

// NewObservationDoc is the export of an observational-memory record.
func NewObservationDoc(r store.ObservationRecord) ObservationDoc {
	doc := ObservationDoc{
		Key: r.Key, Observations: r.Observations, ObservationTokens: r.ObservationTokens,
		Generation: r.Generation, LastObservedAt: UTC(r.LastObservedAt), ObservedMessageIDs: r.ObservedMessageIDs,
		UnobservedMessageIDs: r.UnobservedMessageIDs,
	}
	if !r.Buffer.Empty() {
		b := r.Buffer.Clone()
		doc.Buffer = &b
	}
	return doc
}

// StoreRecord is the record o exports, as a store keeps it: an archived
// generation without the active record's unobserved messages and buffer.
func (o ObservationDoc) StoreRecord() store.ObservationRecord {
	rec := store.ObservationRecord{
		Key: o.Key, Observations: o.Observations, ObservationTokens: o.ObservationTokens,
		Generation: o.Generation, LastObservedAt: o.LastObservedAt, ObservedMessageIDs: o.ObservedMessageIDs,
	}
	if !o.Archived {
		rec.UnobservedMessageIDs = o.UnobservedMessageIDs
		if o.Buffer != nil {
			rec.Buffer = o.Buffer.Clone()
		}
	}
	return rec
}

// UTC returns t in UTC at microsecond precision (what every store keeps).
func UTC(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}

// normalize puts every time of r in UTC at microsecond precision.
func (r *Record) normalize() {
	if t := r.Thread; t != nil {
		t.CreatedAt, t.UpdatedAt = UTC(t.CreatedAt), UTC(t.UpdatedAt)
		if t.Boundary != nil {
			t.Boundary.CreatedAt = UTC(t.Boundary.CreatedAt)
		}
	}
	if m := r.Message; m != nil {
		m.CreatedAt = UTC(m.CreatedAt)
	}
	if o := r.Observations; o != nil {
		o.LastObservedAt = UTC(o.LastObservedAt)
	}
}

// Encode returns the canonical line of r (without the newline).
func Encode(r Record) ([]byte, error) {
	r.normalize()
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return CanonicalJSON(raw)
}

// CanonicalJSON re-encodes JSON compactly with object keys sorted at every
// level, raw JSON fields included, so that a store that reorders keys
// (PostgreSQL JSONB) prints and exports the same bytes as one that does not.
func CanonicalJSON(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
