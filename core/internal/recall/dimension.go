package recall

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// dimension returns the embedding dimension: Deps.Dimension when set, else
// one probe of the embedder, remembered only when it succeeds.
func (e *Engine) dimension(ctx context.Context) (int, error) {
	if e.d.Vector.SelfEmbedding() {
		return e.d.Dimension, nil
	}
	e.dimMu.Lock()
	defer e.dimMu.Unlock()
	if e.dim > 0 {
		return e.dim, nil
	}
	vecs, err := e.d.Embedder.Embed(ctx, []string{"a"})
	if err != nil || len(vecs) != 1 || len(vecs[0]) == 0 {
		return 0, &memerr.Error{Code: memerr.CodeEmbeddingDimensionFailed, Op: "probe",
			Msg: memerr.ErrEmbeddingDimensionFailed.Msg() + ". Semantic recall cannot select a vector index until the embedder returns a usable embedding.", Err: err}
	}
	e.dim = len(vecs[0])
	return e.dim, nil
}

// embed embeds texts and checks every vector has the expected dimension.
func (e *Engine) embed(ctx context.Context, texts []string) ([][]float32, int, error) {
	dim, err := e.dimension(ctx)
	if err != nil {
		return nil, 0, err
	}
	if e.d.Vector.SelfEmbedding() {
		return nil, dim, nil
	}
	vecs, err := e.d.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, 0, &memerr.Error{Code: memerr.CodeVector, Op: "embed", Msg: "embedder failed", Err: err}
	}
	if len(vecs) != len(texts) {
		return nil, 0, memerr.Errorf(memerr.CodeVector, "embed", "embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for _, v := range vecs {
		if len(v) != dim {
			return nil, 0, memerr.Errorf(memerr.CodeEmbeddingDimensionMismatch, "embed",
				"embedder returned %d dimensions but the index %s expects %d", len(v), vector.IndexName(dim), dim)
		}
	}
	return vecs, dim, nil
}

// ensureIndex creates the index of dim once per process.
func (e *Engine) ensureIndex(ctx context.Context, rs *Settings, dim int) (string, error) {
	name := vector.IndexName(dim)
	if ensured, _ := e.indexes.Load(name); ensured == true {
		return name, nil
	}
	spec := vector.IndexSpec{Name: name, Dimension: dim, Config: rs.IndexConfig, Version: e.d.Recipe.Version}
	if err := e.d.Vector.EnsureIndex(ctx, spec); err != nil {
		return "", &memerr.Error{Code: memerr.CodeVector, Op: "EnsureIndex", Msg: "cannot create index " + name, Err: err}
	}
	e.indexes.Store(name, true)
	return name, nil
}

// otherIndexes returns the message indexes of the vector store named for
// another dimension than name (vector.IndexDimension), listed once per
// process (vector.IndexLister; a store without it lists none). They join
// e.indexes, so that deleting messages deletes their vectors there too.
func (e *Engine) otherIndexes(ctx context.Context, name string) ([]string, error) {
	l, ok := e.d.Vector.(vector.IndexLister)
	if !ok || e.d.Vector.SelfEmbedding() {
		return nil, nil
	}
	e.dimMu.Lock()
	defer e.dimMu.Unlock()
	if e.others != nil {
		return *e.others, nil
	}
	names, err := l.IndexNames(ctx)
	if err != nil {
		return nil, &memerr.Error{Code: memerr.CodeVector, Op: "IndexNames", Msg: "listing the vector indexes failed", Err: err}
	}
	others := slices.DeleteFunc(names, func(n string) bool {
		_, ok := vector.IndexDimension(n)
		return !ok || n == name
	})
	for _, n := range others {
		e.indexes.LoadOrStore(n, false)
	}
	e.others = &others
	return others, nil
}

// staleIndexes returns the indexes of another dimension than name's that
// hold records of resourceID. A resource found without any is remembered
// (this process writes only name).
func (e *Engine) staleIndexes(ctx context.Context, name, resourceID string) ([]string, error) {
	if _, ok := e.dimClean.Load(resourceID); ok {
		return nil, nil
	}
	others, err := e.otherIndexes(ctx, name)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, other := range others {
		dim, _ := vector.IndexDimension(other)
		probe := make([]float32, dim)
		probe[0] = 1
		hits, err := e.d.Vector.Query(ctx, other, vector.Query{Vector: probe, TopK: 1, Filter: vector.Filter{ResourceID: resourceID}})
		if err != nil && !errors.Is(err, memerr.ErrIndexVersionMismatch) {
			return nil, &memerr.Error{Code: memerr.CodeVector, Op: "Query", Msg: "reading index " + other, Err: err}
		}
		if err != nil || len(hits) > 0 {
			stale = append(stale, other)
		}
	}
	if len(stale) == 0 {
		e.dimClean.Store(resourceID, true)
	}
	return stale, nil
}

// checkDimension fails with ErrEmbeddingDimensionMismatch when resourceID
// has records in an index of another dimension than name's: the embedder
// changed, and recall would miss every message indexed before.
func (e *Engine) checkDimension(ctx context.Context, name, resourceID string) error {
	stale, err := e.staleIndexes(ctx, name, resourceID)
	if err != nil || len(stale) == 0 {
		return err
	}
	have, _ := vector.IndexDimension(stale[0])
	want, _ := vector.IndexDimension(name)
	return &memerr.Error{Code: memerr.CodeEmbeddingDimensionMismatch, Op: "semantic recall", Msg: fmt.Sprintf(
		"resource %q has messages indexed under %s (dimension %d), but the embedder makes %d dimensions (index %s), so recall would miss them; "+
			"reindex the resource with this embedder (ReindexResource, or agentmem --write reindex) to move them to %s, or configure the embedder of dimension %d",
		resourceID, stale[0], have, want, name, name, have)}
}

// CheckIndex fails with ErrEmbeddingDimensionMismatch when resourceID
// ("" = every resource of s) has messages indexed under another dimension
// than the embedder's; a self-embedding store has one index and passes.
func (e *Engine) CheckIndex(ctx context.Context, s *store.Checked, resourceID string) error {
	if e.d.Vector == nil || e.d.Vector.SelfEmbedding() {
		return nil
	}
	dim, err := e.dimension(ctx)
	if err != nil {
		return err
	}
	resources := []string{resourceID}
	if resourceID == "" {
		if resources, err = storedResources(ctx, s); err != nil {
			return err
		}
	}
	for _, res := range resources {
		if err := e.checkDimension(ctx, vector.IndexName(dim), res); err != nil {
			return err
		}
	}
	return nil
}

// storedResources returns the resources of the stored threads.
func storedResources(ctx context.Context, s *store.Checked) ([]string, error) {
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
func (e *Engine) migrateDimension(ctx context.Context, s *store.Checked, resourceID string) error {
	if e.d.Vector.SelfEmbedding() {
		return nil
	}
	dim, err := e.dimension(ctx)
	if err != nil {
		return err
	}
	stale, err := e.staleIndexes(ctx, vector.IndexName(dim), resourceID)
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
	e.clean.Marked(map[string]string{"": resourceID}) // the resource has markers now
	for _, other := range stale {
		if err := e.d.Vector.Delete(ctx, other, vector.Filter{ResourceID: resourceID}); err != nil {
			return &memerr.Error{Code: memerr.CodeVector, Op: "Delete", Msg: "deleting the records of index " + other, Err: err}
		}
	}
	e.dimClean.Store(resourceID, true)
	return nil
}
