package pgvector_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/core/vector/vectortest"

	"github.com/jackc/pgx/v5/pgxpool"
)

// count returns the number of rows of the index's table.
func count(t *testing.T, s *pgvector.Store, table string) int {
	t.Helper()
	var n int
	if err := testPool(t).QueryRow(bg(), `SELECT count(*) FROM "`+s.Schema()+`".`+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDimensionMismatch: a record or query of another dimension than the
// index's is ErrEmbeddingDimensionMismatch, and a batch holding one writes
// nothing; so is ensuring the index with another dimension.
func TestDimensionMismatch(t *testing.T) {
	s := openFresh(t, pgvector.Config{})
	emb := local.NewHashEmbedder(8)
	h := vectortest.NewH(t, s, emb)
	good := h.Prepare([]vector.Record{vectortest.Rec("a", "t", "r", "hello there")})[0]
	bad := good
	bad.ID, bad.Vector = "b#0", make([]float32, 9)
	bad.Vector[0] = 1
	err := s.Upsert(bg(), h.Index, []vector.Record{good, bad})
	if !errors.Is(err, memerr.ErrEmbeddingDimensionMismatch) {
		t.Fatalf("Upsert with a 9-dimension vector into 8: %v", err)
	}
	if n := count(t, s, "vectors_"+h.Index); n != 0 {
		t.Fatalf("%d rows written by a refused batch", n)
	}
	if _, err := s.Query(bg(), h.Index, vector.Query{Vector: bad.Vector, Filter: vector.Filter{ResourceID: "r"}}); !errors.Is(err, memerr.ErrEmbeddingDimensionMismatch) {
		t.Fatalf("Query with 9 dimensions: %v", err)
	}
	if err := s.EnsureIndex(bg(), vector.IndexSpec{Name: h.Index, Dimension: 9}); !errors.Is(err, memerr.ErrEmbeddingDimensionMismatch) {
		t.Fatalf("EnsureIndex with another dimension: %v", err)
	}
}

// TestBadInput: bad records, queries and configurations are typed errors
// and write nothing.
func TestBadInput(t *testing.T) {
	s := openFresh(t, pgvector.Config{})
	h := vectortest.NewH(t, s, local.NewHashEmbedder(8))
	rec := h.Prepare([]vector.Record{vectortest.Rec("a", "t", "r", "hello there")})[0]
	nul, nan, noID := rec, rec, rec
	nul.Meta.ThreadID = "t\x00"
	nan.Vector = append([]float32(nil), rec.Vector...)
	nan.Vector[0] = float32(nanValue())
	noID.ID = ""
	for name, r := range map[string]vector.Record{"NUL in an id": nul, "NaN": nan, "no id": noID} {
		if err := h.S.Upsert(bg(), h.Index, []vector.Record{rec, r}); !errors.Is(err, memerr.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	if n := count(t, s, "vectors_"+h.Index); n != 0 {
		t.Fatalf("%d rows written by refused batches", n)
	}
	for _, cfg := range []vector.IndexConfig{{Type: "annoy"}, {Metric: "manhattan"}, {Type: pgvector.TypeHNSW, HNSW: struct{ M, EfConstruction int }{M: 500}}} {
		if err := s.EnsureIndex(bg(), vector.IndexSpec{Name: "other", Dimension: 8, Config: cfg}); !errors.Is(err, memerr.ErrInvalidConfig) {
			t.Errorf("config %+v: %v, want ErrInvalidConfig", cfg, err)
		}
	}
	if err := s.Upsert(bg(), "missing", []vector.Record{rec}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Upsert into a missing index: %v", err)
	}
	// Unknown modes and hybrid weights: vectortest's BadInput, through vector.Checked.
}

func nanValue() float64 { var z float64; return z / z }

// TestNoExtension: in a database without the extension, a role that may not
// create it gets ErrNoExtension, which names the extension.
func TestNoExtension(t *testing.T) {
	p := testPool(t)
	db, role := fmt.Sprintf("agentmem_noext_%d", randInt()), fmt.Sprintf("agentmem_noext_%d", randInt())
	for _, q := range []string{"CREATE DATABASE " + db, "CREATE ROLE " + role + " LOGIN"} {
		if _, err := p.Exec(bg(), q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_, _ = p.Exec(bg(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
		_, _ = p.Exec(bg(), "DROP ROLE IF EXISTS "+role)
	})
	cfg := p.Config().ConnConfig.Copy()
	dsn := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", role, cfg.Host, cfg.Port, db)
	_, err := pgvector.Open(bg(), dsn, pgvector.Config{})
	if !errors.Is(err, pgvector.ErrNoExtension) || !errors.Is(err, memerr.ErrInvalidConfig) || !strings.Contains(err.Error(), `"vector"`) {
		t.Fatalf("Open without the extension: %v", err)
	}
	// One line, one account of what is missing, and the privilege pgvector
	// (not a trusted extension) needs.
	want := fmt.Sprintf(`pgvector.New: extension "vector" (pgvector) is installed on the server but not created in database %q, and role %q may not create it: run CREATE EXTENSION vector in that database as a superuser: `, db, role)
	if msg := err.Error(); !strings.HasPrefix(msg, want) || strings.Contains(msg, "\n") || strings.Contains(msg, "not installed") {
		t.Errorf("Open without the extension:\n%s\nwant one line starting\n%s", msg, want)
	}
	// The owner creates it; then the role opens the store (its tables in a
	// schema it owns).
	owner, err := pgxpool.New(bg(), fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, db))
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	if _, err := owner.Exec(bg(), "CREATE EXTENSION vector; CREATE SCHEMA mem AUTHORIZATION "+role); err != nil {
		t.Fatal(err)
	}
	s, err := pgvector.Open(bg(), dsn, pgvector.Config{Schema: "mem"})
	if err != nil {
		t.Fatalf("Open once the extension exists: %v", err)
	}
	s.Close()
}
