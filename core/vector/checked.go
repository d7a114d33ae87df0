package vector

import (
	"context"
	"math"
	"strconv"
	"sync"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// Checked is the one place every vector Store call passes through, as
// store.Checked is for message stores: it refuses a nil or ended context
// before the driver runs, checks arguments (ids, resource ids, search modes,
// query and record vectors and their dimensions, metadata filters) and
// classifies failures (an ended context first, then the driver's
// *memerr.Error, then memerr.CodeVector). core.Memory wraps its vector store
// in it and vectortest drives every driver through it, so that drivers check
// only what their backend adds (for instance the dimension of an index they
// persisted) and every driver refuses the same bad input with the same error.
//
// Checked implements the optional capabilities, falling back to what a
// driver without them means: SearchModes lists SearchVector alone,
// UpsertBulk is Upsert, IndexNames lists no index, Database is nil (and
// UpsertStatements fails with memerr.ErrUnsupported). It is safe for
// concurrent use.
type Checked struct {
	raw    Store
	self   bool
	modes  ModeLister
	bulk   BulkLoader
	lister IndexLister
	stmts  StatementWriter
	// dims holds the dimension of every index EnsureIndex named with one,
	// so that a vector of another length is refused before the driver runs.
	dims sync.Map // index name → int
}

var _ interface {
	Store
	ModeLister
	BulkLoader
	IndexLister
	StatementWriter
} = (*Checked)(nil)

// Check wraps s; a *Checked is returned as it is.
func Check(s Store) *Checked {
	if c, ok := s.(*Checked); ok {
		return c
	}
	c := &Checked{raw: s, self: s.SelfEmbedding()}
	c.modes, _ = s.(ModeLister)
	c.bulk, _ = s.(BulkLoader)
	c.lister, _ = s.(IndexLister)
	c.stmts, _ = s.(StatementWriter)
	return c
}

// Unwrap returns the driver.
func (c *Checked) Unwrap() Store { return c.raw }

// SelfEmbedding reports the driver's SelfEmbedding.
func (c *Checked) SelfEmbedding() bool { return c.self }

// SearchModes lists the driver's modes, SearchVector alone without
// ModeLister.
func (c *Checked) SearchModes() []string {
	if c.modes == nil {
		return []string{SearchVector}
	}
	return c.modes.SearchModes()
}

// EnsureIndex checks spec (a name, a non-negative dimension) and creates the
// index.
func (c *Checked) EnsureIndex(ctx context.Context, spec IndexSpec) error {
	const op = "EnsureIndex"
	if err := memerr.Enter(ctx, op); err != nil {
		return err
	}
	if spec.Name == "" || spec.Dimension < 0 {
		return invalid(op, "index name and a non-negative dimension are required")
	}
	if err := classify(ctx, op, c.raw.EnsureIndex(ctx, spec)); err != nil {
		return err
	}
	if spec.Dimension > 0 {
		c.dims.Store(spec.Name, spec.Dimension)
	}
	return nil
}

// Upsert checks recs (see checkRecords) and writes them.
func (c *Checked) Upsert(ctx context.Context, index string, recs []Record) error {
	return c.write(ctx, "Upsert", index, recs, c.raw.Upsert)
}

// UpsertBulk is the driver's UpsertBulk, or Upsert without BulkLoader.
func (c *Checked) UpsertBulk(ctx context.Context, index string, recs []Record) error {
	if c.bulk == nil {
		return c.write(ctx, "UpsertBulk", index, recs, c.raw.Upsert)
	}
	return c.write(ctx, "UpsertBulk", index, recs, c.bulk.UpsertBulk)
}

func (c *Checked) write(ctx context.Context, op, index string, recs []Record, do func(context.Context, string, []Record) error) error {
	if err := memerr.Enter(ctx, op); err != nil {
		return err
	}
	if err := c.checkRecords(op, index, recs); err != nil {
		return err
	}
	return classify(ctx, op, do(ctx, index, recs))
}

// checkRecords refuses a record without an id or a resource id, and, for a
// store that does not embed, one without a vector, with a NaN or infinite
// value, or of another length than the other records and the index.
func (c *Checked) checkRecords(op, index string, recs []Record) error {
	dim := c.dim(index)
	for _, r := range recs {
		switch {
		case r.ID == "":
			return invalid(op, "record id is required")
		case r.Meta.ResourceID == "":
			return &memerr.Error{Code: memerr.CodeVector, Op: op, Msg: "record " + r.ID, Err: memerr.ErrMissingResourceID}
		case c.self:
			continue
		case len(r.Vector) == 0:
			return invalid(op, "record "+r.ID+" has no vector (the store does not embed)")
		case !finite(r.Vector):
			return invalid(op, "record "+r.ID+" has a NaN or infinite vector value")
		case dim != 0 && len(r.Vector) != dim:
			return DimensionError(op, index, dim, len(r.Vector))
		}
		dim = len(r.Vector)
	}
	return nil
}

// Query checks q (a resource id, a valid metadata filter and mode, a finite
// vector of the index's dimension when the mode uses one and the store does
// not embed) and runs it.
func (c *Checked) Query(ctx context.Context, index string, q Query) ([]Hit, error) {
	const op = "Query"
	if err := memerr.Enter(ctx, op); err != nil {
		return nil, err
	}
	if q.Filter.ResourceID == "" {
		return nil, missingResource(op)
	}
	if err := q.Filter.Metadata.Validate(); err != nil {
		return nil, memerr.WithOp(op, err)
	}
	mode, needVec, err := q.ResolveMode()
	switch {
	case err != nil:
		return nil, invalid(op, err.Error())
	case !needVec || c.self:
	case len(q.Vector) == 0:
		return nil, invalid(op, "query vector is required for mode "+mode+" (the store does not embed)")
	case !finite(q.Vector):
		return nil, invalid(op, "query vector has a NaN or infinite value")
	default:
		if dim := c.dim(index); dim != 0 && len(q.Vector) != dim {
			return nil, DimensionError(op, index, dim, len(q.Vector))
		}
	}
	hits, err := c.raw.Query(ctx, index, q)
	if err != nil {
		return nil, classify(ctx, op, err)
	}
	return hits, nil
}

// Delete checks f's resource id and deletes.
func (c *Checked) Delete(ctx context.Context, index string, f Filter) error {
	const op = "Delete"
	if err := memerr.Enter(ctx, op); err != nil {
		return err
	}
	if f.ResourceID == "" {
		return missingResource(op)
	}
	return classify(ctx, op, c.raw.Delete(ctx, index, f))
}

// IndexNames lists the driver's indexes, none without IndexLister.
func (c *Checked) IndexNames(ctx context.Context) ([]string, error) {
	const op = "IndexNames"
	if err := memerr.Enter(ctx, op); err != nil {
		return nil, err
	}
	if c.lister == nil {
		return nil, nil
	}
	names, err := c.lister.IndexNames(ctx)
	if err != nil {
		return nil, classify(ctx, op, err)
	}
	return names, nil
}

// Database is the driver's Database, nil without StatementWriter.
func (c *Checked) Database() any {
	if c.stmts == nil {
		return nil
	}
	return c.stmts.Database()
}

// UpsertStatements checks recs as Upsert does and returns the driver's
// statements; without StatementWriter it fails with memerr.ErrUnsupported.
func (c *Checked) UpsertStatements(ctx context.Context, index string, recs []Record) ([]store.Statement, error) {
	const op = "UpsertStatements"
	if err := memerr.Enter(ctx, op); err != nil {
		return nil, err
	}
	if c.stmts == nil {
		return nil, memerr.ErrUnsupported.New(op)
	}
	if err := c.checkRecords(op, index, recs); err != nil {
		return nil, err
	}
	stmts, err := c.stmts.UpsertStatements(ctx, index, recs)
	if err != nil {
		return nil, classify(ctx, op, err)
	}
	return stmts, nil
}

// dim is the dimension EnsureIndex gave index, 0 when unknown.
func (c *Checked) dim(index string) int {
	if d, ok := c.dims.Load(index); ok {
		return d.(int)
	}
	return 0
}

// DimensionError is the error of a vector whose length got differs from the
// dimension want of index: CodeVector, with
// memerr.ErrEmbeddingDimensionMismatch as its cause. Drivers return it for
// the dimension of an index they keep.
func DimensionError(op, index string, want, got int) error {
	return &memerr.Error{Code: memerr.CodeVector, Op: op,
		Msg: "index " + index + " has dimension " + strconv.Itoa(want) + ", got " + strconv.Itoa(got),
		Err: memerr.ErrEmbeddingDimensionMismatch}
}

// Fail is a driver's failure of op: CodeVector with msg and its cause
// (reachable through errors.Is and errors.As).
func Fail(op, msg string, cause error) error {
	return &memerr.Error{Code: memerr.CodeVector, Op: op, Msg: msg, Err: cause}
}

// invalid is a refused argument: CodeVector (the code vector stores have
// always used) with memerr.ErrInvalidArgument as its cause.
func invalid(op, msg string) error { return Fail(op, msg, memerr.ErrInvalidArgument) }

func missingResource(op string) error { return Fail(op, "filter", memerr.ErrMissingResourceID) }

// classify maps a driver's error (memerr.Classify): an ended context first,
// then the driver's *memerr.Error (named with op when it names none), then
// memerr.CodeVector.
func classify(ctx context.Context, op string, err error) error {
	return memerr.Classify(ctx, op, err, memerr.CodeVector, "vector operation failed")
}

// finite reports whether every value of v is a number.
func finite(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// VersionError is the error of a resource whose records were written with
// index version have while the index is at want (see IndexSpec.Version):
// memerr.CodeIndexVersionMismatch, which a reindex of the resource repairs.
// where names the index ("index memory_messages") or what holds it.
func VersionError(op, where, resource, have, want string) error {
	return &memerr.Error{Code: memerr.CodeIndexVersionMismatch, Op: op,
		Msg: "resource " + strconv.Quote(resource) + " of " + where + " was written with version " +
			strconv.Quote(have) + ", not " + strconv.Quote(want) + " (delete and reindex the resource)"}
}
