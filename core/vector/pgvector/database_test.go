package pgvector_test

import (
	"context"
	"testing"

	"github.com/agentmem/agentmem/core/internal/pg/ident"
	"github.com/agentmem/agentmem/core/vector/pgvector"

	"github.com/jackc/pgx/v5"
)

// Two pools on one database as one role name the same Database, so that a
// message store on the other pool writes this store's statements in its
// transaction; another database or another role names another.
func TestDatabaseNamesTheDatabaseAndRole(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	a, err := pgvector.New(ctx, pool, pgvector.Config{Schema: freshSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	other, err := pgvector.Open(ctx, pool.Config().ConnString(), pgvector.Config{Schema: freshSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, ok := a.Database().(string); !ok || a.Database() != other.Database() {
		t.Fatalf("two pools on one database: %v and %v", a.Database(), other.Database())
	}
	ids := map[string]string{"pool": a.Database().(string)}
	// Another database than the pool's, whichever database the DSN names.
	var current string
	if err := pool.QueryRow(ctx, "SELECT current_database()").Scan(&current); err != nil {
		t.Fatal(err)
	}
	cc := pool.Config().ConnConfig.Copy()
	cc.Database = "postgres"
	if current == cc.Database {
		cc.Database = "template1"
	}
	ids["another database"] = identity(t, cc, "")
	if _, err := pool.Exec(ctx, `DO $$ BEGIN CREATE ROLE agentmem_other_role NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`); err != nil {
		t.Fatal(err)
	}
	ids["role agentmem_other_role"] = identity(t, pool.Config().ConnConfig.Copy(), "SET ROLE agentmem_other_role")
	if ids["pool"] == ids["another database"] || ids["pool"] == ids["role agentmem_other_role"] {
		t.Fatalf("identities %q: another database or role must differ", ids)
	}
}

// identity connects with cc, runs setup, and returns ident.Of's identity.
func identity(t *testing.T, cc *pgx.ConnConfig, setup string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if setup != "" {
		if _, err := conn.Exec(ctx, setup); err != nil {
			t.Fatal(err)
		}
	}
	id, err := ident.Of(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
