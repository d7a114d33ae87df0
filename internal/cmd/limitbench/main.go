// Command limitbench is the engine-alone side of scripts/bench --limits: the
// same messages membench saves and reads through agentmem, written and read
// by a program that uses nothing but the database's driver, so that each of
// agentmem's figures can be printed as a ratio to what the engine alone does
// (the limit no user of agentmem can beat). It prints JSON lines with
// membench's labels.
//
//	limitbench -n 100000 -db /tmp/limit.db        # SQLite (modernc): one prepared 1,000-row INSERT per transaction, keyset reads
//	limitbench -n 100000 -db /tmp/t.db -agentmem-table # the same into agentmem's own table and statement: the schema's price
//	limitbench -n 100000 -dsn postgres://...      # PostgreSQL: COPY per batch of 1,000, keyset reads
//	limitbench -window-db /tmp/agentmem.db        # agentmem's Begin and the engine's read on membench's file, alternating
//	limitbench -n 10000 -weaviate 127.0.0.1:8080 -weaviate-grpc 127.0.0.1:50051 # Weaviate: agentmem's store against the client's own queries
//	limitbench -n 10000 -dsn postgres://... -vector # pgvector: the same vectors into the indexes agentmem keeps, by plain SQL
//
// The rows hold what agentmem's reads need and no more: an id (unique, as a
// message is found by it), the thread, role, text, time and token count,
// with one index on (thread, time, seq) for the keyset reads. Token counts
// are computed before the timed save (the engine does not count tokens);
// what counting them exactly costs is reported on its own
// (tokenize_ms_per_1000), the price of that feature of agentmem.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"sort"
	"strings"
	"time"

	"github.com/agentmem/agentmem/internal/benchdata"
	"github.com/agentmem/agentmem/tokenizer"
)

const (
	threadID   = "thread-1"
	resourceID = "user-1" // the thread's owner (membench's)
	batchSize  = 1000
	// windowTokens is the budget of the window read. agentmem's
	// 8,000-token history must read as far (to know whether a trim
	// applies) and then keeps MaxTokens less AtMaxRemoveTokens (25% by
	// default) of it.
	windowTokens = 8000
)

// row is one message as the engine-alone programs store it.
type row struct {
	id, role, content string
	createdAt         time.Time
	tokens            int
}

// rows builds the n messages with their exact token counts (untimed), and
// reports what counting them cost per 1,000 messages.
func rows(n int) []row {
	tok := tokenizer.Default()
	base := time.Now().Add(-time.Duration(n) * time.Second).UTC().Truncate(time.Microsecond)
	out := make([]row, n)
	for i := range out {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		out[i] = row{id: fmt.Sprint("m", i), role: role, content: benchdata.Text(i), createdAt: base.Add(time.Duration(i) * time.Second)}
	}
	tok.Count(benchdata.Text(0)) // loads the tokenizer's tables, untimed
	t0 := time.Now()
	for i := range out {
		// What core/budget.MessageTokens counts for a text message: 3
		// tokens of framing, the role and the text.
		out[i].tokens = 3 + tok.Count(out[i].role) + tok.Count(out[i].content)
	}
	emit("tokenize_ms_per_1000", ms(time.Since(t0))*1000/float64(max(n, 1)))
	return out
}

// engine is one database's engine-alone program.
type engine interface {
	// save writes a batch in one transaction.
	save(ctx context.Context, batch []row) error
	// window returns the newest rows of the thread whose tokens fit max.
	window(ctx context.Context, max int) (int, error)
	// last returns the newest n rows of the thread.
	last(ctx context.Context, n int) (int, error)
	close() error
}

var n int

