package postgres

import (
	"context"
	"embed"
	"fmt"
	"hash/fnv"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/core/memerr"

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

// migrations returns the embedded migrations ordered by version. A file is
// named NNNN_description.sql; versions are unique and increasing.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	seen := map[int64]bool{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		prefix, _, ok := strings.Cut(name, "_")
		if !ok {
			return nil, fmt.Errorf("migration %s: name must be NNNN_description.sql", name)
		}
		v, err := strconv.ParseInt(prefix, 10, 64)
		if err != nil || v <= 0 || seen[v] {
			return nil, fmt.Errorf("migration %s: bad or duplicate version", name)
		}
		seen[v] = true
		body, err := migrationFS.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(name, ".sql"), sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// lockKey is the advisory lock serialising migrations of one schema.
func lockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("agentmem/postgres/migrate\x00" + schema))
	return int64(h.Sum64())
}

// migrate applies the missing migrations in one transaction under a
// transaction-scoped advisory lock, so concurrent starters migrate once.
func (s *Store) migrate(ctx context.Context) error {
	const op = "postgres.migrate"
	ms, err := migrations()
	if err != nil {
		return memerr.WrapStorage(op, err)
	}
	quoted := quoteIdent(s.schema)
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey(s.schema)); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", s.schema).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA "+quoted); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, withSchema(`CREATE TABLE IF NOT EXISTS {{schema}}.schema_migrations (
	version    bigint      PRIMARY KEY,
	name       text        NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`, quoted)); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, withSchema("SELECT version FROM {{schema}}.schema_migrations", quoted))
		if err != nil {
			return err
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		done := make(map[int64]bool, len(applied))
		for _, v := range applied {
			done[v] = true
		}
		for _, m := range ms {
			if done[m.version] {
				continue
			}
			if _, err := tx.Exec(ctx, withSchema(m.sql, quoted)); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, withSchema("INSERT INTO {{schema}}.schema_migrations (version, name) VALUES ($1, $2)", quoted), m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
	return memerr.WrapStorage(op, err)
}
