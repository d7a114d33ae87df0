// Package pgmigrate applies the embedded, versioned schema migrations of the
// PostgreSQL stores (the message store and the pgvector store): each in one
// transaction under a transaction-scoped advisory lock, so that processes
// starting together migrate a schema once.
package pgmigrate

import (
	"context"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Migration is one versioned schema change.
type Migration struct {
	Version int64
	Name    string // the file name without ".sql"
	SQL     string
}

// Load returns the migrations in dir of fsys, ordered by version. A file is
// named NNNN_description.sql; versions are positive and unique; other
// entries are ignored.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	seen := map[int64]bool{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		prefix, _, ok := strings.Cut(name, "_")
		v, err := strconv.ParseInt(prefix, 10, 64)
		if !ok || err != nil || v <= 0 || seen[v] {
			return nil, fmt.Errorf("migration %s: name must be NNNN_description.sql with a unique version", name)
		}
		seen[v] = true
		body, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: strings.TrimSuffix(name, ".sql"), SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Target is where a package's migrations go.
type Target struct {
	// Schema holds the tables; Quoted is it quoted as an identifier.
	Schema, Quoted string
	// Lock names the package's advisory lock (with Schema, hashed).
	Lock string
	// Table records the applied versions, in Schema.
	Table string
	// Expand returns a migration's SQL with its placeholders ({{schema}})
	// filled in.
	Expand func(Migration) string
	// Prepare, when set, runs under the lock before the applied versions
	// are read (to adopt what an earlier version of the package created).
	Prepare func(context.Context, pgx.Tx) error
}

// LockKey is the advisory lock key of lock in schema.
func LockKey(lock, schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte(lock + "\x00" + schema))
	return int64(h.Sum64())
}

// Apply creates t's schema when missing and applies the migrations of ms
// not yet recorded in t.Table, in one transaction under t's advisory lock.
func Apply(ctx context.Context, db interface {
	Begin(context.Context) (pgx.Tx, error)
}, t Target, ms []Migration) error {
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", LockKey(t.Lock, t.Schema)); err != nil {
			return err
		}
		// CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the
		// database even when the schema exists.
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", t.Schema).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA "+t.Quoted); err != nil {
				return err
			}
		}
		if t.Prepare != nil {
			if err := t.Prepare(ctx, tx); err != nil {
				return err
			}
		}
		// A schema that is up to date gets no statement that writes, so that
		// a read-only server (a standby) opens it too.
		table := t.Quoted + "." + pgx.Identifier{t.Table}.Sanitize()
		var have bool
		if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&have); err != nil {
			return err
		}
		if !have {
			if _, err := tx.Exec(ctx, `CREATE TABLE `+table+` (
	version    bigint      PRIMARY KEY,
	name       text        NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, "SELECT version FROM "+table)
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
			if done[m.Version] {
				continue
			}
			if _, err := tx.Exec(ctx, t.Expand(m)); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO "+table+" (version, name) VALUES ($1, $2)", m.Version, m.Name); err != nil {
				return err
			}
		}
		return nil
	})
}
