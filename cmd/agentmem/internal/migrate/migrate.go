// Package migrate reads other memories' tables as import sources: the chat
// histories of langchaingo's sqlite3 and PostgreSQL memories, and Mastra's
// memory tables (LibSQL/SQLite or PostgreSQL). "agentmem import --from"
// imports them as it imports an export.
package migrate

import (
	"strings"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/importer"
)

// The sources NewSource reads (import --from).
const (
	FromLangchaingoSQLite   = "langchaingo-sqlite3"
	FromLangchaingoPostgres = "langchaingo-postgres"
	FromMastra              = "mastra"
)

// Options tunes a source.
type Options struct {
	// Table is langchaingo's table (default langchaingo_messages for
	// sqlite3; required for PostgreSQL).
	Table string
	// Schema is the PostgreSQL schema of the source tables.
	Schema string
	// Resource receives migrated langchaingo threads (default that of the
	// langchaingo adapters).
	Resource string
}

// NewSource returns the source from (one of the From constants) reading arg,
// a file or a PostgreSQL URL. Bad arguments fail with clierr.CodeUsage.
func NewSource(from, arg string, o Options) (*importer.Source, error) {
	switch from {
	case FromLangchaingoSQLite:
		return langchaingoSQLiteSource(arg, o)
	case FromLangchaingoPostgres:
		return langchaingoPostgresSource(arg, o)
	case FromMastra:
		return mastraSource(arg, o)
	}
	return nil, clierr.Usage("--from %q: want %s, %s or %s", from, FromLangchaingoSQLite, FromLangchaingoPostgres, FromMastra)
}

// IsPostgres reports whether db is a PostgreSQL URL rather than a file.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}
