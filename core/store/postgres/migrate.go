package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/core/internal/pg/migrate"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock names the advisory lock of this package's migrations.
const migrationLock = "agentmem/postgres/migrate"

// migrations returns the embedded migrations ordered by version.
func migrations() ([]migrate.Migration, error) { return migrate.Load(migrationFS, "migrations") }

const (
	// namePrefix starts the name of every table, index and function the
	// migrations create, so that a schema shared with the application
	// (public, by default) keeps its common names (messages, threads,
	// schema_migrations) for the application.
	namePrefix   = "agentmem_"
	versionTable = namePrefix + "schema_migrations"
	// legacyVersionTable is where versions before prefixedVersion recorded
	// their migrations, into unprefixed tables.
	legacyVersionTable = "schema_migrations"
	// prefixedVersion is the migration that renames an earlier version's
	// tables; the migrations before it write unprefixed names when they
	// continue such a schema.
	prefixedVersion = 10
)

// migrate applies the missing migrations (see migrate.Apply).
func (s *Store) migrate(ctx context.Context) error {
	const op = "postgres.migrate"
	ms, err := migrations()
	if err != nil {
		return memerr.WrapStorage(op, err)
	}
	quoted := quoteIdent(s.schema)
	legacy := false
	err = migrate.Apply(ctx, s.pool, migrate.Target{Schema: s.schema, Quoted: quoted, Lock: migrationLock,
		Table: versionTable,
		Prepare: func(ctx context.Context, tx pgx.Tx) (err error) {
			legacy, err = adoptLegacy(ctx, tx, quoted)
			return err
		},
		Expand: func(m migrate.Migration) string { return expand(m, quoted, legacy) }}, ms)
	if e := s.clash(op, err); e != nil {
		return e
	}
	return memerr.WrapStorage(op, err)
}

// expand fills in a migration's placeholders: {{schema}}, the quoted
// schema; {{prefix}}, the prefix of the names it creates ("" for the
// migrations before prefixedVersion continuing a legacy schema, as they
// were written then); {{legacy}}, whether the schema is a legacy one.
func expand(m migrate.Migration, quoted string, legacy bool) string {
	prefix := namePrefix
	if legacy && m.Version < prefixedVersion {
		prefix = ""
	}
	return strings.NewReplacer("{{schema}}", quoted, "{{prefix}}", prefix, "{{legacy}}", fmt.Sprint(legacy)).Replace(m.SQL)
}

// adoptLegacy reports whether the schema holds the tables of a version
// before prefixedVersion, which recorded its migrations in
// legacyVersionTable, and then renames that table to versionTable so that
// the migrations continue it. A legacyVersionTable is agentmem's when it
// has agentmem's columns and its first migration; the application's own
// (Rails', golang-migrate's) is left alone, and so are its tables.
func adoptLegacy(ctx context.Context, tx pgx.Tx, quoted string) (bool, error) {
	var ours bool
	err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NULL AND (SELECT count(*) FROM pg_attribute
	WHERE attrelid = to_regclass($2) AND attname IN ('version', 'name', 'applied_at') AND NOT attisdropped) = 3`,
		quoted+"."+versionTable, quoted+"."+legacyVersionTable).Scan(&ours)
	if err != nil || !ours {
		return false, err
	}
	legacy := quoted + "." + legacyVersionTable
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+legacy+" WHERE version::text = '1' AND name::text = '0001_init')").Scan(&ours); err != nil || !ours {
		return false, err
	}
	_, err = tx.Exec(ctx, "ALTER TABLE "+legacy+" RENAME TO "+versionTable+"; ALTER INDEX IF EXISTS "+quoted+"."+legacyVersionTable+"_pkey RENAME TO "+versionTable+"_pkey")
	return err == nil, err
}

// duplicateTable is PostgreSQL's SQLSTATE for "relation already exists".
const duplicateTable = "42P07"

// clash is the error of a migration that met a table of the same name it did
// not create (an "agentmem_messages" of the application's in its schema): it
// names the option that gives agentmem a schema of its own. Nil for other
// errors.
func (s *Store) clash(op string, err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != duplicateTable {
		return nil
	}
	return &memerr.Error{Code: memerr.CodeInvalidConfig, Op: op, Err: err, Msg: fmt.Sprintf(
		"schema %q already holds a table of that name that agentmem did not create; give agentmem a schema of its own: postgres.WithSchema(\"agentmem\"), agentmem --pg-schema agentmem",
		s.schema)}
}
