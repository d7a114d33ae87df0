package pgvector

import (
	"context"
	"embed"

	"github.com/agentmem/agentmem/core/internal/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock names the advisory lock serialising this package's
// migrations and index DDL in one schema (distinct from the message store's).
const migrationLock = "agentmem/pgvector/migrate"

// lockKey is the advisory lock key of migrationLock in schema.
func lockKey(schema string) int64 { return pgmigrate.LockKey(migrationLock, schema) }

// migrate applies the missing migrations (see pgmigrate.Apply).
func (s *Store) migrate(ctx context.Context) error {
	ms, err := pgmigrate.Load(migrationFS, "migrations")
	if err != nil {
		return err
	}
	return pgmigrate.Apply(ctx, s.pool, pgmigrate.Target{Schema: s.schema, Quoted: s.qschema, Lock: migrationLock,
		Table: "vector_schema_migrations", Expand: func(m pgmigrate.Migration) string { return s.sql(m.SQL) }}, ms)
}
