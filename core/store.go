package core

import (
	"context"
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
