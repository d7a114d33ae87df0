package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory/alloydb"
	"github.com/tmc/langchaingo/util/alloydbutil"

	"github.com/agentmem/agentmem/core"
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
	lw := &lineWriter{w: w}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(lw.put(record{Kind: kindHeader, Version: formatVersion}))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i*benchThreadSize < n; i++ {
		res := fmt.Sprintf("user-%d", i/10)
		if i%10 == 0 {
			must(lw.put(record{Kind: kindResource, Resource: &resourceDoc{ID: res}}))
		}
		th := core.Thread{ID: fmt.Sprintf("thread-%d", i), ResourceID: res, CreatedAt: base, UpdatedAt: base}
		must(lw.put(record{Kind: kindThread, Thread: &th}))
		for j := 0; j < benchThreadSize && i*benchThreadSize+j < n; j++ {
			role := []core.Role{core.RoleUser, core.RoleAssistant}[j%2]
			m := core.NewMessage(role, benchTexts[j%2])
			m.ID, m.ThreadID, m.ResourceID = fmt.Sprintf("m-%d-%d", i, j), th.ID, res
			m.CreatedAt = base.Add(time.Duration(j) * time.Second)
			must(lw.put(record{Kind: kindMessage, Message: &m}))
		}
	}
	must(w.Flush())
	must(f.Close())
	return path
}

// BenchmarkImport: agentmem import of a JSONL export into SQLite and
// PostgreSQL, and langchaingo v0.1.14's PostgreSQL chat history
// (memory/alloydb) AddMessages of the same texts in the same threads on the
// same server, batches of 1,000 (one session per thread).
func BenchmarkImport(b *testing.B) {
	n := benchMessages(b)
	file := writeBenchFile(b, n)
	b.Run(fmt.Sprintf("agentmem-sqlite/messages=%d", n), func(b *testing.B) {
		for range b.N {
			benchImport(b, sqliteBenchBackend(b), file, n)
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
	if os.Getenv("AGENTMEM_PG_DSN") == "" {
		return
	}
	b.Run(fmt.Sprintf("agentmem-postgres/messages=%d", n), func(b *testing.B) {
		for range b.N {
			benchImport(b, postgresBenchBackend(b), file, n)
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
	b.Run(fmt.Sprintf("langchaingo-postgres/messages=%d", n), func(b *testing.B) {
		for range b.N {
			benchLangchaingo(b, n)
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
}

func benchImport(b *testing.B, flags []string, file string, n int) {
	b.Helper()
	var out, errb strings.Builder
	code := run(bg, append(flags, "--write", "--no-progress", "import", "--restart", "--batch", envOr("AGENTMEM_IMPORT_BENCH_BATCH", "0"), file), strings.NewReader(""), &out, &errb)
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
	dsn := os.Getenv("AGENTMEM_PG_DSN")
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
	dsn := os.Getenv("AGENTMEM_PG_DSN")
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
