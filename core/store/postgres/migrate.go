package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"

	"github.com/agentmem/agentmem/core/internal/pgmigrate"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/jackc/pgx/v5/pgconn"
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
	if e := s.clash(op, err); e != nil {
		return e
	}
	return memerr.WrapStorage(op, err)
}

// duplicateTable is PostgreSQL's SQLSTATE for "relation already exists".
const duplicateTable = "42P07"

// clash is the error of a migration that met a table of the same name it did
// not create (the application's own "messages" in its schema): it names the
// option that gives agentmem a schema of its own. Nil for other errors.
func (s *Store) clash(op string, err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != duplicateTable {
		return nil
	}
	return &memerr.Error{Code: memerr.CodeInvalidConfig, Op: op, Err: err, Msg: fmt.Sprintf(
		"schema %q already holds a table of that name that agentmem did not create; give agentmem a schema of its own: postgres.WithSchema(\"agentmem\"), agentmem --pg-schema agentmem",
		s.schema)}
}
