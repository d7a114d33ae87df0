// Package postgres is a PostgreSQL implementation of store.Store on pgx/v5.
//
// Open connects with a connection string and owns the pool it creates; New
// uses a *pgxpool.Pool that the caller owns. Either applies the embedded,
// versioned schema migrations once (under a transaction-scoped advisory lock,
// so processes starting at the same time migrate exactly once) into the schema
// chosen with WithSchema ("public" by default). Every table, index and
// function it creates there is named agentmem_*, so that it shares an
// application's schema without taking its names; migration 0010 renames the
// unprefixed tables of earlier versions.
//
// Every invariant of store.Store is enforced by the database, so any number of
// processes may share one schema: SaveMessages is one atomic statement that
// checks thread existence and ownership before writing anything,
// AdvanceBoundary is a single compare-and-set UPDATE that computes
// store.MergeBoundary on the stored JSONB value, and working memory is guarded
// by a version compare-and-set. Each of these is a single statement, so one
// network round trip. Statements that write messages lock the threads
// involved and then the message rows, each in id order, so concurrent saves,
// moves and deletes serialise rather than deadlock; a statement that the
// server nevertheless aborts as a whole (deadlock, serialization failure, or
// a message moved under it) had no effect and is run again, a few times at
// most and never past the context's deadline.
//
// Times are stored as timestamptz in UTC with microsecond precision. Message
// content is stored as the JSON text of message.MarshalStored (raw JSON fields
// such as tool arguments come back compacted); thread and resource metadata
// are JSONB, whose object keys come back in JSONB's order. Other text
// containing NUL characters cannot be stored (ErrInvalidMessage /
// ErrInvalidArgument); store.Checked refuses NUL everywhere. Id columns
// use COLLATE "C" whatever the database's default collation: ids order as
// bytes, as in the other stores, and their indexes compare without the
// locale (migration 0007, which rebuilds those indexes once on an existing
// install).
//
// The pool may use any of pgx's query exec modes. With the default
// (QueryExecModeCacheStatement) the store's statements are prepared once per
// connection; with another mode, such as default_query_exec_mode=exec in the
// connection string (as for a transaction-pooling proxy), nothing is
// prepared and every statement is sent unnamed. The conformance suite runs
// under the default, QueryExecModeExec and QueryExecModeSimpleProtocol.
//
// Errors are *memerr.Error values. Driver and connection failures match
// errors.Is(err, memerr.ErrStorage) and keep the pgx error reachable through
// errors.As. Those that a later attempt may not meet (a lost or refused
// connection, a server shutting down or starting up (SQLSTATE 57P01 to
// 57P03), another connection exception (class 08), a read-only server
// reached during a failover (25006)) have the code
// memerr.CodeStorageUnavailable: the statement may or may not have been
// applied, and running the operation again is safe.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core/internal/pgconnect"
	"github.com/agentmem/agentmem/core/internal/pgident"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultSchema is the schema used when WithSchema is not given.
const DefaultSchema = "public"

// Store is a store.Store backed by PostgreSQL. It is safe for concurrent use.
type Store struct {
	pool   *pgxpool.Pool
	owned  bool
	schema string
	q      queries
	// tracer is the pool's query tracer and prepares whether the pool caches
	// prepared statements: exec sends statements past pgx.Conn and
	// honours both as pgx would.
	tracer   pgx.QueryTracer
	prepares bool
	// db is the identity of the database and role (pgident); "" if unread.
	db string
	// records decodes the buffers of observation records read.
	records store.RecordDecoder

	closeOnce sync.Once
}

var (
	_ store.Store = (*Store)(nil)
)

// Option configures Open and New.
type Option func(*config)

type config struct {
	schema string
}

// WithSchema selects the schema that holds the tables (created if missing).
// The name is used as a quoted identifier, so it is case-sensitive and may
// contain any character but NUL; at most 63 bytes.
func WithSchema(name string) Option {
	return func(c *config) { c.schema = name }
}

// Open connects to PostgreSQL with a pgx connection string (URL or key=value
// form), migrates the schema and returns a Store that closes its pool on Close.
func Open(ctx context.Context, connString string, opts ...Option) (*Store, error) {
	const op = "postgres.Open"
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, &memerr.Error{Code: memerr.CodeInvalidConfig, Op: op, Msg: "invalid connection string", Err: err}
	}
	// On a cancelled context, ask the server to cancel the running statement
	// (instead of only dropping the connection while the server carries on).
	cfg.ConnConfig.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: time.Second}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, memerr.WrapStorage(op, err)
	}
	s, err := newStore(ctx, pool, op, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// New returns a Store on an existing pool, migrating the schema first. The
// pool stays owned by the caller: Close does not close it.
//
// pgx's default reaction to a cancelled context is to drop the connection,
// which leaves a statement that is waiting for a lock running on the server
// (it may still commit). Open configures cancel requests instead; for the
// same behaviour here, set the pool's ConnConfig.BuildContextWatcherHandler
// to return a *pgconn.CancelRequestContextWatcherHandler.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	return newStore(ctx, pool, "postgres.New", opts)
}