func main() {
	flag.IntVar(&n, "n", 1000, "messages to save")
	dbPath := flag.String("db", "", "SQLite file (removed first)")
	dsn := flag.String("dsn", "", "PostgreSQL connection string of a fresh database (instead of -db)")
	vec := flag.Bool("vector", false, "with -dsn: insert the messages' vectors into the tables and indexes core/vector/pgvector keeps")
	metric := flag.String("metric", "cosine", "with -vector: the HNSW index's metric")
	indexes := flag.String("indexes", "hnsw,gin,btree", `with -vector: the indexes kept, of "hnsw" (the vector index), "gin" (the keyword index hybrid search reads) and "btree" (the primary key on resource and id and the resource's thread and message indexes)`)
	weaviateHost := flag.String("weaviate", "", "Weaviate's REST host:port: compare agentmem's Weaviate store's queries with the client's own")
	weaviateGRPC := flag.String("weaviate-grpc", "", "with -weaviate: its gRPC host:port")
	windowDB := flag.String("window-db", "", "an SQLite file membench wrote: time agentmem's Begin and the engine's keyset read of the same rows, alternating")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	table := flag.Bool("agentmem-table", false, "with -db: write into agentmem's own messages table (its columns, constraints and multi-row statement) instead of the minimal one, with contents encoded and tokens counted untimed: the price of agentmem's schema")
	flag.Parse()
	if (*dbPath == "") == (*dsn == "") && *weaviateHost == "" && *windowDB == "" {
		log.Fatal("limitbench: give exactly one of -db, -dsn and -weaviate")
	}
	stopProfile, err := benchdata.StartCPUProfile(*cpuprofile)
	if err != nil {
		log.Fatalf("limitbench: %v", err)
	}
	defer stopProfile()
	ctx := context.Background()
	if *windowDB != "" {
		err = runWindow(ctx, *windowDB, 200)
	} else if *weaviateHost != "" {
		err = runWeaviate(ctx, *weaviateHost, *weaviateGRPC)
	} else if *vec {
		err = runPgvector(ctx, *dsn, *metric, strings.Split(*indexes, ","))
	} else {
		err = run(ctx, *dbPath, *dsn, *table)
	}
	if err != nil {
		log.Fatalf("limitbench: %v", err)
	}
}

func run(ctx context.Context, dbPath, dsn string, table bool) error {
	msgs := rows(n)
	var e engine
	var err error
	switch {
	case dsn != "":
		e, err = openPostgres(ctx, dsn)
	case table:
		e, err = openAgentmemTable(ctx, dbPath)
	default:
		e, err = openSQLite(ctx, dbPath)
	}
	if err != nil {
		return err
	}
	defer e.close()
	if t, ok := e.(*tableEngine); ok {
		if err := t.encode(msgs); err != nil {
			return err
		}
	}
	start := time.Now()
	for i := 0; i < len(msgs); i += batchSize {
		if err := e.save(ctx, msgs[i:min(len(msgs), i+batchSize)]); err != nil {
			return err
		}
	}
	emit("save_msgs_per_s", int(float64(n)/time.Since(start).Seconds()))
	if pg, ok := e.(*pgEngine); ok {
		if _, err := pg.pool.Exec(ctx, "ANALYZE"); err != nil {
			return err
		}
	}
	var got int
	if err := timeit("recall lastMessages=10", 50, func() (err error) {
		got, err = e.last(ctx, 10)
		return err
	}); err != nil {
		return err
	}
	if err := timeit("recall messageHistory maxTokens=8000", 20, func() (err error) {
		got, err = e.window(ctx, windowTokens)
		return err
	}); err != nil {
		return err
	}
	emit("tokenRecallCount", got)
	return nil
}

// emit prints one JSON line with N and the given fields.
func emit(kv ...any) {
	m := map[string]any{"N": n}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	out, _ := json.Marshal(m)
	fmt.Println(string(out))
}

// timeit times reps calls of fn after an untimed one, as membench does.
func timeit(label string, reps int, fn func() error) error {
	if err := fn(); err != nil {
		return err
	}
	ts := make([]float64, reps)
	for r := range ts {
		t0 := time.Now()
		if err := fn(); err != nil {
			return err
		}
		ts[r] = ms(time.Since(t0))
	}
	sort.Float64s(ts)
	emit("label", label, "p50_ms", ts[reps/2], "p95_ms", ts[reps*95/100])
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
