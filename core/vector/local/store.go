// Package local is an in-process vector.Store: exact (brute-force) cosine
// search, a real BM25 over the record texts of each resource, and Weaviate-style
// hybrid search (relativeScoreFusion). It is goroutine-safe and isolates
// resources: every resource is its own partition, so a query never sees
// another resource's records and BM25 statistics are per resource.
//
// New keeps everything in memory; Open additionally persists the store to one
// file (for instance next to the SQLite database), rewritten atomically (temp
// file + rename) after every Upsert and Delete; OpenBuffered rewrites it only
// on Flush and Close.
//
// Vectors are held as int8 codes with a scale each (quant.go). A resource
// with fewer than Options.ApproximateFrom records is searched exactly; from
// there on through an HNSW graph (graph.go) with one node per distinct
// vector (copies of a vector share a node, nodes.go). A write that leaves
// a resource's graph missing or lagging by more than a few hundred records
// brings it up to date before it returns (a bulk load, a reindex or an
// import leaves no stretch of exact scans behind it); otherwise searches
// extend it. A graph an opened file lacks (one saved without it) is built in
// the background while searches scan exactly, or at once by BuildGraphs.
// Builds and extensions use every core (Options.GraphWorkers), and the graph
// they make does not depend on how many.
// Each graph calibrates its search width to its data (recall@10 ≥
// 0.95 of exact on a sample; where that would cost about a scan, the
// resource scans exactly, one similarity per distinct vector); the file
// keeps a resource's graph and its width when it has no deleted records.
// BM25 walks per-term posting lists of dense slot numbers, the terms that
// can score highest first, and stops before the lists that can no longer
// change the top hits (bm25.go). The vector codes and the graph's bottom
// layer of large resources are kept outside the Go heap (offheap.go).
//
// HashEmbedder is an offline lexical embedder to pair it with in development.
package local

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/agentmem/agentmem/core/vector"
)

// DefaultTopK is the number of hits a query with TopK <= 0 returns.
const DefaultTopK = 10

// Store is the in-process vector store. The zero value is not usable; call New
// or Open.
type Store struct {
	mu      sync.RWMutex
	path    string // "" = in memory only
	lazy    bool   // save only on Flush and Close
	dirty   bool   // state not yet saved to path
	closed  bool
	approx  int // Options.ApproximateFrom, resolved
	indexes map[string]*index
	// inlineMax: a missing graph of a partition up to this size is built by
	// the search that needs it; a larger one in the background (builds).
	inlineMax int
	// indexOnWrite: Upsert brings the graphs of the resources it wrote up
	// to date before it returns (indexWritten); off, only searches and
	// BuildGraphs do.
	indexOnWrite bool
	builds       sync.WaitGroup
	done         chan struct{} // closed by Close: background builds stop
	progress     func(BuildProgress)
	workers      int // Options.GraphWorkers
}

// Options tunes a Store. The zero value is the default.
type Options struct {
	// ApproximateFrom is the number of records of a resource from which its
	// vector search uses the approximate (HNSW) index: 0 means
	// DefaultApproximateFrom, a negative value always searches exactly.
	ApproximateFrom int
	// Progress, if set, receives reports of HNSW graph builds, every 256
	// insertions of a new graph (1,024 of an extension) and at the end of
	// each, from the goroutine building
	// (an Upsert's, BuildGraphs', or a background one): a command shows a
	// bulk load's progress with it. It must be quick and safe for
	// concurrent use, and must not call the store.
	Progress func(BuildProgress)
	// GraphWorkers is the number of goroutines that insert into an HNSW
	// graph being built or extended: below 1 (the default) means
	// runtime.GOMAXPROCS at the time of the build, 1 a serial build. The
	// graph built is the same for every value.
	GraphWorkers int
}

// BuildProgress reports a graph build: Done of Total insertions into the
// graph of one resource (a new graph inserts each distinct vector, an
// extension each new record).
type BuildProgress struct {
	Index, Resource string
	Done, Total     int
}

var _ vector.Store = (*Store)(nil)

// New returns an empty store that lives in memory only.
func New() *Store { return NewWithOptions(Options{}) }

// NewWithOptions is New with o.
func NewWithOptions(o Options) *Store {
	approx := o.ApproximateFrom
	if approx == 0 {
		approx = DefaultApproximateFrom
	}
	return &Store{indexes: map[string]*index{}, approx: approx, inlineMax: inlineGraphMax, indexOnWrite: true,
		done: make(chan struct{}), progress: o.Progress, workers: o.GraphWorkers}
}

// Open returns a store persisted to the file at path, loading it when it
// exists. Every Upsert and Delete rewrites the file atomically; Close flushes.
func Open(path string) (*Store, error) { return OpenWithOptions(path, Options{}) }

// OpenWithOptions is Open with o.
func OpenWithOptions(path string, o Options) (*Store, error) {
	s := NewWithOptions(o)
	s.path = path
	if err := s.load(); err != nil {
		return nil, vector.Fail("local.Open", "load "+path, err)
	}
	return s, nil
}

// OpenBuffered is Open, except that the file is written only by Flush and
// Close: writes are cheaper, and a crash loses the changes since the last
// Flush (storage is the source of truth; core.Memory can reindex).
func OpenBuffered(path string) (*Store, error) {
	s, err := Open(path)
	if s != nil {
		s.lazy = true
	}
	return s, err
}

// SelfEmbedding reports false: records and queries carry vectors.
func (s *Store) SelfEmbedding() bool { return false }

