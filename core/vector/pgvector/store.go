// Package pgvector is a vector.Store on PostgreSQL with the pgvector
// extension (pgx/v5 and pgvector-go), so that messages and their vectors can
// live in one database.
//
// New uses a *pgxpool.Pool the caller owns (for instance the one of
// core/store/postgres); Open connects with a connection string and closes its
// pool on Close. Either creates the extension when it is missing and the role
// may (CREATE EXTENSION IF NOT EXISTS vector; otherwise ErrNoExtension) and
// applies the package's migrations under a transaction-scoped advisory lock,
// as the message store does.
//
// Each index is one table, vectors_<index>, with one row per record: the
// resource, thread and message ids, role, creation time, the analyzed
// keywords as a tsvector (lexemes exactly as the analyzer made them, with
// their positions, so no text search configuration is applied) and the
// vector, of type vector(d), or halfvec(d) for 2,000 < d ≤ 4,000 (the
// largest vector an index accepts is 2,000 dimensions, a halfvec 4,000). A
// table vector_indexes records every index's dimension, configuration and
// version; vector_resources records per resource its version and its number
// of records and keywords (the BM25 statistics and the choice between exact
// and approximate search).
//
// IndexConfig.Type selects the approximate index: "hnsw" (default; m and
// ef_construction from IndexConfig.HNSW, ef_search per query from TopK),
// "ivfflat" (IndexConfig.IVFFlat.Lists; the index is built by EnsureIndex or
// Reindex once the table holds enough rows for its centroids, and until then
// the table is searched exactly) or "flat" (no approximate index). Metric
// "cosine", "dotproduct" or "euclidean" selects the operator class.
//
// Every statement is scoped by resource (and thread), through a b-tree on
// (resource_id, thread_id). A resource that holds few records compared with
// the table is searched exactly (its rows are read through the b-tree and
// sorted); a larger one through the approximate index with iterative index
// scans (pgvector 0.8), so that the resource filter does not starve the
// result. Keyword search is BM25 (k1 1.2, b 0.75) over the GIN-indexed
// tsvector; hybrid search fuses the two rankings as package local does
// (relativeScoreFusion, vector.KeywordTerms).
//
// Store is a vector.StatementWriter: on the pool of a core/store/postgres
// store (New with its Pool), core.Memory writes new messages and their
// vectors in one transaction, one round trip (UpsertStatements).
package pgvector

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentmem/agentmem/core/internal/pg/connect"
	"github.com/agentmem/agentmem/core/internal/pg/ident"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/internal/termsample"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultTopK is the number of hits a query with TopK <= 0 returns.
const DefaultTopK = 10

// DefaultSchema is the schema of the tables when Config.Schema is empty.
const DefaultSchema = "public"

// ErrNoExtension is the cause (errors.Is) of the error New returns when the
// server has no pgvector extension, or the role may not create it.
var ErrNoExtension = errors.New(`PostgreSQL extension "vector" (pgvector) is missing from the database`)

// Config configures a Store. The zero value is the default.
type Config struct {
	// Schema holds the tables (created if missing; default "public").
	Schema string
	// ExactBelow is the number of records of a resource below which it is
	// always searched exactly; 0 means DefaultExactBelow. A negative value
	// searches every resource through the approximate index when there is
	// one (for tests and measurements).
	ExactBelow int
	// EfSearch is hnsw.ef_search for a query of k hits; 0 means
	// max(DefaultEfSearch, 2·k).
	EfSearch int
	// BuildMemory is the maintenance_work_mem of the store's index builds
	// (EnsureIndex, Reindex, UpsertBulk), e.g. "1GB"; "" keeps the server's.
	// pgvector builds an HNSW graph several times faster when it fits (about
	// 1.6 KB per 384-dimension vector at m 16).
	BuildMemory string
}

// DefaultExactBelow is Config.ExactBelow's default.
const DefaultExactBelow = 2000

// DefaultEfSearch is the smallest hnsw.ef_search of a query.
const DefaultEfSearch = 64

// Store is the pgvector vector store; it is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	owned   bool
	cfg     Config
	schema  string
	qschema string
	// iterative reports whether the server's pgvector has iterative index
	// scans (0.8 and later).
	iterative bool
	// extVersion is the server's pgvector version.
	extVersion string
	tables     tables
	// loads counts the DeferIndex loads under way per index.
	loads struct {
		sync.Mutex
		n map[string]int
	}
	// samples caches the resources' term samples of hybrid queries.
	samples *termsample.Cache
	// db is the identity of the database and role (package pg/ident); "" if unread.
	db string
}

var _ vector.Store = (*Store)(nil)

// Open connects with a pgx connection string (URL or key=value form) and
// returns a Store that closes its pool on Close.
func Open(ctx context.Context, connString string, cfg Config) (*Store, error) {
	pc, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, &memerr.Error{Code: memerr.CodeInvalidConfig, Op: "pgvector.Open", Msg: "invalid connection string", Err: err}
	}
	// A cancelled context asks the server to cancel the statement, instead of
	// only dropping the connection while the server carries on.
	pc.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: time.Second}
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, vector.Fail("pgvector.Open", "connect", err)
	}
	s, err := New(ctx, pool, cfg)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// New returns a Store on pool, which stays the caller's (Close leaves it
