package core

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Store is the storage driver interface. Backends implement it; Memory owns all
// semantics above it. Every method must be safe for concurrent use, and every
// cross-request invariant (ownership, boundary monotonicity, working-memory
// versions, atomic batches) must be enforced by the backend itself so that
// several processes can share it. Errors are *Error values (see WrapStorage).
//
// Package storetest holds the conformance suite every Store must pass.
type Store interface {
	// SaveThread inserts or replaces a thread. An existing thread keeps its
	// CreatedAt, Boundary and working memory; its ResourceID may not change
	// (ErrResourceMismatch).
	SaveThread(ctx context.Context, t Thread) (Thread, error)
	// GetThread returns the thread or ErrThreadNotFound.
	GetThread(ctx context.Context, id string) (Thread, error)
	// ListThreads lists threads by resource and metadata, paged and ordered.
	ListThreads(ctx context.Context, q ThreadQuery) (ThreadPage, error)
	// UpdateThread changes the title (when non-nil) and shallow-merges
	// metadata (a nil value deletes the key), bumping UpdatedAt.
	UpdateThread(ctx context.Context, id string, title *string, metadata map[string]any) (Thread, error)
	// DeleteThread removes a thread and its messages. A missing thread is no error.
	DeleteThread(ctx context.Context, id string) error

	// SaveMessages upserts messages atomically: all or none. Every message has
	// an ID, ThreadID, ResourceID and CreatedAt; its thread exists and belongs
	// to ResourceID (else ErrThreadNotFound / ErrResourceMismatch). An upsert
	// never changes CreatedAt or Seq; it may move a message to another thread
	// of the same resource, but never take over a message id of another
	// resource (ErrResourceMismatch).
	// The UpdatedAt of every touched thread is bumped. Returned messages carry
	// their stored CreatedAt and Seq.
	SaveMessages(ctx context.Context, msgs []Message) ([]Message, error)
	// ListMessages selects messages of one thread; see MessageQuery.
	ListMessages(ctx context.Context, q MessageQuery) (MessagePage, error)
	// GetMessages returns the messages with the given ids, chronologically;
	// unknown ids are skipped.
	GetMessages(ctx context.Context, ids []string) ([]Message, error)
	// DeleteMessages deletes messages by id (unknown ids are fine) and bumps
	// the UpdatedAt of their threads.
	DeleteMessages(ctx context.Context, ids []string) error

	// GetResource returns the resource or ErrNotFound.
	GetResource(ctx context.Context, id string) (Resource, error)
	// UpdateResource creates the resource if missing and shallow-merges metadata.
	UpdateResource(ctx context.Context, id string, metadata map[string]any) (Resource, error)
	// GetWorkingMemory returns the working memory of a thread or resource; a
	// never-written one has Version 0. Thread scope: ErrThreadNotFound if missing.
	GetWorkingMemory(ctx context.Context, scope Scope, id string) (WorkingMemory, error)
	// PutWorkingMemory stores data if the current version equals expectVersion
	// (else ErrConflict) and returns the new version. Resource scope creates the
	// resource; thread scope needs the thread.
	PutWorkingMemory(ctx context.Context, scope Scope, id, data string, expectVersion int64) (WorkingMemory, error)

	// AdvanceBoundary atomically merges cand into the thread's boundary with
	// MergeBoundary and returns what is stored. It fails with ErrThreadNotFound
	// or ErrResourceMismatch (writing nothing) when the thread is missing or is
	// not owned by resourceID. Title and metadata are untouched.
	AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand Boundary) (Boundary, error)

	// ListResourceMessages lists the messages of every thread of a resource
	// (observational memory in resource scope); see ResourceMessageQuery.
	ListResourceMessages(ctx context.Context, q ResourceMessageQuery) ([]Message, error)
	// GetObservations returns the observational-memory record under key
	// ("thread:<id>" or "resource:<id>", see ObservationKey); a never-written
	// record is the zero record with Key set and Version 0.
	GetObservations(ctx context.Context, key string) (ObservationRecord, error)
	// PutObservations stores rec under rec.Key if the stored Version equals
	// expectVersion (else ErrConflict, writing nothing) and returns what is
	// stored, with Version expectVersion+1 and a new UpdatedAt. rec.Generation
	// must equal the stored Generation (an observation appended) or exceed it
	// by one (a reflection): then the stored active generation, when there is
	// one, is archived in the same atomic write, so ListObservationGenerations
	// keeps it. rec.LastObservedAt may not move backwards (ErrInvalidArgument).
	// A thread key needs its thread (ErrThreadNotFound); DeleteThread removes
	// the thread's record and its archived generations.
	PutObservations(ctx context.Context, rec ObservationRecord, expectVersion int64) (ObservationRecord, error)
	// ListObservationGenerations returns the archived (reflected) generations
	// under key, oldest first; the active one is GetObservations'.
	ListObservationGenerations(ctx context.Context, key string) ([]ObservationRecord, error)

	// MarkUnindexed records that the messages with the given ids still need
	// indexing for semantic recall (their indexing failed); unknown ids are
	// ignored and marking a marked message again changes nothing. The record
	// is durable: a restarted process finds it with ListUnindexed. Deleting a
	// message (DeleteMessages, DeleteThread) removes its marker.
	MarkUnindexed(ctx context.Context, ids []string) error
	// ClearUnindexed removes the markers of the given ids (unknown or
	// unmarked ids are fine).
	ClearUnindexed(ctx context.Context, ids []string) error
	// ListUnindexed returns up to limit (> 0) marked messages, oldest first
	// (by CreatedAt, Seq), of one resource, or of every resource when
	// resourceID is "". See ValidateUnindexedQuery.
	ListUnindexed(ctx context.Context, resourceID string, limit int) ([]Message, error)

	// Close releases the store's resources.
	Close() error
}