// newStore is New, reporting its failures under op (the caller's name).
func newStore(ctx context.Context, pool *pgxpool.Pool, op string, opts []Option) (*Store, error) {
	if pool == nil {
		return nil, memerr.Errorf(memerr.CodeInvalidConfig, op, "nil pool")
	}
	c := config{schema: DefaultSchema}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.schema == "" || len(c.schema) > 63 || !utf8.ValidString(c.schema) || strings.IndexByte(c.schema, 0) >= 0 {
		return nil, memerr.Errorf(memerr.CodeInvalidConfig, op, "schema name must be 1 to 63 bytes of UTF-8 without NUL")
	}
	s := &Store{pool: pool, schema: c.schema}
	cc := pool.Config().ConnConfig
	s.tracer = cc.Tracer
	s.prepares = cc.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement
	s.q = buildQueries(quoteIdent(c.schema))
	if err := pgconnect.Ping(ctx, pool, op, memerr.CodeStorage); err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	s.db, _ = pgident.Of(ctx, pool) // without it, Database is the pool
	return s, nil
}

// Pool returns the connection pool the store uses.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Schema returns the name of the schema holding the store's tables.
func (s *Store) Schema() string { return s.schema }

// Close closes the pool if Open created it; a pool given to New is left open.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.owned {
			s.pool.Close()
		}
	})
	return nil
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(name string) string { return pgx.Identifier{name}.Sanitize() }

// withSchema replaces the {{schema}} placeholder of a statement template by
// the quoted schema name. The name comes from configuration, never from data.
func withSchema(tmpl, quoted string) string {
	return strings.ReplaceAll(tmpl, "{{schema}}", quoted)
}

// now is the store's clock: UTC with microsecond precision, like timestamptz.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// utc normalises a time to what timestamptz stores.
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// wrap turns a driver error into a *memerr.Error. When ctx is done the context's error is kept in the chain, so that
// errors.Is(err, context.DeadlineExceeded) holds even when the server
// answered the cancel request with its own error.
func wrap(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		err = fmt.Errorf("%w: %w", cerr, err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "22P05" || pgErr.Code == "22021") {
		// Text PostgreSQL cannot store, such as NUL characters (also \u0000 in jsonb).
		code := memerr.CodeInvalidArgument
		if op == "SaveMessages" {
			code = memerr.CodeInvalidMessage
		}
		return &memerr.Error{Code: code, Op: op, Msg: "value cannot be stored by PostgreSQL", Err: err}
	}
	if ctx.Err() == nil && pgconnect.Unavailable(err) {
		return &memerr.Error{Code: memerr.CodeStorageUnavailable, Op: op, Msg: "database unavailable (connection lost, server restarting or read-only); retry", Err: err}
	}
	return memerr.WrapStorage(op, err)
}

// unconfirmed reports a write that returned after its context ended as
// failed with the context's code, even when the server answered success:
// with synchronous replication, PostgreSQL answers the cancel request sent
// for an ended context, while the commit waits for the standby, with a
// warning and a success. Such a transaction is committed on the primary
// alone and is lost if the standby takes over. Running the write again is
// safe.
func unconfirmed(ctx context.Context, op string, err *error) {
	if *err == nil && ctx.Err() != nil {
		*err = &memerr.Error{Code: memerr.Context(op, ctx.Err()).Code, Op: op,
			Msg: "context ended before the write was confirmed; it may or may not be stored", Err: ctx.Err()}
	}
}

// errStale reports that a statement found, under its row locks, data newer
// than its snapshot (a message moved to a thread it had not locked), wrote
// nothing and must run again with a fresh snapshot.
var errStale = errors.New("postgres: concurrent move; statement must be retried")

// maxAttempts bounds how often retry runs a statement.
const maxAttempts = 10

