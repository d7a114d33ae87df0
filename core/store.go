package core

import "github.com/agentmem/agentmem/core/store"

// Store is what core.Memory needs of every backend: threads, messages,
// working memory and the trim boundary. The optional capabilities
// (ThreadCreator, Resources, Observations, IndexQueue) are found by type
// assertion; core.New fails fast when a configured feature needs one the
// store lacks. A type with all of today's methods satisfies Store and every
// capability.
type Store = store.Store

// Threads stores conversations.
type Threads = store.Threads

// Messages stores the messages of threads.
type Messages = store.Messages

// WorkingMemories stores the working memory of threads and resources.
type WorkingMemories = store.WorkingMemories

// Boundaries stores the persisted trim boundary of token-budgeted history.
type Boundaries = store.Boundaries

// ThreadCreator is the optional insert-only thread create. Without it,
// Memory checks for the thread and then calls SaveThread, which two
// concurrent creators of one id can both pass.
type ThreadCreator = store.ThreadCreator

// Resources is the optional capability to read and annotate resources.
type Resources = store.Resources

// ResourceLister is the optional capability to list stored resources by id.
type ResourceLister = store.ResourceLister

// ResourceQuery selects a page of resources by id (keyset paging).
type ResourceQuery = store.ResourceQuery

// ResourcePage is one page of resources.
type ResourcePage = store.ResourcePage

// Observations is the capability observational memory needs.
type Observations = store.Observations

// IndexQueue is the capability semantic recall needs to retry failed
// indexing durably, across processes.
type IndexQueue = store.IndexQueue

// Scope selects thread- or resource-level data.
type Scope = store.Scope

// Direction is a sort direction.
type Direction = store.Direction

// ThreadQuery selects threads. Zero values: all resources, page 0, 100 per
// page, ordered by CreatedAt descending.
type ThreadQuery = store.ThreadQuery

// ThreadPage is one page of threads.
type ThreadPage = store.ThreadPage

// DateRange bounds CreatedAt; nil ends are open, ends are inclusive unless
// marked exclusive.
type DateRange = store.DateRange

// Cursor is a position in a thread's total order (CreatedAt, Seq).
type Cursor = store.Cursor

// Include asks for a message by id (always returned when it exists) plus up to
// Before earlier and After later messages of its own thread.
type Include = store.Include

// MessageQuery selects messages of one thread in the order (CreatedAt, Seq).
type MessageQuery = store.MessageQuery

// MessagePage is the result of ListMessages.
type MessagePage = store.MessagePage

// WorkingMemory is the stored working-memory text of a thread or resource.
type WorkingMemory = store.WorkingMemory

// ResourceMessageQuery selects messages of all threads of one resource in the
// order (CreatedAt, Seq).
type ResourceMessageQuery = store.ResourceMessageQuery

// ObservationRecord is the observational-memory state of one thread (key
// "thread:<id>") or resource ("resource:<id>"): the active generation of
// observations and how far the conversation has been observed (see Observed).
type ObservationRecord = store.ObservationRecord

// Thread is one conversation. It belongs to exactly one resource.
type Thread = store.Thread

// Resource is the owner of threads, usually a user or tenant.
type Resource = store.Resource

// Boundary is the per-thread trim boundary: messages at or before it that were
// trimmed by the token budget are excluded from later turns (they stay stored).
type Boundary = store.Boundary

// Constants of package store.
const (
	ScopeThread         = store.ScopeThread
	ScopeResource       = store.ScopeResource
	Asc                 = store.Asc
	Desc                = store.Desc
	PerPageAll          = store.PerPageAll
	MaxResourcePage     = store.MaxResourcePage
	ObservationLookback = store.ObservationLookback
)

// ObservationKey returns the record key of observational memory: "thread:<threadID>"
// in thread scope, "resource:<resourceID>" in resource scope.
func ObservationKey(scope Scope, threadID, resourceID string) string {
	return store.ObservationKey(scope, threadID, resourceID)
}

// ParseObservationKey validates an observation key and returns its scope and
// id; stores call it first.
func ParseObservationKey(key string) (Scope, string, error) { return store.ParseObservationKey(key) }

// CheckObservationWrite validates a PutObservations against the stored
// record cur (already known to be at expectVersion): the generation rule and
// the monotonic LastObservedAt. It reports whether the write is a reflection
// that must archive cur. Stores call it inside their atomic section.
func CheckObservationWrite(cur, rec ObservationRecord) (archive bool, err error) {
	return store.CheckObservationWrite(cur, rec)
}

// MergeBoundary computes the boundary that AdvanceBoundary stores: it never
// moves backwards within one epoch, unions ids at equal timestamps, and a
// candidate of another epoch replaces the old boundary. Stores call it inside
// their atomic section.
func MergeBoundary(old *Boundary, cand Boundary) Boundary { return store.MergeBoundary(old, cand) }

// NormalizeThreadQuery validates q and fills its defaults (PerPage 100,
// OrderBy "createdAt", Direction Desc). Stores call it first.
func NormalizeThreadQuery(q ThreadQuery) (ThreadQuery, error) { return store.NormalizeThreadQuery(q) }

// ValidateMetadataKey checks a metadata filter key.
func ValidateMetadataKey(k string) error { return store.ValidateMetadataKey(k) }

// NormalizeMessageQuery validates q and fills its defaults. Stores call it first.
func NormalizeMessageQuery(q MessageQuery) (MessageQuery, error) {
	return store.NormalizeMessageQuery(q)
}

// ValidateResourceMessageQuery checks a ListResourceMessages query; stores
// call it first.
func ValidateResourceMessageQuery(q ResourceMessageQuery) error {
	return store.ValidateResourceMessageQuery(q)
}

// ValidateUnindexedQuery checks the arguments of ListUnindexed; stores call
// it first. resourceID is "" (every resource) or a valid id.
func ValidateUnindexedQuery(resourceID string, limit int) error {
	return store.ValidateUnindexedQuery(resourceID, limit)
}

// ValidateID checks that an id is a non-blank, valid UTF-8 string without NUL.
func ValidateID(name, id string) error { return store.ValidateID(name, id) }
