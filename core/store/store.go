// Package store is the storage contract of agentmem: the role interfaces a
// backend implements (Threads, Messages, WorkingMemories, Boundaries, and the
// optional capabilities ThreadCreator, Resources, Observations, IndexQueue,
// WindowReader, BulkSaver and JointSaver), the records they exchange, and
// pure helpers drivers share (query normalisation, boundary merge, paging
// window, metadata merge).
//
// Applications do not call a Store directly: core.New wraps it in a checked
// store that validates and normalises every call once, sets the operation
// name on errors and classifies failures, and storetest.Run drives a backend
// through that same wrapper. Drivers therefore keep only what is atomic and
// database-specific. Backends: memstore, sqlite, postgres (subpackages).
//
// Every method of every interface here must be safe for concurrent use,
// honour ctx (an ended context returns memerr.CodeCanceled or
// CodeDeadlineExceeded and writes nothing), and enforce its cross-request
// invariants (ownership, boundary monotonicity, working-memory versions,
// atomic batches) in the backend itself, so that several processes can share
// it. Errors are *memerr.Error values (see memerr.WrapStorage).
//
//	import "github.com/agentmem/agentmem/core/store"
package store

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/core/message"
)

// Store is what core.Memory needs of every backend: threads, messages,
// working memory and the trim boundary. The optional capabilities
// (ThreadCreator, Resources, Observations, IndexQueue) are found by type
// assertion; core.New fails fast when a configured feature needs one the
// store lacks. A type with all of today's methods satisfies Store and every
// capability.
type Store interface {
	Threads
	Messages
	WorkingMemories
	Boundaries
	// Close releases the store's resources.
	Close() error
}

// Threads stores conversations.
type Threads interface {
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
}

// Messages stores the messages of threads.
type Messages interface {
	// SaveMessages upserts messages atomically: all or none. Every message has
	// an ID, ThreadID, ResourceID and CreatedAt; its thread exists and belongs
	// to ResourceID (else ErrThreadNotFound / ErrResourceMismatch). An upsert
	// never changes CreatedAt or Seq; it may move a message to another thread
	// of the same resource, but never take over a message id of another
	// resource (ErrResourceMismatch).
	// The UpdatedAt of every touched thread is bumped. Returned messages carry
	// their stored CreatedAt and Seq. As with io.Writer's p, SaveMessages
	// must not modify msgs, and should not keep the slice after it returns.
	SaveMessages(ctx context.Context, msgs []message.Message) ([]message.Message, error)
	// ListMessages selects messages of one thread; see MessageQuery.
	ListMessages(ctx context.Context, q MessageQuery) (MessagePage, error)
	// GetMessages returns the messages with the given ids, chronologically;
	// unknown ids are skipped.
	GetMessages(ctx context.Context, ids []string) ([]message.Message, error)
	// DeleteMessages deletes messages by id (unknown ids are fine) and bumps
	// the UpdatedAt of their threads.
	DeleteMessages(ctx context.Context, ids []string) error
}

// WorkingMemories stores the working memory of threads and resources.
type WorkingMemories interface {
	// GetWorkingMemory returns the working memory of a thread or resource; a
	// never-written one has Version 0. Thread scope: ErrThreadNotFound if missing.
	GetWorkingMemory(ctx context.Context, scope Scope, id string) (WorkingMemory, error)
	// PutWorkingMemory stores data if the current version equals expectVersion
	// (else ErrConflict) and returns the new version. Resource scope creates the
	// resource; thread scope needs the thread.
	PutWorkingMemory(ctx context.Context, scope Scope, id, data string, expectVersion int64) (WorkingMemory, error)
}

// Boundaries stores the persisted trim boundary of token-budgeted history.
type Boundaries interface {
	// AdvanceBoundary atomically merges cand into the thread's boundary with
	// MergeBoundary and returns what is stored. It fails with ErrThreadNotFound
	// or ErrResourceMismatch (writing nothing) when the thread is missing or is
	// not owned by resourceID. Title and metadata are untouched.
	AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand Boundary) (Boundary, error)
}

// ThreadCreator is the optional insert-only thread create. Without it,
// Memory checks for the thread and then calls SaveThread, which two
// concurrent creators of one id can both pass.
type ThreadCreator interface {
	// CreateThread inserts t and fails with ErrThreadExists, writing
	// nothing, when a thread with its id exists (of any resource).
	CreateThread(ctx context.Context, t Thread) (Thread, error)
}

// Resources is the optional capability to read and annotate resources.
type Resources interface {
	// GetResource returns the resource or ErrNotFound.
	GetResource(ctx context.Context, id string) (Resource, error)
	// UpdateResource creates the resource if missing and shallow-merges metadata.
	UpdateResource(ctx context.Context, id string, metadata map[string]any) (Resource, error)
}

// ResourceLister is the optional capability to list the stored resources:
// those with a row of their own (working memory, metadata or resource-scoped
// observations were written), ascending by id, in keyset pages. A resource
// that only owns threads has no row; ListThreads finds those.
type ResourceLister interface {
	// ListResources returns up to q.PerPage resources with ids after q.After.
	ListResources(ctx context.Context, q ResourceQuery) (ResourcePage, error)
}

// Observations is the capability observational memory needs.
type Observations interface {
	// ListResourceMessages lists the messages of every thread of a resource
	// (observational memory in resource scope); see ResourceMessageQuery.
	ListResourceMessages(ctx context.Context, q ResourceMessageQuery) ([]message.Message, error)
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
	// ClearObservations empties the record under key in one atomic write: its
	// observations, buffer, cursor and archived generations go, and the
	// stored record keeps Version one past the cleared one, so a
	// compare-and-set against the cleared record fails and no version is
	// reused. A never-written record is returned as is, nothing written. A
	// thread key needs its thread (ErrThreadNotFound).
	ClearObservations(ctx context.Context, key string) (ObservationRecord, error)
}

// IndexQueue is the capability semantic recall needs to retry failed
// indexing durably, across processes.
type IndexQueue interface {
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
	ListUnindexed(ctx context.Context, resourceID string, limit int) ([]message.Message, error)
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
	OrderBy   string // "createdAt" (default) or "updatedAt"; ties by id, as bytes
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

// ResourceQuery selects a page of resources by id: those after After
// (exclusive; "" starts at the first), at most PerPage (0 means 100, the most
// is MaxResourcePage).
type ResourceQuery struct {
	After   string
	PerPage int
}

// MaxResourcePage is the largest ResourceQuery.PerPage.
const MaxResourcePage = 1000

// ResourcePage is one page of resources; HasMore says a next page exists
// (ask with After set to the last id).
type ResourcePage struct {
	Resources []Resource
	HasMore   bool
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
	// Metadata keeps the listed messages (and Total) whose Content.Metadata
	// matches; Include windows are not filtered. The zero Filter keeps all.
	Metadata message.Filter
	// ExcludeIDs leaves the messages with these ids out of the listed
	// messages (and Total); Include windows are not filtered.
	ExcludeIDs []string
}

// MessagePage is the result of ListMessages.
type MessagePage struct {
	// Messages are the listed messages in the query's Direction.
	Messages []message.Message
	// Included are the Include windows not already in Messages, chronological.
	Included []message.Message
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
	// Until, when non-zero, keeps messages with CreatedAt < Until (exclusive).
	Until time.Time
	// Limit caps the result (required, > 0): the oldest Limit messages with
	// Direction Asc (the default), the newest Limit with Desc.
	Limit     int
	Direction Direction // order of the result; "" is Asc
	// ExcludeIDs leaves the messages with these ids out (before Limit).
	ExcludeIDs []string
}
