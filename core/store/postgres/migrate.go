package postgres

import (
	"context"
	"embed"

	"github.com/agentmem/agentmem/core/internal/pgmigrate"
	"github.com/agentmem/agentmem/core/memerr"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock names the advisory lock of this package's migrations.
const migrationLock = "agentmem/postgres/migrate"

// migrations returns the embedded migrations ordered by version.
func migrations() ([]pgmigrate.Migration, error) { return pgmigrate.Load(migrationFS, "migrations") }

// migrate applies the missing migrations (see pgmigrate.Apply).
func (s *Store) migrate(ctx context.Context) error {
	const op = "postgres.migrate"
	ms, err := migrations()
	if err != nil {
		return memerr.WrapStorage(op, err)
	}
	quoted := quoteIdent(s.schema)
	err = pgmigrate.Apply(ctx, s.pool, pgmigrate.Target{Schema: s.schema, Quoted: quoted, Lock: migrationLock,
		Table: "schema_migrations", Expand: func(sql string) string { return withSchema(sql, quoted) }}, ms)
	return memerr.WrapStorage(op, err)
}
