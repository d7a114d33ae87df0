// Command membench is agentmem's side of the Mastra-shaped benchmark
// (../shared/reference/mastra-bench/bench.mjs and bench-pg.mjs): N messages of
// the same generator saved in batches of 1,000 into one thread, then the
// last-10 read, the 8,000-token read, bytes on disk and the process's peak
// RSS, printed as JSON lines with the same labels. Run one process per size
// so the peak RSS is that size's.
//
//	membench -n 100000 -db /tmp/bench-100000.db        # SQLite file
//	membench -n 100000 -dsn postgres://...             # PostgreSQL (the database should be fresh)
//	membench -n 100000 -db /tmp/b.db -vector /tmp/b.vec # bench-vec.mjs's semantic recall (local store)
//	membench -n 100000 -db /tmp/b.db -vector /tmp/b.vec -check-recall # and the graph's recall@10 against an exact scan
//	membench -n 100000 -dsn postgres://... -vector pgvector -mode vector # bench-pgvec.mjs: messages and vectors in one PostgreSQL
//
// scripts/bench runs it beside Mastra's scripts when AGENTMEM_BENCH_MASTRA=1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/agentmem/agentmem/core/message"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"syscall"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/internal/benchdata"
)

const (
	threadID   = "thread-1"
	resourceID = "user-1"
	batchSize  = 1000 // default of -batch, as bench.mjs saves
)

func main() {
	n := flag.Int("n", 1000, "messages to save")
	dbPath := flag.String("db", "", "SQLite file (removed first)")
	dsn := flag.String("dsn", "", "PostgreSQL connection string (instead of -db)")
	vecPath := flag.String("vector", "", `local vector store file, or "pgvector" (with -dsn): run bench-vec.mjs's (bench-pgvec.mjs's) semantic-recall benchmark instead`)
	metric := flag.String("metric", "cosine", "with -vector pgvector: the HNSW index's metric")
	memprofile := flag.String("memprofile", "", "write a heap profile to this file at the end")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	batch := flag.Int("batch", batchSize, "messages per save call")
	estimate := flag.Bool("estimate-tokens", false, "count tokens as bytes/4 instead of exactly (tiktoken o200k_base): the save rate without the price of exact counts")
	bulk := flag.Bool("bulk", false, "save with SaveMessagesBulk (the store's and the vector store's bulk paths) instead of SaveMessages")
	buildMemory := flag.String("build-memory", "", "with -vector pgvector: pgvector.Config.BuildMemory (maintenance_work_mem of index builds)")
	trace := flag.String("trace", "", "with -vector: sample RSS and the Go heap into this directory, with a heap profile per phase")
	mode := flag.String("mode", "", `with -vector: the recall's search mode ("" = the default, vector, bm25)`)
	checkRecall := flag.Bool("check-recall", false, "with -vector: at the end, measure the saved store's recall@10 against an exact scan (opens the file twice more: leave it off when measuring peak RSS)")
	flag.Parse()
	if (*dbPath == "") == (*dsn == "") {
		log.Fatal("membench: give exactly one of -db and -dsn")
	}
	stopProfile, err := benchdata.StartCPUProfile(*cpuprofile)
	if err != nil {
		log.Fatalf("membench: %v", err)
	}
	defer stopProfile()
	ctx := context.Background()
	if *batch <= 0 {
		log.Fatal("membench: -batch must be positive")
	}
	b := &bench{n: *n, dbPath: *dbPath, trace: startTrace(*trace), batch: *batch, bulk: *bulk, buildMemory: *buildMemory}
	if *estimate {
		b.tokenizer = byteEstimate{}
	}
	if err := b.open(ctx, *dsn); err != nil {
		log.Fatalf("membench: %v", err)
	}
	if *vecPath == "pgvector" {
		err = b.runPgvector(ctx, *mode, *metric)
	} else if *vecPath != "" {
		err = b.runVector(ctx, *vecPath, *mode)
		if err == nil && *checkRecall {
			err = b.checkRecall(ctx, *vecPath)
		}
	} else {
		err = b.run(ctx)
	}
	if err != nil {
		log.Fatalf("membench: %v", err)
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.emit("peak_rss_kb", ru.Maxrss)
	if *memprofile != "" {
		writeHeapProfile(*memprofile)
	}
}

// writeHeapProfile writes the live heap (after a GC) to path.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatalf("membench: %v", err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		log.Fatalf("membench: %v", err)
	}
}

type bench struct {
	n      int
	dbPath string
	store  store.Store
	pg     *postgres.Store
	// opened is when the process started using agentmem (after flag parsing).
	opened time.Time
	trace  *tracer
	// batch messages per save, through SaveMessagesBulk when bulk.
	batch       int
	bulk        bool
	tokenizer   core.Tokenizer // nil: the default, exact counts
	buildMemory string
}

func (b *bench) open(ctx context.Context, dsn string) (err error) {
	b.opened = time.Now()
	if dsn != "" {
		b.pg, err = postgres.Open(ctx, dsn)
		b.store = b.pg
		return err
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(b.dbPath + suffix)
	}
	b.store, err = sqlite.Open(ctx, b.dbPath)
	return err
}