// open): it checks the extension and migrates the schema.
func New(ctx context.Context, pool *pgxpool.Pool, cfg Config) (*Store, error) {
	const op = "New"
	if pool == nil {
		return nil, &memerr.Error{Code: memerr.CodeInvalidConfig, Op: "pgvector.New", Msg: "nil pool"}
	}
	if cfg.Schema == "" {
		cfg.Schema = DefaultSchema
	}
	if strings.ContainsRune(cfg.Schema, 0) || len(cfg.Schema) > 63 {
		return nil, &memerr.Error{Code: memerr.CodeInvalidConfig, Op: "pgvector.New", Msg: "schema name must be 1-63 bytes without NUL"}
	}
	if cfg.ExactBelow == 0 {
		cfg.ExactBelow = DefaultExactBelow
	}
	s := &Store{pool: pool, cfg: cfg, schema: cfg.Schema, qschema: quoteIdent(cfg.Schema),
		samples: &termsample.Cache{TTL: sampleTTL, Max: maxSamples}}
	if err := connect.Ping(ctx, pool, "pgvector."+op, memerr.CodeVector); err != nil {
		return nil, err
	}
	if err := s.extension(ctx); err != nil {
		return nil, err
	}
	if cfg.BuildMemory != "" {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "SELECT set_config('maintenance_work_mem', $1, true)", cfg.BuildMemory)
			return err
		})
		if err != nil {
			return nil, &memerr.Error{Code: memerr.CodeInvalidConfig, Op: "pgvector.New", Msg: "BuildMemory " + strconv.Quote(cfg.BuildMemory) + " is not a maintenance_work_mem value", Err: err}
		}
	}
	if err := s.migrate(ctx); err != nil {
		return nil, vector.Fail("pgvector."+op, "migrate", err)
	}
	s.db, _ = ident.Of(ctx, pool) // without it, Database is the pool
	return s, nil
}

// extension creates the vector extension when it is missing and reads its
// version.
func (s *Store) extension(ctx context.Context) error {
	const op = "New"
	version, err := s.extensionVersion(ctx)
	if err != nil {
		return vector.Fail("pgvector."+op, "read installed extensions", err)
	}
	if version == "" {
		_, cerr := s.pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector")
		if version, err = s.extensionVersion(ctx); err != nil {
			return vector.Fail("pgvector."+op, "read installed extensions", err)
		}
		if version == "" {
			return s.noExtension(ctx, cerr)
		}
	}
	s.extVersion = version
	s.iterative = !versionBelow(version, 0, 8)
	return nil
}

// noExtension is the error of a database without the vector extension that
// this role could not create (refusal is the server's answer): the server
// lacks pgvector, or has it and the role is no superuser (pgvector's control
// file does not mark it trusted, so CREATE on the database is not enough).
func (s *Store) noExtension(ctx context.Context, refusal error) error {
	var available bool
	var db, role string
	_ = s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector'),
	current_database(), current_user`).Scan(&available, &db, &role)
	msg := `the server has no extension "vector" (pgvector): install it (Debian/Ubuntu: postgresql-NN-pgvector, or build it from source), then run CREATE EXTENSION vector in the database`
	if available {
		msg = fmt.Sprintf(`extension "vector" (pgvector) is installed on the server but not created in database %q, and role %q may not create it: run CREATE EXTENSION vector in that database as a superuser`, db, role)
	}
	return &memerr.Error{Code: memerr.CodeInvalidConfig, Op: "pgvector.New", Msg: msg, Err: extensionRefusal{refusal}}
}

// extensionRefusal is the cause of a missing extension: errors.Is finds
// ErrNoExtension and the server's refusal; its text is the refusal's alone,
// which the message around it explains.
type extensionRefusal struct{ refusal error }

func (e extensionRefusal) Error() string {
	if e.refusal == nil {
		return ErrNoExtension.Error()
	}
	return e.refusal.Error()
}

func (e extensionRefusal) Unwrap() []error {
	if e.refusal == nil {
		return []error{ErrNoExtension}
	}
	return []error{ErrNoExtension, e.refusal}
}

func (s *Store) extensionVersion(ctx context.Context) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// versionBelow reports whether the dotted version v is below major.minor.
func versionBelow(v string, major, minor int) bool {
	var a, b int
	parts := strings.SplitN(v, ".", 3)
	if len(parts) >= 1 {
		a = atoi(parts[0])
	}
	if len(parts) >= 2 {
		b = atoi(parts[1])
	}
	return a < major || a == major && b < minor
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// Pool returns the store's pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// ExtensionVersion returns the server's pgvector version.
func (s *Store) ExtensionVersion() string { return s.extVersion }

// Close closes the pool when Open created it.
func (s *Store) Close() error {
	if s.owned {
		s.pool.Close()
	}
	return nil
}

// IndexNames implements vector.IndexLister.
func (s *Store) IndexNames(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, s.sql("SELECT name FROM {{schema}}.vector_indexes"))
	if err != nil {
		return nil, vector.Fail("pgvector.IndexNames", "list indexes", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, vector.Fail("pgvector.IndexNames", "list indexes", err)
	}
	return names, nil
}

// SelfEmbedding reports false: records and queries carry vectors.
func (s *Store) SelfEmbedding() bool { return false }

// SearchModes lists the supported Query modes.
func (s *Store) SearchModes() []string {
	return []string{vector.SearchVector, vector.SearchBM25, vector.SearchHybrid}
}

// sql replaces {{schema}} by the quoted schema.
func (s *Store) sql(q string) string { return strings.ReplaceAll(q, "{{schema}}", s.qschema) }

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Schema returns the schema of the store's tables.
func (s *Store) Schema() string { return s.schema }
