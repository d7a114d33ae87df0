package local

import (
	"bufio"
	"context"
	"encoding/gob"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// A file of format version 1 (one gob value, float32 vectors) still opens,
// and the next save writes version 2 with the same records.
func TestOpenVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(fileMagicV1)
	v1 := []fileIndex{{Name: "ix", Dim: 3, Version: "v", Versions: map[string]string{"r": "v"}, Records: []fileRecord{
		{ID: "a#0", Text: "red apples", MessageID: "a", ThreadID: "t", ResourceID: "r", Role: "user", Vector: []float32{1, 0, 0}},
		{ID: "b#0", Text: "green pears", MessageID: "b", ThreadID: "t", ResourceID: "r", Role: "user", Vector: []float32{0, 1, 0}},
	}}}
	if err := gob.NewEncoder(w).Encode(v1); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	f.Close()
	check := func(s *Store) {
		t.Helper()
		ctx := context.Background()
		hits, err := s.Query(ctx, "ix", vector.Query{Vector: []float32{0, 2, 0}, TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
		if err != nil || len(hits) != 1 || hits[0].ID != "b#0" || hits[0].Meta.ThreadID != "t" {
			t.Fatalf("vector query: %+v %v", hits, err)
		}
		hits, err = s.Query(ctx, "ix", vector.Query{Text: "apples", Mode: vector.SearchBM25, TopK: 2, Filter: vector.Filter{ResourceID: "r"}})
		if err != nil || len(hits) != 1 || hits[0].ID != "a#0" {
			t.Fatalf("bm25 query: %+v %v", hits, err)
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	check(s)
	if err := s.EnsureIndex(context.Background(), vector.IndexSpec{Name: "other", Dimension: 2}); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	check(s2)
	if s2.indexes["other"] == nil {
		t.Fatal("second index not saved")
	}
}

// graphStore returns a store persisted to path with n records in one
// resource, its graph built, a query and the store's answer to it. The
// records' texts repeat (so do their vectors) unless distinct is set, which
// gives each a random vector.
func graphStore(t *testing.T, path string, n int, distinct bool) (*Store, vector.Query, []vector.Hit) {
	t.Helper()
	ctx := context.Background()
	s, err := OpenWithOptions(path, Options{ApproximateFrom: 10})
	if err != nil {
		t.Fatal(err)
	}
	s.lazy = true
	emb := NewHashEmbedder(32)
	if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: "ix", Dimension: 32}); err != nil {
		t.Fatal(err)
	}
	var recs []vector.Record
	r := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		text := vectortest.Corpus[i%len(vectortest.Corpus)] + " " + vectortest.Queries[i%len(vectortest.Queries)]
		vec := emb.EmbedOne(text)
		if distinct {
			vec = randomVectors(r, 1, 32)[0]
		}
		recs = append(recs, vector.Record{ID: fmt.Sprint("m", i), Vector: vec, Text: text,
			Meta: vector.Meta{MessageID: fmt.Sprint("m", i), ThreadID: fmt.Sprint("t", i%3), ResourceID: "r"}})
	}
	if err := s.Upsert(ctx, "ix", recs); err != nil {
		t.Fatal(err)
	}
	if err := s.BuildGraphs(ctx, "ix"); err != nil {
		t.Fatal(err)
	}
	q := vector.Query{Vector: emb.EmbedOne(vectortest.Queries[1]), TopK: 10, Filter: vector.Filter{ResourceID: "r"}}
	before, err := s.Query(ctx, "ix", q)
	if err != nil || s.indexes["ix"].parts["r"].graph == nil {
		t.Fatalf("query: %v, graph %v", err, s.indexes["ix"].parts["r"].graph)
	}
	return s, q, before
}

// checkReopened opens path and checks that the graph of n records was
// restored (not rebuilt) with the calibrated beam opened (0: none saved),
// that q is answered as before, and that the graph is calibrated to beam
// after it.
func checkReopened(t *testing.T, path string, n int, q vector.Query, before []vector.Hit, opened, beam int) {
	t.Helper()
	s2, err := OpenWithOptions(path, Options{ApproximateFrom: 10})
	if err != nil {
		t.Fatal(err)
	}
	g := s2.indexes["ix"].parts["r"].graph
	if g == nil || g.n != int32(n) {
		t.Fatalf("graph not restored: %+v", g)
	}
	if g.beam != opened {
		t.Fatalf("opened graph's beam %d, want %d", g.beam, opened)
	}
	after, err := s2.Query(context.Background(), "ix", q)
	if err != nil || fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("reopened store differs (%v):\n%v\n%v", err, before, after)
	}
	if err := s2.BuildGraphs(context.Background(), "ix"); err != nil || g.beam != beam || g.calN != int32(n) {
		t.Fatalf("after the first search and BuildGraphs (%v): beam %d over %d nodes, want %d over %d", err, g.beam, g.calN, beam, n)
	}
}