// emit prints one JSON line with N and the given fields.
// byteEstimate counts a text's tokens as its bytes / 4, rounded up: what
// -estimate-tokens saves with in place of exact counts.
type byteEstimate struct{}

func (byteEstimate) Count(text string) int { return (len(text) + 3) / 4 }
func (byteEstimate) Encoding() string      { return "bytes/4" }

func (b *bench) emit(kv ...any) {
	m := map[string]any{"N": b.n}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	out, _ := json.Marshal(m)
	fmt.Println(string(out))
}

func (b *bench) run(ctx context.Context) error {
	memCount, err := core.New(core.Options{Store: b.store, Tokenizer: b.tokenizer, Config: core.Config{LastMessages: core.LastN(10)}})
	if err != nil {
		return err
	}
	memTok, err := core.New(core.Options{Store: b.store, Tokenizer: b.tokenizer, Config: core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 8000}}})
	if err != nil {
		return err
	}
	if _, err := memCount.CreateThread(ctx, core.ThreadInput{ID: threadID, ResourceID: resourceID, Title: "t"}); err != nil {
		return err
	}
	if err := b.save(ctx, memCount); err != nil {
		return err
	}
	if err := b.analyze(ctx); err != nil {
		return err
	}
	if err := b.reads(ctx, memCount, memTok); err != nil {
		return err
	}
	return b.size(ctx)
}

// save stores the messages in batches of 1,000, as bench.mjs does, and
// reports the rate, the first ten batches and the slowest batch.
func (b *bench) save(ctx context.Context, mem *core.Memory) error {
	base := time.Now().Add(-time.Duration(b.n) * time.Second).UTC()
	var batchMs []float64
	var clientFaults, serverFaults, clientCPU, serverCPU []int64
	faults := newFaultCounter(ctx, b)
	start := time.Now()
	for i := 0; i < b.n; i += b.batch {
		batch := make([]message.Message, 0, b.batch)
		for j := i; j < min(b.n, i+b.batch); j++ {
			role := message.RoleUser
			if j%2 == 1 {
				role = message.RoleAssistant
			}
			m := core.NewMessage(role, benchdata.Text(j))
			m.ID, m.ThreadID, m.ResourceID = fmt.Sprint("m", j), threadID, resourceID
			m.CreatedAt = base.Add(time.Duration(j) * time.Second)
			batch = append(batch, m)
		}
		counted := len(batchMs) < 10 || len(batchMs) == 99 // batches 1-10 and 100
		var c0, s0, cc0, sc0 int64
		if counted {
			c0, s0 = faults.counts()
			cc0, sc0 = faults.cpu()
		}
		t0 := time.Now()
		save := mem.SaveMessages
		if b.bulk {
			save = mem.SaveMessagesBulk
		}
		if _, err := save(ctx, batch, nil); err != nil {
			return err
		}
		batchMs = append(batchMs, ms(time.Since(t0)))
		if counted {
			c1, s1 := faults.counts()
			cc1, sc1 := faults.cpu()
			clientCPU, serverCPU = append(clientCPU, cc1-cc0), append(serverCPU, sc1-sc0)
			clientFaults, serverFaults = append(clientFaults, c1-c0), append(serverFaults, s1-s0)
		}
	}
	secs := time.Since(start).Seconds()
	calls := 0.0
	for _, t := range batchMs {
		calls += t
	}
	// save_msgs_per_s times the loop as Mastra's bench.mjs does (building
	// the batches included); save_calls_msgs_per_s only the save calls, as
	// limitbench times the engine alone (its rows are built untimed).
	b.emit("save_msgs_per_s", int(float64(b.n)/secs), "save_calls_msgs_per_s", int(float64(b.n)/(calls/1000)))
	b.emit("first_batch_ms", batchMs[0], "batch_ms_p50", percentile(batchMs, 0.5), "batch_ms_max", percentile(batchMs, 1),
		"batches_2_10_ms_max", percentile(window(batchMs, 1, 10), 1), "batch_100_ms", at(batchMs, 99))
	// The first ten batches one by one: the first save of a fresh process
	// should be no slower than the tenth.
	b.emit("batches_1_10_ms", window(batchMs, 0, 10), "batch_10_ms", at(batchMs, 9))
	// Minor page faults of batches 1-10 and 100 (the server's: null when its
	// backends cannot be read).
	var server any = serverFaults
	if faults.pids == nil {
		server = nil
	}
	b.emit("faults_batches_1_10_100", clientFaults, "server_faults_batches_1_10_100", server)
	// Their CPU time in µs: this whole process's (the GC's and any
	// background loading included) and the backends' (null as above).
	server = serverCPU
	if faults.pids == nil {
		server = nil
	}
	b.emit("cpu_us_batches_1_10_100", clientCPU, "server_cpu_us_batches_1_10_100", server)
	b.emitLessFaults(batchMs, clientFaults, serverFaults)
	return nil
}

