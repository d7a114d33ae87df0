package main

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/migrate"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/embed/openai"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/core/vector/weaviate"
)

// defaultDB is the database used when neither --db nor AGENTMEM_DB is given.
const defaultDB = sqlite.DefaultPath

// connection is an open memory: the Memory over the store, and the semantic
// recall parts when --vector is given. Close releases all of it.
type connection struct {
	Memory *core.Memory
	// Store is the store behind Memory, checked the same way (validation,
	// error classification, optional capabilities).
	Store    *store.Checked
	Vector   vector.Store    // nil without --vector
	Embedder vector.Embedder // nil without --vector or for self-embedding stores
	// Dimension is the embedder's output dimension (0 when unknown).
	Dimension int
	closers   []func() error
	// builds forwards a local --vector's graph build reports to the
	// command's progress bar.
	builds buildWatch
}

// Close closes the memory, the vector store and the store, in that order.
func (c *connection) Close() error {
	var errs []error
	if c.Memory != nil {
		errs = append(errs, c.Memory.Close(context.Background()))
	}
	for i := len(c.closers) - 1; i >= 0; i-- {
		errs = append(errs, c.closers[i]())
	}
	return errors.Join(errs...)
}

// connect opens the store named by f.db (a SQLite file, created only when
// f.write is set, or a postgres:// DSN), the vector store and embedder named by
// f.vector and f.embedder, and a Memory over them with semantic recall on when
// a vector store is given. Other commands (agentmem serve) reuse it.
func connect(ctx context.Context, f globalFlags) (*connection, error) {
	c := &connection{}
	if err := c.openStore(ctx, f); err != nil {
		return nil, err
	}
	if ps, ok := c.Store.Unwrap().(*postgres.Store); ok && f.findPgvector && f.vector == "" {
		found, err := hasPgvector(ctx, ps)
		if err != nil {
			_ = c.Close()
			return nil, memerr.WrapStorage("connect", err)
		}
		if found {
			f.vector = f.db
		}
	}
	if err := c.openVector(ctx, f); err != nil {
		_ = c.Close()
		return nil, err
	}
	opts := core.Options{Store: c.Store.Unwrap(), Vector: c.Vector, Embedder: c.Embedder, EmbeddingDimension: c.Dimension}
	if c.Vector != nil {
		opts.Config.SemanticRecall = &core.SemanticRecall{}
	}
	mem, err := core.New(opts)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	c.Memory = mem
	return c, nil
}

// urlScheme returns the scheme of a value written as scheme://…, and "" for
// anything else (a file name).
func urlScheme(v string) string {
	i := strings.Index(v, "://")
	if i <= 0 || strings.ContainsAny(v[:i], `/\.`) {
		return ""
	}
	return strings.ToLower(v[:i])
}

// checkScheme rejects a flag's URL of a scheme agentmem does not speak, which
// would otherwise be taken for a file name. The value itself is not repeated:
// a DSN may hold a password.
func checkScheme(flag, v, want string, supported ...string) error {
	if sc := urlScheme(v); sc != "" && !slices.Contains(supported, sc) {
		return clierr.Usage("%s: unsupported scheme %s://; give %s", flag, sc, want)
	}
	return nil
}

func (c *connection) openStore(ctx context.Context, f globalFlags) error {
	if err := checkScheme("--db", f.db, "a SQLite file (a path or file: URI) or a postgres:// DSN", "postgres", "postgresql", "file"); err != nil {
		return err
	}
	if migrate.IsPostgres(f.db) {
		s, err := postgres.Open(ctx, f.db, postgres.WithSchema(f.pgSchema))
		if err != nil {
			return err
		}
		c.Store, c.closers = store.Check(s), append(c.closers, s.Close)
		return nil
	}
	if !strings.HasPrefix(f.db, "file:") && f.db != ":memory:" {
		fi, err := os.Stat(f.db)
		switch {
		case err == nil && fi.IsDir():
			return clierr.Usage("--db %q is a directory; give a SQLite file such as %s", f.db, filepath.Join(f.db, defaultDB))
		case err != nil && !f.write:
			return memerr.Errorf(memerr.CodeInvalidArgument, "connect",
				"no SQLite database at %q (give --db or AGENTMEM_DB; a new file is created only with --write)", f.db)
		}
	}
	s, err := sqlite.Open(ctx, f.db)
	if err != nil {
		return err
	}
	c.Store, c.closers = store.Check(s), append(c.closers, s.Close)
	return nil
}

