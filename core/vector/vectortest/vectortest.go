// Package vectortest is the conformance suite every vector.Store must
// pass, plus a retrieval-quality harness on the LoCoMo benchmark (see
// LoadLoCoMo). A store proves itself with one line:
//
//	func TestConformance(t *testing.T) { vectortest.Run(t, openFresh, emb) }
//
// emb is nil for self-embedding stores; otherwise the suite fills every
// record's and query's Vector from it. Modes other than vector.SearchVector are
// exercised when the store lists them (RunOptions.Modes or ModeLister).
package vectortest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
)

// ModeLister is optionally implemented by stores to list the VectorQuery
// modes they support; see vector.ModeLister.
type ModeLister = vector.ModeLister

// RunOptions tunes Run.
type RunOptions struct {
	// Modes lists the supported search modes; nil asks ModeLister, and falls
	// back to vector.SearchVector only.
	Modes []string
	// IsolationQueries is the number of random queries of the isolation
	// case (default 200).
	IsolationQueries int
}

// Opener returns a fresh, empty store.
type Opener func(t *testing.T) vector.Store

// Run runs every conformance case against fresh stores from open.
func Run(t *testing.T, open Opener, emb vector.Embedder, opts ...RunOptions) {
	var o RunOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	cases := []struct {
		name string
		fn   func(h *H)
	}{
		{"EnsureIndexIdempotent", testEnsureIndex},
		{"UpsertQuery", testUpsertQuery},
		{"UpsertReplaces", testUpsertReplaces},
		{"ReupsertChunks", testReupsertChunks},
		{"TopK", testTopK},
		{"MinScore", testMinScore},
		{"Meta", testMeta},
		{"ThreadFilter", testThreadFilter},
		{"EmptyResource", testEmptyResource},
		{"ResourceRequired", testResourceRequired},
		{"BadInput", testBadInput},
		{"DeleteByThread", testDeleteByThread},
		{"DeleteByMessageIDs", testDeleteByMessageIDs},
		{"DeleteByResource", testDeleteByResource},
		{"BM25", testBM25},
		{"Hybrid", testHybrid},
		{"CommonTerms", testCommonTerms},
		{"IndexVersion", testIndexVersion},
		{"MetadataFilter", testMetadataFilter},
		{"MetadataFilterTimes", testMetadataFilterTimes},
		{"MetadataFilterOtherResourceKeys", testMetadataFilterOtherResourceKeys},
		{"MetadataFilterTopK", testMetadataFilterTopK},
		{"MetadataFilterInvalid", testMetadataFilterInvalid},
		{"LongText", testLongText},
		{"IndexNames", testIndexNames},
		{"ResourceIsolation", func(h *H) { RunIsolation(h, max(o.IsolationQueries, 0)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			h := NewH(t, s, emb)
			if o.Modes != nil {
				h.Modes = o.Modes
			}
			c.fn(h)
		})
	}
}

// H is a test harness around one store: it embeds for stores that do not,
// and fails the test on unexpected errors.
type H struct {
	T     testing.TB      // the test
	S     vector.Store    // the store under test
	Emb   vector.Embedder // nil for self-embedding stores
	Index string          // the index the helpers use, created by NewH
	Modes []string        // supported search modes
	Ctx   context.Context // context of every call
}

// NewH returns a harness whose index (vector.IndexName of the embedder's
// dimension, or of 0 for self-embedding stores) exists. The harness drives
// s through vector.Check, as core.Memory does.
func NewH(t testing.TB, s vector.Store, emb vector.Embedder) *H {
	c := vector.Check(s)
	h := &H{T: t, S: c, Emb: emb, Ctx: context.Background(), Modes: c.SearchModes()}
	s = c
	dim := 0
	if !s.SelfEmbedding() {
		if emb == nil {
			t.Fatal("vectortest: the store does not embed and no Embedder was given")
		}
		dim = len(h.embed("dimension probe")[0])
	}
	h.Index = vector.IndexName(dim)
	if err := s.EnsureIndex(h.Ctx, vector.IndexSpec{Name: h.Index, Dimension: dim}); err != nil {
		t.Fatalf("EnsureIndex: %v", err)
	}
	return h
}

// Supports reports whether the store supports mode.
func (h *H) Supports(mode string) bool { return slices.Contains(h.Modes, mode) }

func (h *H) embed(texts ...string) [][]float32 {
	h.T.Helper()
	vecs, err := h.Emb.Embed(h.Ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		h.T.Fatalf("Embed: %v (%d vectors for %d texts)", err, len(vecs), len(texts))
	}
	return vecs
}

// Prepare fills Vector from the embedder unless the store embeds itself.
func (h *H) Prepare(recs []vector.Record) []vector.Record {
	h.T.Helper()
	out := slices.Clone(recs)
	if h.S.SelfEmbedding() || len(out) == 0 {
		return out
	}
	texts := make([]string, len(out))
	for i, r := range out {
		texts[i] = r.Text
	}
	for i, v := range h.embed(texts...) {
		out[i].Vector = v
	}
	return out
}

// Upsert writes recs (embedding them when needed) and fails on error.
func (h *H) Upsert(recs ...vector.Record) {
	h.T.Helper()
	if err := h.S.Upsert(h.Ctx, h.Index, h.Prepare(recs)); err != nil {
		h.T.Fatalf("Upsert: %v", err)
	}
}

// QueryErr runs q (embedding q.Text when needed) and returns the result.
func (h *H) QueryErr(q vector.Query) ([]vector.Hit, error) {
	h.T.Helper()
	if !h.S.SelfEmbedding() && q.Vector == nil && q.Mode != vector.SearchBM25 {
		q.Vector = h.embed(q.Text)[0]
	}
	return h.S.Query(h.Ctx, h.Index, q)
}

// Query runs q and fails on error.
func (h *H) Query(q vector.Query) []vector.Hit {
	h.T.Helper()
	hits, err := h.QueryErr(q)
	if err != nil {
		h.T.Fatalf("Query %+v: %v", q, err)
	}
	return hits
}

// Delete deletes by f and fails on error.
func (h *H) Delete(f vector.Filter) {
	h.T.Helper()
	if err := h.S.Delete(h.Ctx, h.Index, f); err != nil {
		h.T.Fatalf("Delete %+v: %v", f, err)
	}
}

// Rec returns a one-chunk record of message msg ("<msg>#0").
func Rec(msg, thread, resource, text string) vector.Record {
	return vector.Record{ID: msg + "#0", Text: text, Meta: vector.Meta{
		MessageID: msg, ThreadID: thread, ResourceID: resource, Role: message.RoleUser,
		CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}}
}

// IDs returns the hit ids in order.
func IDs(hits []vector.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}
