package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory/alloydb"
	"github.com/tmc/langchaingo/util/alloydbutil"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/internal/testenv"
)

// benchMessages is the size of the import benchmark:
// AGENTMEM_IMPORT_BENCH_MESSAGES, default 100,000 (BENCHMARKS.md used 1M).
func benchMessages(b *testing.B) int {
	n, err := strconv.Atoi(os.Getenv("AGENTMEM_IMPORT_BENCH_MESSAGES"))
	if err != nil || n <= 0 {
		return 100_000
	}
	return n
}

// benchThreadSize is the number of messages per thread of the benchmark file.
const benchThreadSize = 1000

var benchTexts = []string{
	"Could you summarise what we decided about the quarterly budget and who owns the follow-up items?",
	"We agreed to cut travel by ten percent, Maria owns the vendor review and Tom drafts the hiring plan by Friday.",
}

// writeBenchFile writes an export of n messages in threads of
// benchThreadSize, ten threads per resource.
func writeBenchFile(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	lw := export.NewWriter(w)
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(lw.Put(export.Record{Kind: export.KindHeader, Version: export.FormatVersion}))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i*benchThreadSize < n; i++ {
		res := fmt.Sprintf("user-%d", i/10)
		if i%10 == 0 {
			must(lw.Put(export.Record{Kind: export.KindResource, Resource: &export.ResourceDoc{ID: res}}))
		}
		th := core.Thread{ID: fmt.Sprintf("thread-%d", i), ResourceID: res, CreatedAt: base, UpdatedAt: base}
		must(lw.Put(export.Record{Kind: export.KindThread, Thread: &th}))
		for j := 0; j < benchThreadSize && i*benchThreadSize+j < n; j++ {
			role := []core.Role{core.RoleUser, core.RoleAssistant}[j%2]
			m := core.NewMessage(role, benchTexts[j%2])
			m.ID, m.ThreadID, m.ResourceID = fmt.Sprintf("m-%d-%d", i, j), th.ID, res
			m.CreatedAt = base.Add(time.Duration(j) * time.Second)
			must(lw.Put(export.Record{Kind: export.KindMessage, Message: &m}))
		}
	}
	must(w.Flush())
	must(f.Close())
	return path
}