func (c *connection) openVector(ctx context.Context, f globalFlags) error {
	if f.vector == "" {
		return nil
	}
	if err := checkScheme("--vector", f.vector, "a local index file, a postgres:// DSN or a Weaviate address http://host:port",
		"postgres", "postgresql", "http", "https"); err != nil {
		return err
	}
	if migrate.IsPostgres(f.vector) {
		return c.openPgvector(ctx, f)
	}
	if !strings.HasPrefix(f.vector, "http://") && !strings.HasPrefix(f.vector, "https://") {
		if err := checkLocalIndex(f); err != nil {
			return err
		}
		if err := c.openEmbedder(ctx, f); err != nil {
			return err
		}
		s, err := local.OpenWithOptions(f.vector, local.Options{Progress: c.builds.report})
		if err != nil {
			return memerr.Errorf(memerr.CodeVector, "connect", "open local index %q: %v", f.vector, err)
		}
		c.Vector, c.closers = s, append(c.closers, s.Close)
		return nil
	}
	cfg, err := weaviateConfig(f.vector)
	if err != nil {
		return err
	}
	if cfg.Vectorizer != "" && cfg.Vectorizer != "none" {
		// Weaviate embeds the texts itself; an embedder here would be a second,
		// different one.
		if f.embedder != "" && f.embedder != "hash" {
			return clierr.Usage("--vector names vectorizer %s, so Weaviate embeds itself; drop --embedder %s", cfg.Vectorizer, f.embedder)
		}
	} else if err := c.openEmbedder(ctx, f); err != nil {
		return err
	}
	s, err := weaviate.New(ctx, cfg)
	if err != nil {
		return err
	}
	c.Vector, c.closers = s, append(c.closers, s.Close)
	return nil
}

// openPgvector opens the pgvector store of a postgres:// --vector: on the
// message store's pool when it names the same database as --db, else on a
// pool of its own; its tables go to --pg-schema.
func (c *connection) openPgvector(ctx context.Context, f globalFlags) error {
	if err := c.openEmbedder(ctx, f); err != nil {
		return err
	}
	cfg := pgvector.Config{Schema: f.pgSchema}
	if ps, ok := c.Store.Unwrap().(*postgres.Store); ok && f.vector == f.db {
		s, err := pgvector.New(ctx, ps.Pool(), cfg)
		if err != nil {
			return err
		}
		c.Vector = s
		return nil
	}
	s, err := pgvector.Open(ctx, f.vector, cfg)
	if err != nil {
		return err
	}
	c.Vector, c.closers = s, append(c.closers, s.Close)
	return nil
}

// checkLocalIndex fails when a local --vector file does not exist and
// nothing may create it: reading an empty index would only say that the
// index is missing, not which file.
func checkLocalIndex(f globalFlags) error {
	if f.write {
		return nil
	}
	if _, err := os.Stat(f.vector); errors.Is(err, fs.ErrNotExist) {
		return memerr.Errorf(memerr.CodeInvalidArgument, "connect",
			"no vector index at %q (give the index written with the memory, such as memory.vectors beside memory.db; a new one is created only with --write)", f.vector)
	}
	return nil
}