// Scope selects thread- or resource-level data.
type Scope string

// Scopes for working memory and semantic recall.
const (
	ScopeThread   Scope = "thread"
	ScopeResource Scope = "resource"
)

// Direction is a sort direction.
type Direction string

// Sort directions.
const (
	Asc  Direction = "ASC"
	Desc Direction = "DESC"
)

// PerPageAll asks for every row in one page.
const PerPageAll = -1

// ThreadQuery selects threads. Zero values: all resources, page 0, 100 per
// page, ordered by CreatedAt descending.
type ThreadQuery struct {
	ResourceID string
	// Metadata keeps threads whose metadata has every key equal to the given
	// scalar value. Keys match ^[A-Za-z_][A-Za-z0-9_]*$.
	Metadata  map[string]any
	Page      int
	PerPage   int    // 0 means 100; PerPageAll means all
	OrderBy   string // "createdAt" (default) or "updatedAt"
	Direction Direction
}

// ThreadPage is one page of threads.
type ThreadPage struct {
	Threads []Thread
	Total   int
	Page    int
	PerPage int
	HasMore bool
}

// DateRange bounds CreatedAt; nil ends are open, ends are inclusive unless
// marked exclusive.
type DateRange struct {
	Start, End                   *time.Time
	StartExclusive, EndExclusive bool
}

// Cursor is a position in a thread's total order (CreatedAt, Seq).
type Cursor struct {
	CreatedAt time.Time
	Seq       int64
}

// Include asks for a message by id (always returned when it exists) plus up to
// Before earlier and After later messages of its own thread.
type Include struct {
	ID     string
	Before int
	After  int
}

// MessageQuery selects messages of one thread in the order (CreatedAt, Seq).
type MessageQuery struct {
	ThreadID string
	// ResourceID, when set, restricts both listed and included messages to it.
	ResourceID string
	Page       int
	// PerPage: 0 lists nothing (only Include windows come back); PerPageAll lists all.
	PerPage   int
	Direction Direction // selection order of listed messages; "" is Asc
	Range     DateRange
	// Before, when set, lists only messages strictly before the cursor
	// (keyset paging for newest-first history loads).
	Before       *Cursor
	Include      []Include
	IncludeTotal bool
}

// MessagePage is the result of ListMessages.
type MessagePage struct {
	// Messages are the listed messages in the query's Direction.
	Messages []Message
	// Included are the Include windows not already in Messages, chronological.
	Included []Message
	Total    int // set only with IncludeTotal
	HasMore  bool
}