// BenchmarkImport: agentmem import of a JSONL export into SQLite and
// PostgreSQL, and langchaingo v0.1.14's PostgreSQL chat history
// (memory/alloydb) AddMessages of the same texts in the same threads on the
// same server, batches of 1,000 (one langchaingo session per thread).
func BenchmarkImport(b *testing.B) {
	n := benchMessages(b)
	file := writeBenchFile(b, n)
	server := postgresServerPID(b)
	b.Run(fmt.Sprintf("agentmem-sqlite/messages=%d", n), func(b *testing.B) {
		defer reportCPU(b, n, server)()
		for range b.N {
			benchImport(b, sqliteBenchBackend(b), file, n)
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
	if os.Getenv(testenv.EnvPostgres) == "" {
		return
	}
	b.Run(fmt.Sprintf("agentmem-postgres/messages=%d", n), func(b *testing.B) {
		defer reportCPU(b, n, server)()
		for range b.N {
			benchImport(b, postgresBenchBackend(b), file, n)
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
	b.Run(fmt.Sprintf("langchaingo-postgres/messages=%d", n), func(b *testing.B) {
		defer reportCPU(b, n, server)()
		for range b.N {
			benchLangchaingo(b, n)
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
}

// reportCPU, deferred with its result, reports the CPU time per message
// spent by this process (client-µs/msg) and, when the PostgreSQL server runs
// on this machine, by the server (server-µs/msg): on a shared, loaded
// machine wall time measures how much CPU a run was given, CPU time what it
// needed.
func reportCPU(b *testing.B, n, server int) func() {
	client0, server0 := processCPU(), serverCPU(server)
	return func() {
		msgs := float64(n * b.N)
		b.ReportMetric(float64((processCPU()-client0).Microseconds())/msgs, "client-µs/msg")
		if server > 0 {
			b.ReportMetric(float64((serverCPU(server)-server0).Microseconds())/msgs, "server-µs/msg")
		}
	}
}

// processCPU is the user and system CPU time of this process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// postgresServerPID is the process id of the local PostgreSQL server of
// AGENTMEM_PG_DSN (the parent of a backend), or 0 when there is none or it
// is not on this machine.
func postgresServerPID(b *testing.B) int {
	dsn := os.Getenv(testenv.EnvPostgres)
	if dsn == "" {
		return 0
	}
	pool, err := pgxpool.New(bg, dsn)
	if err != nil {
		return 0
	}
	defer pool.Close()
	var backend int
	if err := pool.QueryRow(bg, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return 0
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", backend))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			pid, _ := strconv.Atoi(strings.TrimSpace(v))
			return pid
		}
	}
	return 0
}

// serverCPU is the CPU time of the server process, its finished children
// (backends of closed connections) and its running children.
func serverCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	total := procCPU(pid, true)
	children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, c := range strings.Fields(string(children)) {
		if child, err := strconv.Atoi(c); err == nil {
			total += procCPU(child, false)
		}
	}
	return total
}

// procCPU reads utime and stime (and, with reaped, cutime and cstime) of a
// process from /proc/PID/stat, in clock ticks of 1/100 s.
func procCPU(pid int, reaped bool) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // fields from the 3rd on
	n := 2
	if reaped {
		n = 4
	}
	var ticks int64
	for _, f := range fields[11 : 11+n] { // utime is field 14
		v, _ := strconv.ParseInt(f, 10, 64)
		ticks += v
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

func benchImport(b *testing.B, flags []string, file string, n int) {
	b.Helper()
	var out, errb strings.Builder
	var code int
	// The label marks the import's goroutines in a -cpuprofile, which also
	// holds writing the file and the other sub-benchmarks (-tagfocus=bench=import).
	pprof.Do(bg, pprof.Labels("bench", "import"), func(ctx context.Context) {
		code = run(ctx, append(flags, "--write", "--no-progress", "import", "--restart", "--batch", envOr("AGENTMEM_IMPORT_BENCH_BATCH", "0"), file), strings.NewReader(""), &out, &errb)
	})
	if code != 0 {
		b.Fatalf("import: exit %d: %s", code, errb.String())
	}
	if want := fmt.Sprintf("imported %d threads, %d messages", (n+benchThreadSize-1)/benchThreadSize, n); !strings.Contains(out.String(), want) {
		b.Fatalf("import summary %q, want %q", out.String(), want)
	}
}

func sqliteBenchBackend(b *testing.B) []string {
	b.StopTimer()
	defer b.StartTimer()
	return []string{"--db", filepath.Join(b.TempDir(), "memory.db")}
}

func postgresBenchBackend(b *testing.B) []string {
	b.StopTimer()
	defer b.StartTimer()
	dsn := os.Getenv(testenv.EnvPostgres)
	schema := fmt.Sprintf("bench_%d", rand.Int64())
	b.Cleanup(func() { dropSchema(b, dsn, schema) })
	return []string{"--db", dsn, "--pg-schema", schema}
}

func dropSchema(b *testing.B, dsn, schema string) {
	pool, err := pgxpool.New(bg, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	_, _ = pool.Exec(bg, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
}

// benchLangchaingo stores the same conversation with upstream's PostgreSQL
// chat history: one history per thread, AddMessages per 1,000 messages.
func benchLangchaingo(b *testing.B, n int) {
	b.StopTimer()
	dsn := os.Getenv(testenv.EnvPostgres)
	schema := fmt.Sprintf("lcbench_%d", rand.Int64())
	pool, err := pgxpool.New(bg, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	b.Cleanup(func() { dropSchema(b, dsn, schema) })
	if _, err := pool.Exec(bg, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		b.Fatal(err)
	}
	engine, err := alloydbutil.NewPostgresEngine(bg, alloydbutil.WithPool(pool))
	if err != nil {
		b.Fatal(err)
	}
	if err := engine.InitChatHistoryTable(bg, "history", alloydbutil.WithSchemaName(schema)); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	for i := 0; i*benchThreadSize < n; i++ {
		h, err := alloydb.NewChatMessageHistory(bg, engine, "history", fmt.Sprintf("thread-%d", i), alloydb.WithSchemaName(schema))
		if err != nil {
			b.Fatal(err)
		}
		batch := make([]llms.ChatMessage, 0, benchThreadSize)
		for j := 0; j < benchThreadSize && i*benchThreadSize+j < n; j++ {
			if j%2 == 0 {
				batch = append(batch, llms.HumanChatMessage{Content: benchTexts[0]})
			} else {
				batch = append(batch, llms.AIChatMessage{Content: benchTexts[1]})
			}
		}
		if err := h.AddMessages(bg, batch); err != nil {
			b.Fatal(err)
		}
	}
}