// weaviateConfig reads a Weaviate address
// http(s)://host:port[?grpc=host:port&prefix=P&vectorizer=M&inference-url=U
// &replication=N&async-replication=true&consistency=ONE|QUORUM|ALL].
func weaviateConfig(addr string) (weaviate.Config, error) {
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" {
		return weaviate.Config{}, clierr.Usage("--vector %q is not a Weaviate address http://host:port", addr)
	}
	q := u.Query()
	cfg := weaviate.Config{Host: u.Host, Scheme: u.Scheme, GRPCHost: q.Get("grpc"), ClassPrefix: q.Get("prefix"), Vectorizer: q.Get("vectorizer")}
	if iu := q.Get("inference-url"); iu != "" {
		cfg.ModuleConfig = map[string]any{"inferenceUrl": iu}
	}
	if r := q.Get("replication"); r != "" {
		if cfg.ReplicationFactor, err = strconv.Atoi(r); err != nil {
			return weaviate.Config{}, clierr.Usage("--vector %q: replication=%q is not a number", addr, r)
		}
	}
	cfg.AsyncReplication = q.Get("async-replication") == "true"
	cfg.Consistency = q.Get("consistency") // weaviate.New checks it
	return cfg, nil
}

// openEmbedder opens the hash embedder or an OpenAI-compatible endpoint;
// the endpoint's dimension is probed with one request, because it names the
// index (vector.IndexName) that search and stats read.
func (c *connection) openEmbedder(ctx context.Context, f globalFlags) error {
	if f.embedder == "" || f.embedder == "hash" {
		h := local.NewHashEmbedder(local.DefaultDimension)
		c.Embedder, c.Dimension = h, h.Dimension()
		return nil
	}
	if !strings.HasPrefix(f.embedder, "http://") && !strings.HasPrefix(f.embedder, "https://") {
		return clierr.Usage("--embedder %q: want \"hash\" or an http(s):// URL", f.embedder)
	}
	if f.embedModel == "" {
		return clierr.Usage("--embedder %s needs --embed-model", f.embedder)
	}
	e, err := openai.New(openai.Config{BaseURL: f.embedder, Model: f.embedModel, APIKey: os.Getenv("AGENTMEM_EMBEDDER_KEY")})
	if err != nil {
		return err
	}
	probe, err := e.Embed(ctx, []string{"dimension probe"})
	if err != nil {
		return err
	}
	c.Embedder, c.Dimension = e, len(probe[0])
	return nil
}

// vectorsSuffix names the local vector index kept beside a SQLite database:
// memory.db has its index in memory.vectors, as the quickstart writes it.
const vectorsSuffix = ".vectors"

// besideVectors returns the local index file beside the SQLite database db
// (the database's name with its extension replaced by .vectors) when that
// file exists, and "" otherwise or for PostgreSQL.
func besideVectors(db string) string {
	if db == "" || migrate.IsPostgres(db) || strings.HasPrefix(db, "file:") || db == ":memory:" {
		return ""
	}
	p := strings.TrimSuffix(db, filepath.Ext(db)) + vectorsSuffix
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		return ""
	}
	return p
}

// findVectors fills in --vector with the index beside the database when none
// was given, for the commands that use semantic recall; on PostgreSQL,
// connect looks for agentmem's pgvector tables in the database instead.
func (a *app) findVectors() {
	if a.flags.vector == "" {
		a.flags.vector = besideVectors(a.flags.db)
		a.flags.findPgvector = migrate.IsPostgres(a.flags.db)
	}
}

// hasPgvector reports whether the schema of the PostgreSQL store s holds
// agentmem's pgvector tables (its index catalog), so that --vector may
// default to the same database as SQLite's defaults to the file beside it.
func hasPgvector(ctx context.Context, s *postgres.Store) (bool, error) {
	var found bool
	err := s.Pool().QueryRow(ctx, "SELECT to_regclass(format('%I.vector_indexes', $1::text)) IS NOT NULL", s.Schema()).Scan(&found)
	return found, err
}

// noVectorStore is the error of a command that needs a vector index when
// none was given or found.
func noVectorStore(op string) error {
	return memerr.Errorf(memerr.CodeNoVectorStore, op, "no vector store given or found: give --vector (a local index file, postgres://… with pgvector, or a Weaviate address http://host:port)")
}