// SearchModes lists the supported VectorQuery modes.
func (s *Store) SearchModes() []string {
	return []string{vector.SearchVector, vector.SearchBM25, vector.SearchHybrid}
}

// EnsureIndex creates the index if missing. An existing index keeps its
// records; a different non-zero dimension is an error. spec.Version becomes
// the index's version in this store (see vector.IndexSpec.Version).
func (s *Store) EnsureIndex(ctx context.Context, spec vector.IndexSpec) error {
	const op = "EnsureIndex"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed(op)
	}
	if ix, ok := s.indexes[spec.Name]; ok {
		if spec.Dimension != 0 && ix.dim != 0 && ix.dim != spec.Dimension {
			return vector.DimensionError("local."+op, spec.Name, ix.dim, spec.Dimension)
		}
		if ix.dim == 0 {
			ix.dim = spec.Dimension
		}
		ix.version = spec.Version
		return nil
	}
	ix := newIndex(spec.Dimension, s.approx)
	ix.version = spec.Version
	s.indexes[spec.Name] = ix
	return s.saveLocked(op)
}

// IndexNames implements vector.IndexLister.
func (s *Store) IndexNames(context.Context) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed("IndexNames")
	}
	return slices.Collect(maps.Keys(s.indexes)), nil
}

// Upsert inserts or replaces records by ID within their resource. All
// records are validated first: either all are written or none. It returns
// once the graphs of the resources written are up to date (see
// indexWritten); when ctx is done before, it stops building and returns an
// error wrapping ctx's: the records are written, and searched exactly
// where the graph lacks them until a later write or search completes it.
func (s *Store) Upsert(ctx context.Context, name string, recs []vector.Record) error {
	if err := ctx.Err(); err != nil {
		return vector.Fail("local.Upsert", "nothing written", err)
	}
	resources, err := s.upsert(name, recs)
	if err == nil && s.indexOnWrite {
		if err := s.indexWritten(ctx, name, resources); err != nil {
			return vector.Fail("local.Upsert", "records written; building their search graph stopped", err)
		}
	}
	return err
}

// upsert is Upsert under the write lock; it returns the resources written.
func (s *Store) upsert(name string, recs []vector.Record) ([]string, error) {
	const op = "Upsert"
	s.mu.Lock()
	defer s.mu.Unlock()
	ix, err := s.indexLocked(op, name)
	if err != nil {
		return nil, err
	}
	dim := ix.dim
	for _, r := range recs { // ids, resources and vectors are checked by vector.Checked
		if dim != 0 && len(r.Vector) != dim {
			return nil, vector.DimensionError("local."+op, name, dim, len(r.Vector))
		}
		dim = len(r.Vector)
		if p := ix.parts[r.Meta.ResourceID]; p != nil && p.version != ix.version {
			return nil, vector.VersionError("local."+op, "index "+name, r.Meta.ResourceID, p.version, ix.version)
		}
	}
	if len(recs) == 0 {
		return nil, nil
	}
	ix.dim = dim
	var resources []string
	for _, r := range recs {
		p := ix.part(r.Meta.ResourceID)
		p.version = ix.version
		p.put(r)
		if !slices.Contains(resources, r.Meta.ResourceID) {
			resources = append(resources, r.Meta.ResourceID)
		}
	}
	return resources, s.saveLocked(op)
}

// Delete removes the records of f.ResourceID, narrowed to f.ThreadID and/or
// f.MessageIDs when set. Unknown ids and indexes are no error.
func (s *Store) Delete(ctx context.Context, name string, f vector.Filter) error {
	const op = "Delete"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed(op)
	}
	ix := s.indexes[name]
	if ix == nil || ix.parts[f.ResourceID] == nil {
		return nil
	}
	p := ix.parts[f.ResourceID]
	if f.ThreadID == "" && len(f.MessageIDs) == 0 {
		delete(ix.parts, f.ResourceID)
		return s.saveLocked(op)
	}
	var ids map[string]bool
	if len(f.MessageIDs) > 0 {
		ids = make(map[string]bool, len(f.MessageIDs))
		for _, id := range f.MessageIDs {
			ids[id] = true
		}
	}
	n := 0
	var gone []string
	for id, sl := range p.ids {
		if (f.ThreadID == "" || p.tnames[p.thr[sl]] == f.ThreadID) && (ids == nil || ids[p.messageID(sl)]) {
			gone = append(gone, id)
		}
	}
	for _, id := range gone { // not while ranging over p.ids: remove may compact
		p.remove(id)
		n++
	}
	if p.live() == 0 {
		delete(ix.parts, f.ResourceID)
	}
	if n == 0 {
		return nil
	}
	return s.saveLocked(op)
}

// Flush writes the store to its file now if it has unsaved changes (always
// the case for OpenBuffered after a write; for Open only after a failed save).
// It is a no-op for stores from New.
func (s *Store) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushLocked("Flush")
}

// Close flushes the store; later calls other than Close fail.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	err := s.flushLocked("Close")
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	s.builds.Wait() // they stop at the next step and install nothing
	return err
}

func (s *Store) indexLocked(op, name string) (*index, error) {
	if s.closed {
		return nil, errClosed(op)
	}
	ix := s.indexes[name]
	if ix == nil {
		return nil, vector.Fail("local."+op, "index "+name+" does not exist (call EnsureIndex)", nil)
	}
	return ix, nil
}