// retryable reports whether err aborted a statement as a whole (so it had no
// effect) for a reason that running it again may cure: a stale snapshot, a
// deadlock or a serialization failure.
func retryable(err error) bool {
	if errors.Is(err, errStale) {
		return true
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch {
	case pgErr.Code == "40P01", pgErr.Code == "40001":
		return true
	case pgErr.Code == "23505" && pgErr.ConstraintName == "agentmem_messages_pkey":
		// A save inserted an id stored after its check or locks.
		return true
	}
	return false
}

// retry runs fn, one atomic statement, again after a retryable failure, with
// a short jittered backoff, at most maxAttempts times and never past ctx.
func retry(ctx context.Context, fn func() error) error {
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || attempt == maxAttempts || !retryable(err) {
			return err
		}
		wait := time.Duration(attempt)*time.Millisecond + time.Duration(rand.Int64N(int64(2*time.Millisecond)))
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return err
		case <-timer.C:
		}
	}
}

// withOp returns a copy of a sentinel-like error carrying an operation name.
func withOp(code memerr.Code, op, msg string) error {
	return &memerr.Error{Code: code, Op: op, Msg: msg}
}

// opError sets the operation on a validation error returned by core helpers.
func opError(op string, err error) error {
	var e *memerr.Error
	if errors.As(err, &e) && e.Op == "" {
		c := *e
		c.Op = op
		return &c
	}
	return err
}

// queries are the store's statements with the schema filled in.
type queries struct {
	threads, messages, resources string // qualified table names

	saveThread, createThread, getThread, updateThread, deleteThread string
	deleteThreadObservations                                        string
	saveMessages, getMessages, deleteMessages                       string
	saveNewMessages, saveOneMessage                                 string
	saveNewJoint, saveOneJoint                                      string
	getResource, updateResource, listResources                      string
	getThreadWM, getResourceWM                                      string
	putThreadWM, putResourceWM                                      string
	advanceBoundary, lockThreadUpdate, firstUnseen                  string

	listResourceAsc, listResourceDesc                     string
	getObservations, lockThread, lockObservations         string
	ensureResource                                        string
	archiveObservations, putObservations, listGenerations string
	clearObservations, clearGenerations                   string

	markUnindexed, clearUnindexed, listUnindexed string
}

func buildQueries(schema string) queries {
	f := func(tmpl string) string { return withSchema(tmpl, schema) }
	return queries{
		threads:   f("{{schema}}.agentmem_threads"),
		messages:  f("{{schema}}.agentmem_messages"),
		resources: f("{{schema}}.agentmem_resources"),

		saveThread:               f(saveThreadSQL),
		createThread:             f(createThreadSQL),
		getThread:                f(getThreadSQL),
		updateThread:             f(updateThreadSQL),
		deleteThread:             f(deleteThreadSQL),
		deleteThreadObservations: f(deleteThreadObservationsSQL),
		saveMessages:             f(saveMessagesSQL),
		saveNewMessages:          f(saveNewMessagesSQL),
		saveOneMessage:           f(saveOneMessageSQL),
		saveNewJoint:             f(jointSQL(saveNewMessagesSQL)),
		saveOneJoint:             f(jointSQL(saveOneMessageSQL)),
		getMessages:              f(getMessagesSQL),
		deleteMessages:           f(deleteMessagesSQL),
		getResource:              f(getResourceSQL),
		listResources:            f(listResourcesSQL),
		updateResource:           f(updateResourceSQL),
		getThreadWM:              f(getThreadWMSQL),
		getResourceWM:            f(getResourceWMSQL),
		putThreadWM:              f(putThreadWMSQL),
		putResourceWM:            f(putResourceWMSQL),
		advanceBoundary:          f(advanceBoundarySQL),
		lockThreadUpdate:         f(lockThreadUpdateSQL),
		firstUnseen:              f(firstUnseenSQL),

		listResourceAsc:     f(strings.ReplaceAll(listResourceSQL, "DIR", "ASC")),
		listResourceDesc:    f(strings.ReplaceAll(listResourceSQL, "DIR", "DESC")),
		getObservations:     f(getObservationsSQL),
		lockThread:          f(lockThreadSQL),
		lockObservations:    f(lockObservationsSQL),
		ensureResource:      f(ensureResourceSQL),
		archiveObservations: f(archiveObservationsSQL),
		putObservations:     f(putObservationsSQL),
		listGenerations:     f(listGenerationsSQL),
		clearObservations:   f(clearObservationsSQL),
		clearGenerations:    f(clearGenerationsSQL),

		markUnindexed:  f(markUnindexedSQL),
		clearUnindexed: f(clearUnindexedSQL),
		listUnindexed:  f(listUnindexedSQL),
	}
}