// savedBeam returns the calibrated beam of s's graph, which must have one.
func savedBeam(t *testing.T, s *Store) int {
	t.Helper()
	beam := s.indexes["ix"].parts["r"].graph.beam
	if beam == 0 {
		t.Fatal("BuildGraphs left the graph uncalibrated")
	}
	return beam
}

// A resource's graph is saved (its bottom layer in several chunks) with its
// calibrated beam and restored by Open, and the reopened store answers as
// the saved one did.
func TestGraphPersisted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.bin")
	const n = 2*l0ChunkNodes + 100
	s, q, before := graphStore(t, path, n, false)
	beam := savedBeam(t, s)
	if g := s.indexes["ix"].parts["r"].graph; g.nodes() >= n {
		t.Fatalf("%d nodes for %d slots of repeated texts", g.nodes(), n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	checkReopened(t, path, n, q, before, beam, beam)
}

// writeOldFile writes the one resource of s's index "ix" to path as a file
// of an older format (magic), its graph as fg and chunks.
func writeOldFile(t *testing.T, path, magic string, s *Store, fg fileGraph, chunks []fileL0) {
	t.Helper()
	p, ix := s.indexes["ix"].parts["r"], s.indexes["ix"]
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(magic)
	enc := gob.NewEncoder(w)
	enc.Encode(fileIndex{Name: "ix", Dim: ix.dim, Version: ix.version, Versions: map[string]string{"r": p.version}, Parts: 1})
	enc.Encode(filePart{Resource: "r", Count: p.live()})
	for sl := range int32(len(p.slots)) {
		r, codes := p.record(sl), make([]byte, ix.dim)
		for i, c := range p.vecs.code(sl) {
			codes[i] = byte(c)
		}
		enc.Encode(fileRecord{ID: r.ID, Keywords: r.Keywords, MessageID: r.Meta.MessageID, ThreadID: r.Meta.ThreadID,
			Role: string(r.Meta.Role), CreatedAt: r.Meta.CreatedAt.UnixNano(), Codes: codes, Scale: p.vecs.scale[sl]})
	}
	enc.Encode(fg)
	for _, c := range chunks {
		enc.Encode(c)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A file of format version 2 (the graph's bottom layer in the fileGraph,
// float32 similarities, no calibration; a node per slot) still opens with
// its graph, which is calibrated once opened.
func TestOpenVersion2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2.bin")
	const n = 300
	s, q, before := graphStore(t, path, n, true) // distinct vectors: nodes are slots, as in version 2
	beam := savedBeam(t, s)
	g := s.indexes["ix"].parts["r"].graph
	if g.nodes() != n {
		t.Fatalf("%d nodes for %d distinct vectors", g.nodes(), n)
	}
	fg := fileGraph{N: g.n, L0: g.l0, L0N: g.l0n, Entry: g.entry, Top: g.top}
	for _, sim := range g.l0sim {
		fg.L0Sim = append(fg.L0Sim, float32(sim)/math.MaxInt16)
	}
	for node, lv := range g.up {
		fg.UpNode = append(fg.UpNode, node)
		var fl []fileLinks
		for _, lk := range lv {
			fl = append(fl, fileLinks{lk.ids, lk.sims})
		}
		fg.Up = append(fg.Up, fl)
	}
	writeOldFile(t, path, fileMagicV2, s, fg, nil)
	checkReopened(t, path, n, q, before, 0, beam)
}

// A file of format version 3 whose graph has a node per slot over repeated
// vectors opens without it (its node numbers are not the ones grouping
// gives): the first search answers exactly, and BuildGraphs builds a graph
// of one node per distinct vector.
func TestOpenVersion3Duplicates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v3.bin")
	const n = 300
	s, q, before := graphStore(t, path, n, false)
	beam := savedBeam(t, s)
	nodes := s.indexes["ix"].parts["r"].graph.nodes()
	l0 := fileL0{IDs: make([]int32, n*hnswM0), Sims: make([]int16, n*hnswM0), N: make([]byte, n)}
	writeOldFile(t, path, fileMagicV3, s, fileGraph{N: n, Chunks: 1, Entry: 0, Beam: beam, CalN: n}, []fileL0{l0})
	s2, err := OpenWithOptions(path, Options{ApproximateFrom: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if g := s2.indexes["ix"].parts["r"].graph; g != nil {
		t.Fatalf("a version 3 graph over %d slots of %d distinct vectors was restored", n, nodes)
	}
	ctx := context.Background()
	s2.inlineMax = 0 // the first search builds in the background and answers exactly
	if after, err := s2.Query(ctx, "ix", q); err != nil || fmt.Sprint(scores(after)) != fmt.Sprint(scores(before)) {
		t.Fatalf("first search after Open differs (%v):\n%v\n%v", err, before, after)
	}
	if err := s2.BuildGraphs(ctx, "ix"); err != nil {
		t.Fatal(err)
	}
	if g := s2.indexes["ix"].parts["r"].graph; g == nil || g.nodes() != nodes || g.n != n {
		t.Fatalf("rebuilt graph %+v, want %d nodes over %d slots", g, nodes, n)
	}
}

// A graph saved without calibration and larger than calibInlineMax is
// calibrated in the background once opened: the first search answers
// exactly (with the scores of the saved store's graph search; the corpus
// repeats texts, so tied records may differ) and starts it, writes and searches go on
// meanwhile, and BuildGraphs waits for it.
func TestGraphCalibratedAfterOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.bin")
	const n = calibInlineMax + 500
	s, q, before := graphStore(t, path, n, false)
	beam := savedBeam(t, s)
	g := s.indexes["ix"].parts["r"].graph
	g.beam, g.calN = 0, 0 // as an older file of format 3 has it
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := OpenWithOptions(path, Options{ApproximateFrom: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	ctx := context.Background()
	g = s2.indexes["ix"].parts["r"].graph
	if after, err := s2.Query(ctx, "ix", q); err != nil || fmt.Sprint(scores(after)) != fmt.Sprint(scores(before)) {
		t.Fatalf("first search after Open differs (%v):\n%v\n%v", err, before, after)
	}
	rec := vector.Record{ID: "new", Vector: q.Vector, Meta: vector.Meta{MessageID: "new", ThreadID: "t0", ResourceID: "r"}}
	if err := s2.Upsert(ctx, "ix", []vector.Record{rec}); err != nil {
		t.Fatal(err)
	}
	if hits, err := s2.Query(ctx, "ix", q); err != nil || len(hits) == 0 || hits[0].ID != "new" {
		t.Fatalf("search during the calibration = %v %v", hits, err)
	}
	if err := s2.BuildGraphs(ctx, "ix"); err != nil {
		t.Fatal(err)
	}
	s2.mu.RLock()
	defer s2.mu.RUnlock()
	if g.beam != beam || g.calN != n || g.calibrating {
		t.Fatalf("after BuildGraphs: beam %d over %d nodes (calibrating %v), want %d over %d", g.beam, g.calN, g.calibrating, beam, n)
	}
}

// scores lists the scores of hits.
func scores(hits []vector.Hit) []float64 {
	out := make([]float64, len(hits))
	for i, h := range hits {
		out[i] = h.Score
	}
	return out
}