// WorkingMemory is the stored working-memory text of a thread or resource.
type WorkingMemory struct {
	Data      string
	Version   int64
	UpdatedAt time.Time
}

// ResourceMessageQuery selects messages of all threads of one resource in the
// order (CreatedAt, Seq).
type ResourceMessageQuery struct {
	ResourceID string
	// Since, when non-zero, keeps messages with CreatedAt >= Since (inclusive).
	Since time.Time
	// Limit caps the result (required, > 0): the oldest Limit messages with
	// Direction Asc (the default), the newest Limit with Desc.
	Limit     int
	Direction Direction // order of the result; "" is Asc
}

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
	// ObservationLookback before LastObservedAt.
	ObservedMessageIDs []string
	// Version counts writes: 0 for a never-written record.
	Version   int64
	UpdatedAt time.Time
}

// Clone returns a deep copy of r.
func (r ObservationRecord) Clone() ObservationRecord {
	r.ObservedMessageIDs = append([]string(nil), r.ObservedMessageIDs...)
	return r
}

// Observed reports whether a message with the given time and id is covered by
// the record: created more than ObservationLookback before LastObservedAt,
// or listed in ObservedMessageIDs.
func (r ObservationRecord) Observed(createdAt time.Time, id string) bool {
	if r.LastObservedAt.IsZero() {
		return false
	}
	if createdAt.Before(r.LastObservedAt.Add(-ObservationLookback)) {
		return true
	}
	return slices.Contains(r.ObservedMessageIDs, id)
}

// observedSince is the start of the window of messages that may still be
// unobserved; zero when nothing was observed.
func (r ObservationRecord) observedSince() time.Time {
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
	return "", "", Errorf(CodeInvalidArgument, "", "observation key must be thread:<id> or resource:<id>, got %q", key)
}

// CheckObservationWrite validates a PutObservations against the stored
// record cur (already known to be at expectVersion): the generation rule and
// the monotonic LastObservedAt. It reports whether the write is a reflection
// that must archive cur. Stores call it inside their atomic section.
func CheckObservationWrite(cur, rec ObservationRecord) (archive bool, err error) {
	const op = "PutObservations"
	switch rec.Generation {
	case cur.Generation:
	case cur.Generation + 1:
		archive = cur.Version > 0
	default:
		return false, Errorf(CodeInvalidArgument, op, "generation %d follows neither %d nor %d", rec.Generation, cur.Generation, cur.Generation+1)
	}
	if rec.LastObservedAt.Before(cur.LastObservedAt) {
		return false, Errorf(CodeInvalidArgument, op, "lastObservedAt may not move backwards (%s < %s)",
			rec.LastObservedAt.Format(time.RFC3339Nano), cur.LastObservedAt.Format(time.RFC3339Nano))
	}
	if rec.ObservationTokens < 0 {
		return false, Errorf(CodeInvalidArgument, op, "observationTokens must be non-negative")
	}
	return archive, nil
}

// ValidateResourceMessageQuery checks a ListResourceMessages query; stores
// call it first.
func ValidateResourceMessageQuery(q ResourceMessageQuery) error {
	const op = "ListResourceMessages"
	if err := ValidateID("resourceId", q.ResourceID); err != nil {
		err.(*Error).Op = op
		return err
	}
	if q.Limit <= 0 {
		return Errorf(CodeInvalidArgument, op, "limit must be positive")
	}
	switch q.Direction {
	case "", Asc, Desc:
	default:
		return Errorf(CodeInvalidArgument, op, "direction must be ASC or DESC")
	}
	return nil
}

// ValidateUnindexedQuery checks the arguments of ListUnindexed; stores call
// it first. resourceID is "" (every resource) or a valid id.
func ValidateUnindexedQuery(resourceID string, limit int) error {
	const op = "ListUnindexed"
	if resourceID != "" {
		if err := ValidateID("resourceId", resourceID); err != nil {
			err.(*Error).Op = op
			return err
		}
	}
	if limit <= 0 {
		return Errorf(CodeInvalidArgument, op, "limit must be positive")
	}
	return nil
}
