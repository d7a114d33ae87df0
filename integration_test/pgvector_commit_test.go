package integration_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/internal/testenv"
)

// roundTrips counts network round trips on a pool's connections: a write
// after a read (or the first write) starts one. The stores send some
// statements through pgconn, below pgx's tracer, so the socket is what is
// counted. A delay, when set before the pool connects, is waited before
// each round trip, as a network between client and server would add it.
type roundTrips struct {
	n     atomic.Int64
	delay time.Duration
}

type tripConn struct {
	net.Conn
	trips   *roundTrips
	mu      sync.Mutex
	writing bool
}

func (c *tripConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	start := !c.writing
	if start {
		c.writing = true
		c.trips.n.Add(1)
	}
	c.mu.Unlock()
	if start && c.trips.delay > 0 {
		time.Sleep(c.trips.delay)
	}
	return c.Conn.Write(p)
}

func (c *tripConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	c.writing = false
	c.mu.Unlock()
	return c.Conn.Read(p)
}

// statementLog is a pgx tracer that records the statements it sees: a
// batch as one entry listing its statements.
type statementLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *statementLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, s)
}

func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.entries
	l.entries = nil
	return out
}

func (l *statementLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.add("query: " + firstLine(d.SQL))
	return ctx
}
func (l *statementLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (l *statementLog) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var sqls []string
	for _, q := range d.Batch.QueuedQueries {
		sqls = append(sqls, firstLine(q.SQL))
	}
	l.add("batch: " + strings.Join(sqls, " | "))
	return ctx
}
func (l *statementLog) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (l *statementLog) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

func firstLine(sql string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(sql), "\n")
	return line
}

// hangingEmbedder is sp's embedder, waiting for the context to end while
// sp.hang is set.
type hangingEmbedder struct{ sp *sharedPool }

func (h hangingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if h.sp.hang.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return h.sp.emb.Embed(ctx, texts)
}

// warnings records the errors of the warnings a Memory logs.
type warnings struct {
	mu   sync.Mutex
	errs []error
}

func (w *warnings) Enabled(context.Context, slog.Level) bool { return true }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && r.Level >= slog.LevelWarn {
			w.mu.Lock()
			w.errs = append(w.errs, err)
			w.mu.Unlock()
		}
		return true
	})
	return nil
}
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

