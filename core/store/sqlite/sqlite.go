// Package sqlite is a store.Store on an embedded SQLite database, using the
// pure-Go driver modernc.org/sqlite (no cgo).
//
// The database runs in WAL mode with a busy timeout, foreign keys on and
// synchronous=NORMAL. Every write runs in a BEGIN IMMEDIATE transaction, so
// read-modify-write sections (ownership checks, boundary merges,
// working-memory versions) are atomic even when several processes open the
// same file. The schema is versioned and migrated at Open.
//
// Open(ctx, ":memory:") gives a private in-memory database for tests.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DefaultPath is the database file used by the embedded default setup.
const DefaultPath = "./memory.db"

// Option configures Open.
type Option func(*config)

type config struct {
	busyTimeout time.Duration
	readConns   int
	now         func() time.Time
}

// WithBusyTimeout sets how long a statement waits for another connection's
// lock before failing (default 10s).
func WithBusyTimeout(d time.Duration) Option { return func(c *config) { c.busyTimeout = d } }

// WithReadConns sets the maximum number of pooled read connections (default
// max(4, GOMAXPROCS)). Writes always use one connection per Store.
func WithReadConns(n int) Option { return func(c *config) { c.readConns = n } }

// WithClock sets the clock used for UpdatedAt stamps (default time.Now).
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// Store is a store.Store backed by SQLite. It is safe for concurrent use.
type Store struct {
	w   *sql.DB // writer: one connection, BEGIN IMMEDIATE transactions
	r   *sql.DB // readers; the same as w for in-memory databases
	now func() time.Time

	wstmts  stmtCache // statements prepared on w (see prepared.go)
	rstmts  stmtCache // statements prepared on r
	records store.RecordDecoder
}

var (
	_ store.Store     = (*Store)(nil)
	_ store.BulkSaver = (*Store)(nil)
)

// Open opens (creating if needed) the database at path and migrates its
// schema. path is a file name, a "file:" URI, or ":memory:".
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	cfg := config{busyTimeout: 10 * time.Second, readConns: max(4, runtime.GOMAXPROCS(0)), now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	if path == "" {
		return nil, memerr.Errorf(memerr.CodeInvalidConfig, "Open", "sqlite path must not be empty")
	}
	if cfg.readConns < 1 {
		cfg.readConns = 1
	}
	if err := registerFilterMillis(); err != nil {
		return nil, memerr.WrapStorage("Open", err)
	}
	s := &Store{now: cfg.now}
	var err error
	if s.w, err = sql.Open("sqlite", dsn(path, cfg, true)); err != nil {
		return nil, memerr.WrapStorage("Open", err)
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxLifetime(0)
	s.w.SetConnMaxIdleTime(0)
	if isMemory(path) {
		s.r = s.w
	} else {
		if s.r, err = sql.Open("sqlite", dsn(path, cfg, false)); err != nil {
			s.w.Close()
			return nil, memerr.WrapStorage("Open", err)
		}
		s.r.SetMaxOpenConns(cfg.readConns)
		s.r.SetMaxIdleConns(cfg.readConns)
	}
	s.wstmts.db, s.rstmts.db = s.w, s.r
	if err := migrateRetrying(ctx, s.w, cfg.busyTimeout); err != nil {
		s.Close()
		return nil, memerr.WrapStorage("Open", err)
	}
	return s, nil
}

// migrateRetrying runs migrate, retrying while the database reports busy for
// up to the busy timeout: when several processes open a new file at once,
// SQLite answers the journal-mode switch and the first write lock with
// SQLITE_BUSY without consulting the busy handler.
func migrateRetrying(ctx context.Context, db *sql.DB, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := migrate(ctx, db)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

func isBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

// Close closes the database handles.
func (s *Store) Close() error {
	err := errors.Join(s.wstmts.close(), s.rstmts.close())
	err = errors.Join(err, s.w.Close())
	if s.r != s.w {
		err = errors.Join(err, s.r.Close())
	}
	return memerr.WrapStorage("Close", err)
}

func isMemory(path string) bool {
	return path == ":memory:" || strings.HasPrefix(path, "file::memory:") ||
		(strings.HasPrefix(path, "file:") && strings.Contains(path, "mode=memory"))
}

// dsn builds the modernc DSN. Plain paths containing '?' or '#' are turned
// into escaped file: URIs so that they cannot be mistaken for parameters.
func dsn(path string, cfg config, writer bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", cfg.busyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if !isMemory(path) {
		q.Add("_pragma", "journal_mode(WAL)")
	}
	if writer {
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	if !strings.HasPrefix(path, "file:") && strings.ContainsAny(path, "?#") {
		r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
		path = "file:" + r.Replace(path)
	}
	sep := "?"
	if strings.HasPrefix(path, "file:") && strings.Contains(path, "?") {
		sep = "&"
	}
	return path + sep + q.Encode()
}

// write runs fn in a BEGIN IMMEDIATE transaction on the writer connection.
func (s *Store) write(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return memerr.WrapStorage(op, err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return withOp(op, err)
	}
	return memerr.WrapStorage(op, tx.Commit())
}

// read runs fn in a deferred (snapshot) read transaction.
func (s *Store) read(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return memerr.WrapStorage(op, err)
	}
	defer func() { _ = tx.Rollback() }()
	return withOp(op, fn(tx))
}

// withOp wraps driver errors as storage errors and fills in a missing Op of
// an *memerr.Error (copying it, never mutating shared values).
func withOp(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *memerr.Error
	if errors.As(err, &e) {
		if e.Op == "" {
			c := *e
			c.Op = op
			return &c
		}
		return err
	}
	return memerr.WrapStorage(op, err)
}

// stamp returns the current time at storage precision.
func (s *Store) stamp() int64 { return s.now().UTC().UnixMicro() }

func fromMicro(v int64) time.Time { return time.UnixMicro(v).UTC() }

// floorMicro and ceilMicro map a time to the microsecond grid of stored times.
func floorMicro(t time.Time) int64 { return t.Truncate(time.Microsecond).UnixMicro() }

func ceilMicro(t time.Time) int64 {
	f := t.Truncate(time.Microsecond)
	if f.Equal(t) {
		return f.UnixMicro()
	}
	return f.UnixMicro() + 1
}

type scanner interface{ Scan(dest ...any) error }

// placeholders returns "?, ?, ..." with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// chunk splits ids into slices of at most n, for IN lists.
func chunk(ids []string, n int) [][]string {
	var out [][]string
	for len(ids) > n {
		out = append(out, ids[:n])
		ids = ids[n:]
	}
	if len(ids) > 0 {
		out = append(out, ids)
	}
	return out
}

func anyArgs(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
