package pgvector

import (
	"context"
	"embed"
	"fmt"
	"hash/fnv"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one embedded, versioned schema change.
type migration struct {
	version int64
	name    string
	sql     string
}

// migrations returns the embedded migrations ordered by version; a file is
// named NNNN_description.sql.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		prefix, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.ParseInt(prefix, 10, 64)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_description.sql", e.Name())
		}
		body, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(e.Name(), ".sql"), sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// lockKey is the advisory lock serialising this package's migrations and
// index DDL in one schema (distinct from the message store's key).
func lockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("agentmem/pgvector/migrate\x00" + schema))
	return int64(h.Sum64())
}

// migrate applies the missing migrations in one transaction under a
// transaction-scoped advisory lock, so concurrent starters migrate once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey(s.schema)); err != nil {
			return err
		}
		// CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the
		// database even when the schema exists.
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", s.schema).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA "+s.qschema); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, s.sql(`CREATE TABLE IF NOT EXISTS {{schema}}.vector_schema_migrations (
	version    bigint      PRIMARY KEY,
	name       text        NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`)); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, s.sql("SELECT version FROM {{schema}}.vector_schema_migrations"))
		if err != nil {
			return err
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		for _, m := range ms {
			if contains(applied, m.version) {
				continue
			}
			if _, err := tx.Exec(ctx, s.sql(m.sql)); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, s.sql("INSERT INTO {{schema}}.vector_schema_migrations (version, name) VALUES ($1, $2)"), m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
}

func contains(vs []int64, v int64) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}
