package pgvector

import (
	"context"
	"embed"

	"github.com/agentmem/agentmem/core/internal/pg/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock names the advisory lock serialising this package's
// migrations and index DDL in one schema (distinct from the message store's).
const migrationLock = "agentmem/pgvector/migrate"

// lockKey is the advisory lock key of migrationLock in schema.
func lockKey(schema string) int64 { return migrate.LockKey(migrationLock, schema) }

// migrate applies the missing migrations (see migrate.Apply).
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrate.Load(migrationFS, "migrations")
	if err != nil {
		return err
	}
	return migrate.Apply(ctx, s.pool, migrate.Target{Schema: s.schema, Quoted: s.qschema, Lock: migrationLock,
		Table: "vector_schema_migrations", Expand: func(m migrate.Migration) string { return s.sql(m.SQL) }}, ms)
}