func (w *warnings) has(target error) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, err := range w.errs {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// sharedPool is a Memory whose message store and pgvector store share one
// pool, with its round trips counted and its statements logged.
type sharedPool struct {
	mem    *core.Memory
	ms     *postgres.Store
	vs     *pgvector.Store
	emb    *flakyEmbedder
	hang   atomic.Bool // embedding waits for its context to end
	trips  *roundTrips
	log    *statementLog
	warned *warnings
	ids    atomic.Int64
	// commitEmbeds is the embedder calls of the last commit's Commit.
	commitEmbeds int64
}

// message is a new message with an id of its own.
func (sp *sharedPool) message(role core.Role, text string) core.Message {
	m := core.NewMessage(role, text)
	m.ID = fmt.Sprintf("m%03d", sp.ids.Add(1))
	return m
}

func openSharedPool(t testing.TB, hideJoint bool, mode pgx.QueryExecMode) *sharedPool {
	return openSharedPoolDelayed(t, hideJoint, mode, 0)
}

// openSharedPoolDelayed is openSharedPool with delay added to each round
// trip (see roundTrips).
func openSharedPoolDelayed(t testing.TB, hideJoint bool, mode pgx.QueryExecMode, delay time.Duration) *sharedPool {
	return openPools(t, hideJoint, mode, delay, false)
}

// openPools is openSharedPoolDelayed, with pgvector on a pool of its own
// (the same database, role and counted round trips) when twoPools is set.
func openPools(t testing.TB, hideJoint bool, mode pgx.QueryExecMode, delay time.Duration, twoPools bool) *sharedPool {
	t.Helper()
	sp := &sharedPool{trips: &roundTrips{delay: delay}, log: &statementLog{}, warned: &warnings{},
		emb: &flakyEmbedder{dim: 384}}
	var d net.Dialer
	configure := func(cfg *pgxpool.Config) {
		cfg.ConnConfig.Tracer = sp.log
		cfg.ConnConfig.DefaultQueryExecMode = mode
		cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
		cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &tripConn{Conn: c, trips: sp.trips}, nil
		}
	}
	sp.ms = openPGWith(t, configure)
	pool := sp.ms.Pool()
	if twoPools {
		cfg, err := pgxpool.ParseConfig(testenv.Postgres(t))
		if err != nil {
			t.Fatal(err)
		}
		configure(cfg)
		if pool, err = pgxpool.NewWithConfig(bg, cfg); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
	}
	var err error
	if sp.vs, err = pgvector.New(bg, pool, pgvector.Config{Schema: sp.ms.Schema()}); err != nil {
		t.Fatal(err)
	}
	var vs vector.Store = sp.vs
	if hideJoint {
		vs = struct{ vector.Store }{sp.vs} // the two-step path on the same pool
	}
	sp.mem, err = core.New(core.Options{Store: sp.ms, Vector: vs, Embedder: hangingEmbedder{sp}, EmbeddingDimension: 384,
		Logger: slog.New(sp.warned),
		Config: core.Config{LastMessages: core.LastN(10), SemanticRecall: &core.SemanticRecall{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.mem.CreateThread(bg, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	return sp
}

// commit runs one turn and waits for its background work; it returns the
// ids of the turn's messages and the round trips of Commit and that work.
func (sp *sharedPool) commit(t testing.TB, input, answer string) ([]string, int64, error) {
	t.Helper()
	in, out := sp.message(core.RoleUser, input), sp.message(core.RoleAssistant, answer)
	tr, err := sp.mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
	if err != nil {
		t.Fatal(err)
	}
	sp.log.take()
	before, calls := sp.trips.n.Load(), sp.emb.calls.Load()
	err = tr.Commit(bg, []core.Message{out})
	if cerr := sp.mem.Close(bg); cerr != nil { // waits for the background retry
		t.Fatal(cerr)
	}
	sp.commitEmbeds = sp.emb.calls.Load() - calls
	return []string{in.ID, out.ID}, sp.trips.n.Load() - before, err
}

// stored counts the messages and vector records of ids, and checks that
// the resource's recorded counts are its table's.
func (sp *sharedPool) stored(t *testing.T, ids []string) (msgs, vecs int) {
	t.Helper()
	schema := pgx.Identifier{sp.ms.Schema()}.Sanitize()
	if err := sp.ms.Pool().QueryRow(bg, "SELECT count(*) FROM "+schema+".agentmem_messages WHERE id = ANY($1)", ids).Scan(&msgs); err != nil {
		t.Fatal(err)
	}
	table := schema + "." + pgx.Identifier{"vectors_" + vector.IndexName(384)}.Sanitize()
	var exists bool
	if err := sp.ms.Pool().QueryRow(bg, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&exists); err != nil || !exists {
		return msgs, 0 // no index yet
	}
	var records, terms, rows, rowTerms int64
	err := sp.ms.Pool().QueryRow(bg, `SELECT
	(SELECT count(*) FROM `+table+` WHERE message_id = ANY($1)),
	(SELECT coalesce(sum(records), 0) FROM `+schema+`.vector_resources WHERE resource_id = 'r'),
	(SELECT coalesce(sum(terms), 0) FROM `+schema+`.vector_resources WHERE resource_id = 'r'),
	(SELECT count(*) FROM `+table+` WHERE resource_id = 'r'),
	(SELECT coalesce(sum(terms), 0) FROM `+table+` WHERE resource_id = 'r')`, ids).
		Scan(&vecs, &records, &terms, &rows, &rowTerms)
	if err != nil {
		t.Fatal(err)
	}
	if records != rows || terms != rowTerms {
		t.Fatalf("resource counts %d records, %d terms; its table holds %d, %d", records, terms, rows, rowTerms)
	}
	return msgs, vecs
}

func (sp *sharedPool) unindexed(t *testing.T) int {
	t.Helper()
	n, err := sp.mem.Unindexed(bg, "r")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// With the message store and pgvector on one pool, Commit writes the
// turn's messages and their vectors in one transaction: one round trip,
// whether the pool prepares statements or not (as for a transaction-pooling
// proxy).
func TestPgvectorCommitOneRoundTrip(t *testing.T) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec} {
		t.Run(mode.String(), func(t *testing.T) { testPgvectorCommitOneRoundTrip(t, openSharedPool(t, false, mode)) })
	}
}

// Two pools on one database as one role (Mastra's PostgresStore and PgVector
// given one connection string; here pgvector.Open with the message store's
// DSN) write in one transaction too.
func TestPgvectorCommitOneRoundTripTwoPools(t *testing.T) {
	testPgvectorCommitOneRoundTrip(t, openPools(t, false, pgx.QueryExecModeCacheStatement, 0, true))
}

func testPgvectorCommitOneRoundTrip(t *testing.T, sp *sharedPool) {
	for i := 0; i < 3; i++ { // prepares the statements, ensures the index, checks the queue once
		if _, _, err := sp.commit(t, fmt.Sprintf("warm-up question %d", i), "warm-up answer"); err != nil {
			t.Fatal(err)
		}
	}
	ids, trips, err := sp.commit(t, "what did we decide about the budget?", "We cut travel by ten percent.")
	if err != nil {
		t.Fatal(err)
	}
	statements := sp.log.take()
	for _, s := range statements {
		t.Log(s)
	}
	if trips != 1 {
		t.Fatalf("Commit: %d round trips, want 1; statements: %q", trips, statements)
	}
	if len(statements) != 1 || !strings.HasPrefix(statements[0], "batch: WITH thr AS") || strings.Count(statements[0], " | ") != 3 {
		t.Fatalf("statements %q, want one batch: the messages' insert and the vector writes", statements)
	}
	if msgs, vecs := sp.stored(t, ids); msgs != 2 || vecs != 2 {
		t.Fatalf("stored %d messages, %d vectors; want 2 and 2", msgs, vecs)
	}
	if n := sp.unindexed(t); n != 0 {
		t.Fatalf("%d unindexed messages", n)
	}
	q, err := sp.emb.Embed(bg, []string{"We cut travel by ten percent."})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := sp.vs.Query(bg, vector.IndexName(384), vector.Query{Vector: q[0], TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Meta.MessageID != ids[1] {
		t.Fatalf("hits %+v, want the answer %s", hits, ids[1])
	}
}

// Memory.SaveMessages takes the same path: its messages and their vectors
// are written together, with no unindexed marker.
func TestPgvectorSaveMessagesJoint(t *testing.T) {
	sp := openSharedPool(t, false, pgx.QueryExecModeCacheStatement)
	batch := []core.Message{sp.message(core.RoleUser, "the budget is due friday"), sp.message(core.RoleAssistant, "noted, friday")}
	for i := range batch {
		batch[i].ThreadID, batch[i].ResourceID = "t", "r"
	}
	sp.log.take()
	if _, err := sp.mem.SaveMessages(bg, batch, nil); err != nil {
		t.Fatal(err)
	}
	if err := sp.mem.Close(bg); err != nil {
		t.Fatal(err)
	}
	batches := 0
	for _, s := range sp.log.take() {
		if strings.HasPrefix(s, "batch: WITH thr AS") {
			batches++
		}
	}
	if batches != 1 {
		t.Fatalf("%d joint batches, want 1", batches)
	}
	if msgs, vecs := sp.stored(t, []string{batch[0].ID, batch[1].ID}); msgs != 2 || vecs != 2 {
		t.Fatalf("stored %d messages, %d vectors; want 2 and 2", msgs, vecs)
	}
	if n := sp.unindexed(t); n != 0 {
		t.Fatalf("%d unindexed messages", n)
	}
}

// The same Memory without the joint capability takes the two steps (save,
// then upsert in a transaction of its own): the count above is the joint
// path's.
func TestPgvectorCommitTwoStepsWithoutJointCapability(t *testing.T) {
	sp := openSharedPool(t, true, pgx.QueryExecModeCacheStatement)
	for i := 0; i < 3; i++ {
		if _, _, err := sp.commit(t, fmt.Sprintf("warm-up question %d", i), "warm-up answer"); err != nil {
			t.Fatal(err)
		}
	}
	ids, trips, err := sp.commit(t, "what did we decide about the budget?", "We cut travel by ten percent.")
	if err != nil {
		t.Fatal(err)
	}
	if trips < 2 {
		t.Fatalf("two-step Commit: %d round trips", trips)
	}
	if msgs, vecs := sp.stored(t, ids); msgs != 2 || vecs != 2 {
		t.Fatalf("stored %d messages, %d vectors; want 2 and 2", msgs, vecs)
	}
}

// While the embedder fails, Commit saves the messages alone and marks them
// unindexed; the next successful write indexes them.
func TestPgvectorCommitEmbedderDown(t *testing.T) {
	sp := openSharedPool(t, false, pgx.QueryExecModeCacheStatement)
	sp.emb.down.Store(true)
	down, _, err := sp.commit(t, "first question", "first answer")
	if err != nil {
		t.Fatal(err)
	}
	if sp.commitEmbeds != 1 {
		t.Fatalf("%d embedder calls, want 1 (the messages are marked, not embedded again)", sp.commitEmbeds)
	}
	if msgs, vecs := sp.stored(t, down); msgs != 2 || vecs != 0 {
		t.Fatalf("embedder down: stored %d messages, %d vectors; want 2 and 0", msgs, vecs)
	}
	if n := sp.unindexed(t); n != 2 {
		t.Fatalf("%d unindexed messages, want 2", n)
	}
	sp.emb.down.Store(false)
	up, _, err := sp.commit(t, "second question", "second answer")
	if err != nil {
		t.Fatal(err)
	}
	if msgs, vecs := sp.stored(t, append(down, up...)); msgs != 4 || vecs != 4 {
		t.Fatalf("after a successful write: %d messages, %d vectors; want 4 and 4", msgs, vecs)
	}
	if n := sp.unindexed(t); n != 0 {
		t.Fatalf("%d unindexed messages after the repair", n)
	}
}

// An embedder slower than the joint save waits for (10 s, with no deadline
// on the caller's context) is given up: the messages are saved alone and
// marked unindexed.
func TestPgvectorCommitEmbedderTooSlow(t *testing.T) {
	sp := openSharedPool(t, false, pgx.QueryExecModeCacheStatement)
	in, out := sp.message(core.RoleUser, "a question"), sp.message(core.RoleAssistant, "an answer")
	tr, err := sp.mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
	if err != nil {
		t.Fatal(err)
	}
	sp.hang.Store(true)
	defer sp.hang.Store(false)
	if err := tr.Commit(bg, []core.Message{out}); err != nil {
		t.Fatal(err)
	}
	if err := sp.mem.Close(bg); err != nil {
		t.Fatal(err)
	}
	if msgs, vecs := sp.stored(t, []string{in.ID, out.ID}); msgs != 2 || vecs != 0 {
		t.Fatalf("stored %d messages, %d vectors; want 2 and 0", msgs, vecs)
	}
	if n := sp.unindexed(t); n != 2 {
		t.Fatalf("%d unindexed messages, want 2", n)
	}
	if !sp.warned.has(context.DeadlineExceeded) {
		t.Fatalf("no deadline warning in %v", sp.warned.errs)
	}
}

// A resource written with another index version refuses the vectors: the
// messages are saved all the same, marked unindexed, and the refusal is
// logged as a typed warning.
func TestPgvectorCommitVectorsRefused(t *testing.T) {
	sp := openSharedPool(t, false, pgx.QueryExecModeCacheStatement)
	if _, _, err := sp.commit(t, "first question", "first answer"); err != nil {
		t.Fatal(err)
	}
	schema := pgx.Identifier{sp.ms.Schema()}.Sanitize()
	if _, err := sp.ms.Pool().Exec(bg, "UPDATE "+schema+".vector_resources SET version = 'another recipe' WHERE resource_id = 'r'"); err != nil {
		t.Fatal(err)
	}
	ids, _, err := sp.commit(t, "second question", "second answer")
	if err != nil {
		t.Fatalf("Commit with refused vectors: %v", err)
	}
	if n := sp.commitEmbeds; n != 1 {
		t.Fatalf("%d embedder calls, want 1 (the upsert after the save reuses the vectors)", n)
	}
	if msgs, vecs := sp.stored(t, ids); msgs != 2 || vecs != 0 {
		t.Fatalf("stored %d messages, %d vectors; want 2 and 0", msgs, vecs)
	}
	if n := sp.unindexed(t); n != 2 {
		t.Fatalf("%d unindexed messages, want 2", n)
	}
	if !sp.warned.has(memerr.ErrIndexVersionMismatch) {
		t.Fatalf("no ErrIndexVersionMismatch warning in %v", sp.warned.errs)
	}
}

// A thread taken over by another resource between Begin and Commit refuses
// the turn's messages: Commit fails with the store's typed error, and
// neither the messages nor their vectors are written.
func TestPgvectorCommitMessagesRefused(t *testing.T) {
	sp := openSharedPool(t, false, pgx.QueryExecModeCacheStatement)
	if _, _, err := sp.commit(t, "warm-up question", "warm-up answer"); err != nil {
		t.Fatal(err)
	}
	in, out := sp.message(core.RoleUser, "a question"), sp.message(core.RoleAssistant, "an answer")
	tr, err := sp.mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.mem.DeleteThread(bg, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.mem.CreateThread(bg, core.ThreadInput{ID: "t", ResourceID: "someone else"}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Commit(bg, []core.Message{out}); !errors.Is(err, core.ErrResourceMismatch) {
		t.Fatalf("Commit into a taken-over thread: %v, want ErrResourceMismatch", err)
	}
	if msgs, vecs := sp.stored(t, []string{in.ID, out.ID}); msgs != 0 || vecs != 0 {
		t.Fatalf("stored %d messages, %d vectors; want none", msgs, vecs)
	}
}
