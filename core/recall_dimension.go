package core

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// otherIndexes returns the message indexes of the vector store named for
// another dimension than name (vector.IndexDimension), listed once per
// process (vector.IndexLister; a store without it lists none). They join
// m.indexes, so that deleting messages deletes their vectors there too.
func (m *Memory) otherIndexes(ctx context.Context, name string) ([]string, error) {
	l, ok := m.opts.Vector.(vector.IndexLister)
	if !ok || m.opts.Vector.SelfEmbedding() {
		return nil, nil
	}
	m.dimMu.Lock()
	defer m.dimMu.Unlock()
	if m.others != nil {
		return *m.others, nil
	}
	names, err := l.IndexNames(ctx)
	if err != nil {
		return nil, &Error{Code: CodeVector, Op: "IndexNames", Msg: "listing the vector indexes failed", Err: err}
	}
	others := slices.DeleteFunc(names, func(n string) bool {
		_, ok := vector.IndexDimension(n)
		return !ok || n == name
	})
	for _, n := range others {
		m.indexes.LoadOrStore(n, false)
	}
	m.others = &others
	return others, nil
}

// staleIndexes returns the indexes of another dimension than name's that
// hold records of resourceID. A resource found without any is remembered
// (this process writes only name).
func (m *Memory) staleIndexes(ctx context.Context, name, resourceID string) ([]string, error) {
	if _, ok := m.dimClean.Load(resourceID); ok {
		return nil, nil
	}
	others, err := m.otherIndexes(ctx, name)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, other := range others {
		dim, _ := vector.IndexDimension(other)
		probe := make([]float32, dim)
		probe[0] = 1
		hits, err := m.opts.Vector.Query(ctx, other, vector.Query{Vector: probe, TopK: 1, Filter: vector.Filter{ResourceID: resourceID}})
		if err != nil && !errors.Is(err, ErrIndexVersionMismatch) {
			return nil, &Error{Code: CodeVector, Op: "Query", Msg: "reading index " + other, Err: err}
		}
		if err != nil || len(hits) > 0 {
			stale = append(stale, other)
		}
	}
	if len(stale) == 0 {
		m.dimClean.Store(resourceID, true)
	}
	return stale, nil
}

// checkDimension fails with ErrEmbeddingDimensionMismatch when resourceID
// has records in an index of another dimension than name's: the embedder
// changed, and recall would miss every message indexed before.
func (m *Memory) checkDimension(ctx context.Context, name, resourceID string) error {
	stale, err := m.staleIndexes(ctx, name, resourceID)
	if err != nil || len(stale) == 0 {
		return err
	}
	have, _ := vector.IndexDimension(stale[0])
	want, _ := vector.IndexDimension(name)
	return &Error{Code: CodeEmbeddingDimensionMismatch, Op: "semantic recall", Msg: fmt.Sprintf(
		"resource %q has messages indexed under %s (dimension %d), but the embedder makes %d dimensions (index %s), so recall would miss them; "+
			"reindex the resource with this embedder (ReindexResource, or agentmem --write reindex) to move them to %s, or configure the embedder of dimension %d",
		resourceID, stale[0], have, want, name, name, have)}
}

// CheckIndex reports whether semantic recall can use the index of the
// configured embedder for resourceID ("" = every resource): it returns
// ErrEmbeddingDimensionMismatch, naming both dimensions and the repair,
// when a resource has messages indexed under another dimension (the
// embedder changed; writes and recall of the resource fail so until it is
// reindexed), and nil when semantic recall is off or the store cannot list
// its indexes (vector.IndexLister).
func (m *Memory) CheckIndex(ctx context.Context, resourceID string) error {
	s, err := m.open(ctx, "CheckIndex")
	if err != nil {
		return err
	}
	st, err := m.settings(nil)
	if err != nil || st.recall == nil || m.opts.Vector == nil || m.opts.Vector.SelfEmbedding() {
		return err
	}
	dim, err := m.dimension(ctx)
	if err != nil {
		return err
	}
	resources := []string{resourceID}
	if resourceID == "" {
		if resources, err = m.resources(ctx, s); err != nil {
			return err
		}
	}
	for _, res := range resources {
		if err := m.checkDimension(ctx, vector.IndexName(dim), res); err != nil {
			return err
		}
	}
	return nil
}

// resources returns the resources of the stored threads.
func (m *Memory) resources(ctx context.Context, s *store.Checked) ([]string, error) {
	page, err := s.ListThreads(ctx, store.ThreadQuery{PerPage: store.PerPageAll})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, th := range page.Threads {
		if !slices.Contains(out, th.ResourceID) {
			out = append(out, th.ResourceID)
		}
	}
	return out, nil
}

// migrateDimension prepares the reindex of a resource indexed under another
// dimension: it records every message of the resource as unindexed (so that
// a reindex cut short leaves them to the retries, not forgotten), then
// deletes the resource's records from the other indexes.
func (m *Memory) migrateDimension(ctx context.Context, s *store.Checked, resourceID string) error {
	if m.opts.Vector.SelfEmbedding() {
		return nil
	}
	dim, err := m.dimension(ctx)
	if err != nil {
		return err
	}
	stale, err := m.staleIndexes(ctx, vector.IndexName(dim), resourceID)
	if err != nil || len(stale) == 0 {
		return err
	}
	page, err := s.ListThreads(ctx, store.ThreadQuery{ResourceID: resourceID, PerPage: store.PerPageAll})
	if err != nil {
		return err
	}
	for _, th := range page.Threads {
		if err := s.MarkThreadUnindexed(ctx, th.ID); err != nil {
			return err
		}
	}
	m.clean.Marked(map[string]string{"": resourceID}) // the resource has markers now
	for _, other := range stale {
		if err := m.opts.Vector.Delete(ctx, other, vector.Filter{ResourceID: resourceID}); err != nil {
			return &Error{Code: CodeVector, Op: "Delete", Msg: "deleting the records of index " + other, Err: err}
		}
	}
	m.dimClean.Store(resourceID, true)
	return nil
}
