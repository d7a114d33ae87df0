package pgvector_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/internal/pg/ident"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/pgvector"

	"github.com/jackc/pgx/v5"
)

// runInTx runs the statements in one transaction, committed when all
// succeed.
func runInTx(t *testing.T, s *pgvector.Store, stmts []store.Statement) error {
	t.Helper()
	return pgx.BeginFunc(bg(), s.Pool(), func(tx pgx.Tx) error {
		for _, st := range stmts {
			if _, err := tx.Exec(bg(), st.SQL, st.Args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// UpsertStatements' statements, run in a caller's transaction, write what
// Upsert writes, and fail that transaction where Upsert fails.
func TestUpsertStatements(t *testing.T) {
	s := openFresh(t, pgvector.Config{})
	var _ vector.StatementWriter = s
	if id, err := ident.Of(bg(), s.Pool()); err != nil || s.Database() != any(id) {
		t.Fatalf("Database is %v, not the identity of the pool's database and role (%q, %v)", s.Database(), id, err)
	}
	spec := vector.IndexSpec{Name: "joint", Dimension: 3, Version: "v1"}
	if err := s.EnsureIndex(bg(), spec); err != nil {
		t.Fatal(err)
	}
	rec := func(id string, v ...float32) vector.Record {
		return vector.Record{ID: id, Text: "hello there " + id, Vector: v,
			Meta: vector.Meta{ResourceID: "r", ThreadID: "t", MessageID: id, CreatedAt: time.Now()}}
	}
	stmts, err := s.UpsertStatements(bg(), "joint", []vector.Record{rec("a", 1, 0, 0), rec("b", 0, 1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if err := runInTx(t, s, stmts); err != nil {
		t.Fatal(err)
	}
	// Again, replacing a record: the resource's counts stay its table's.
	if stmts, err = s.UpsertStatements(bg(), "joint", []vector.Record{rec("a", 0, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := runInTx(t, s, stmts); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Query(bg(), "joint", vector.Query{Vector: []float32{0, 0, 1}, TopK: 5, Filter: vector.Filter{ResourceID: "r"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ID != "a" {
		t.Fatalf("hits %+v, want a (replaced) then b", hits)
	}
	var records, rows int64
	schema := pgx.Identifier{s.Schema()}.Sanitize()
	if err := s.Pool().QueryRow(bg(), "SELECT (SELECT records FROM "+schema+".vector_resources WHERE resource_id = 'r'), (SELECT count(*) FROM "+schema+".vectors_joint)").
		Scan(&records, &rows); err != nil {
		t.Fatal(err)
	}
	if records != 2 || rows != 2 {
		t.Fatalf("resource records %d, rows %d; want 2 and 2", records, rows)
	}

	// A bad record fails before any statement is made.
	if _, err := s.UpsertStatements(bg(), "joint", []vector.Record{rec("c", 1, 0)}); !errors.Is(err, memerr.ErrEmbeddingDimensionMismatch) {
		t.Fatalf("a 2-dimension record: %v, want ErrEmbeddingDimensionMismatch", err)
	}

	// The index is ensured with another version: r was written with v1, so
	// the first statement fails, and the transaction writes nothing.
	spec.Version = "v2"
	if err := s.EnsureIndex(bg(), spec); err != nil {
		t.Fatal(err)
	}
	if stmts, err = s.UpsertStatements(bg(), "joint", []vector.Record{rec("d", 1, 1, 0)}); err != nil {
		t.Fatal(err)
	}
	if err := runInTx(t, s, stmts); err == nil || !strings.Contains(err.Error(), `written with version v1, not v2`) {
		t.Fatalf("statements on a resource of another version: %v", err)
	}
	if err := s.Pool().QueryRow(bg(), "SELECT count(*) FROM "+schema+".vectors_joint WHERE id = 'd'").Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("record of a refused transaction stored (%d, %v)", rows, err)
	}
	if err := s.Upsert(bg(), "joint", []vector.Record{rec("d", 1, 1, 0)}); !errors.Is(err, memerr.ErrIndexVersionMismatch) {
		t.Fatalf("Upsert: %v, want ErrIndexVersionMismatch", err)
	}
}