// emitLessFaults reports what a fault costs here and the first-batch
// figures with every batch's faults taken out at that cost: how the first
// batches would compare where faults are cheap (see faultCost). Batches 1-10
// and 100 are those whose faults were counted.
func (b *bench) emitLessFaults(batchMs []float64, client, server []int64) {
	cost := faultCost()
	// Batches 1-10 are counted at their index, batch 100 after them.
	less := func(i int) (float64, bool) {
		return lessFaults(batchMs, i, min(i, 10), client, server, cost)
	}
	orNil := func(ms float64, ok bool) any {
		if !ok {
			return nil
		}
		return ms
	}
	var slowest any
	for i := 1; i < 10; i++ {
		if v, ok := less(i); ok && (slowest == nil || v > slowest.(float64)) {
			slowest = v
		}
	}
	b.emit("page_fault_us", round3(cost), "first_batch_less_faults_ms", orNil(less(0)), "batch_10_less_faults_ms", orNil(less(9)),
		"batches_2_10_less_faults_ms_max", slowest, "batch_100_less_faults_ms", orNil(less(99)))
}

// analyze runs an untimed ANALYZE on PostgreSQL between saving and reading,
// as bench-pg.mjs does, unless BENCH_PG_ANALYZE=0.
func (b *bench) analyze(ctx context.Context) error {
	if b.pg == nil {
		return nil
	}
	if os.Getenv("BENCH_PG_ANALYZE") == "0" {
		b.emit("analyze_ms", nil)
		return nil
	}
	t0 := time.Now()
	if _, err := b.pg.Pool().Exec(ctx, "ANALYZE"); err != nil {
		return err
	}
	b.emit("analyze_ms", ms(time.Since(t0)))
	return nil
}

// reads times the last-10 recall (50 reps), the 8,000-token recall (20 reps,
// Mastra's `recall` with messageHistory) and Begin with the same budget (20
// reps), each after one untimed call.
func (b *bench) reads(ctx context.Context, memCount, memTok *core.Memory) error {
	q := core.RecallQuery{ThreadID: threadID, ResourceID: resourceID}
	var got int
	if err := b.timeit("recall lastMessages=10", 50, func() error {
		res, err := memCount.Recall(ctx, q)
		got = len(res.Messages)
		return err
	}); err != nil {
		return err
	}
	if err := b.timeit("recall messageHistory maxTokens=8000", 20, func() error {
		res, err := memTok.Recall(ctx, q)
		got = len(res.Messages)
		return err
	}); err != nil {
		return err
	}
	b.emit("tokenRecallCount", got)
	in := []message.Message{core.NewMessage(message.RoleUser, "What did we decide?")}
	req := core.TurnRequest{ThreadID: threadID, ResourceID: resourceID, Input: in}
	if err := b.timeit("begin maxTokens=8000", 20, func() error {
		turn, err := memTok.Begin(ctx, req)
		if err == nil {
			got = len(turn.Messages())
		}
		return err
	}); err != nil {
		return err
	}
	b.emit("beginPromptCount", got)
	return nil
}

func (b *bench) timeit(label string, reps int, fn func() error) error {
	return b.timeitN(label, reps, func(int) error { return fn() })
}

// timeitN times fn(0..reps-1) after an untimed fn(reps), as bench-vec.mjs does.
func (b *bench) timeitN(label string, reps int, fn func(r int) error) error {
	if err := fn(reps); err != nil {
		return err
	}
	ts := make([]float64, reps)
	for r := range ts {
		t0 := time.Now()
		if err := fn(r); err != nil {
			return err
		}
		ts[r] = ms(time.Since(t0))
	}
	sort.Float64s(ts)
	b.emit("label", label, "p50_ms", ts[reps/2], "p95_ms", ts[reps*95/100])
	return nil
}

// size reports bytes on disk: the SQLite file with its WAL and shared memory
// after Close, or PostgreSQL's table sizes.
func (b *bench) size(ctx context.Context) error {
	if b.pg != nil {
		var msgs, all, db int64
		err := b.pg.Pool().QueryRow(ctx, `SELECT
			COALESCE(SUM(pg_total_relation_size(c.oid)) FILTER (WHERE c.relname = 'messages'), 0)::bigint,
			COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint,
			pg_database_size(current_database())::bigint
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')`).Scan(&msgs, &all, &db)
		if err != nil {
			return err
		}
		b.emit("messages_table_bytes", msgs, "all_tables_bytes", all, "database_bytes", db)
		return b.store.Close()
	}
	if err := b.store.Close(); err != nil {
		return err
	}
	var total int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(b.dbPath + suffix); err == nil {
			total += fi.Size()
		}
	}
	b.emit("db_bytes", total)
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// percentile returns the q-quantile (0..1) of xs by nearest rank, 0 for none.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

// window returns xs[lo:hi] clipped to xs.
func window(xs []float64, lo, hi int) []float64 {
	return xs[min(lo, len(xs)):min(hi, len(xs))]
}

// at returns xs[i], or nil when there is no such batch.
func at(xs []float64, i int) any {
	if i < len(xs) {
		return xs[i]
	}
	return nil
}
