package core

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/core/memerr"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/core/internal/recall"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// Analyzer returns the text analyzer of semantic recall (SemanticRecall.Language):
// a direct vector.Store query matches the index's keywords when its Keywords
// are Analyzer().Analyze(text).
func (m *Memory) Analyzer() *analysis.Analyzer { return m.rec.Analyzer() }

// CheckIndex reports whether semantic recall can use the index of the
// configured embedder for resourceID ("" = every resource): it returns
// ErrEmbeddingDimensionMismatch, naming both dimensions and the repair,
// when a resource has messages indexed under another dimension (the
// embedder changed; writes and recall of the resource fail so until it is
// reindexed), and nil when semantic recall is off or the store cannot list
// its indexes (vector.IndexLister).
func (m *Memory) CheckIndex(ctx context.Context, resourceID string) error {
	s, err := m.entry.open(ctx, "CheckIndex")
	if err != nil {
		return err
	}
	st, err := m.conf.settings(nil)
	if err != nil || st.recall == nil {
		return err
	}
	return m.rec.CheckIndex(ctx, s, resourceID)
}

// Unindexed reports how many messages of a resource ("" = every resource)
// wait for an indexing retry: those recorded in the store, plus those this
// process could not record. It lists the recorded messages, so it is meant
// for monitoring and tests.
func (m *Memory) Unindexed(ctx context.Context, resourceID string) (int, error) {
	s, err := m.entry.open(ctx, "Unindexed")
	if err != nil {
		return 0, err
	}
	return m.rec.Unindexed(ctx, s, resourceID)
}

// ReindexResource rebuilds the semantic-recall vectors of every thread of a
// resource from storage: it retries the resource's recorded unindexed
// messages first, then reindexes each thread (see Reindex). When the
// resource's records were written with another index version (another
// analyzer or IndexText, ErrIndexVersionMismatch), it first deletes them all,
// so the rebuilt records are never mixed with stale ones. When they are in
// the index of another embedding dimension (the embedder changed,
// ErrEmbeddingDimensionMismatch), it first records the resource's messages as
// unindexed and deletes those records: the reindex moves the resource into
// the index of the configured embedder.
func (m *Memory) ReindexResource(ctx context.Context, resourceID string) (err error) {
	ctx, sp := m.spans.startOp(ctx, "ReindexResource", "", resourceID, "")
	defer func() { err = sp.End(err) }()
	if err := store.ValidateID("resourceId", resourceID); err != nil {
		return err
	}
	s, err := m.entry.open(ctx, "ReindexResource")
	if err != nil {
		return err
	}
	st, err := m.conf.settings(nil)
	if err != nil || st.recall == nil {
		return err
	}
	return indexFailure(m.rec.ReindexResource(ctx, s, st.write(), resourceID))
}

// Reindex rebuilds the semantic-recall vectors of one thread from storage.
// It first retries the recorded unindexed messages of the thread's resource
// (see Unindexed), and clears the markers of every message it indexes. When
// the resource's records have another index version (ErrIndexVersionMismatch),
// it rebuilds the whole resource (see ReindexResource).
func (m *Memory) Reindex(ctx context.Context, threadID string) (err error) {
	ctx, sp := m.spans.startOp(ctx, "Reindex", threadID, "", "")
	defer func() { err = sp.End(err) }()
	s, err := m.entry.openThread(ctx, "Reindex", threadID)
	if err != nil {
		return err
	}
	st, err := m.conf.settings(nil)
	if err != nil || st.recall == nil {
		return err
	}
	th, err := s.GetThread(ctx, threadID)
	if errors.Is(err, memerr.ErrThreadNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	err = indexFailure(m.rec.ReindexThread(ctx, s, st.write(), th))
	var f *IndexFailure
	if !errors.As(err, &f) && (errors.Is(err, memerr.ErrIndexVersionMismatch) || errors.Is(err, memerr.ErrEmbeddingDimensionMismatch)) {
		// The version and the dimension are the resource's: rebuild all of it.
		return m.ReindexResource(ctx, th.ResourceID)
	}
	return err
}

// IndexFailure reports the messages that Reindex (or ReindexResource) could
// not index because the embedder or the vector store refused them; the
// others were indexed. They stay recorded as unindexed (Unindexed counts
// them) and the next Reindex tries them again; a message refused while
// others of its batch were indexed is not retried by later writes. Err is
// the last refusal (errors.Is(err, ErrVector) holds).
type IndexFailure struct {
	MessageIDs []string
	Err        error
}

// indexFailure returns the engine's report of refused messages as an
// *IndexFailure, and any other err as it is.
func indexFailure(err error) error {
	var r *recall.Refused
	if !errors.As(err, &r) {
		return err
	}
	return &IndexFailure{MessageIDs: r.MessageIDs, Err: r.Err}
}

func (f *IndexFailure) Error() string {
	ids := f.MessageIDs
	more := ""
	if len(ids) > 10 {
		ids, more = ids[:10], fmt.Sprintf(" and %d more", len(f.MessageIDs)-10)
	}
	return fmt.Sprintf("agentmem: %d messages could not be indexed for semantic recall (%s%s); they stay recorded as unindexed: %v",
		len(f.MessageIDs), strings.Join(ids, ", "), more, f.Err)
}

func (f *IndexFailure) Unwrap() error { return f.Err }

// Merge adds the messages of err to f when err is an *IndexFailure (then
// it returns nil), and returns any other err as it is: a loop of Reindex
// calls goes on past refused messages and reports them all at the end
// (Result).
func (f *IndexFailure) Merge(err error) error {
	var other *IndexFailure
	if !errors.As(err, &other) {
		return err
	}
	for _, id := range other.MessageIDs {
		if !slices.Contains(f.MessageIDs, id) {
			f.MessageIDs = append(f.MessageIDs, id)
		}
	}
	f.Err = other.Err
	return nil
}

// Result returns f as an error, nil when no message failed.
func (f *IndexFailure) Result() error {
	if len(f.MessageIDs) == 0 {
		return nil
	}
	return f
}
