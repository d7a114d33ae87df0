package integration_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
)

// The failover test needs the primary and synchronous standby of
// scripts/lib/pg.sh (pg_pair_start), which it breaks: scripts/test runs it
// alone, on a pair of its own, after the other tests.

// pgPair is the pair the failover test drives.
type pgPair struct {
	dsn, ctl, primary, standby string
}

// failoverPair reads the pair from the environment of pg_pair_start, like
// pgDSN: skipped without it under plain `go test`, failed under scripts/test.
func failoverPair(t *testing.T) pgPair {
	t.Helper()
	p := pgPair{
		dsn:     os.Getenv("AGENTMEM_PG_FAILOVER_DSN"),
		ctl:     os.Getenv("AGENTMEM_PG_PAIR_CTL"),
		primary: os.Getenv("AGENTMEM_PG_PRIMARY_DATADIR"),
		standby: os.Getenv("AGENTMEM_PG_STANDBY_DATADIR"),
	}
	if p.dsn == "" || p.ctl == "" || p.primary == "" || p.standby == "" {
		const msg = "AGENTMEM_PG_FAILOVER_DSN, AGENTMEM_PG_PAIR_CTL, AGENTMEM_PG_PRIMARY_DATADIR and AGENTMEM_PG_STANDBY_DATADIR (scripts/lib/pg.sh: pg_pair_start)"
		if os.Getenv("AGENTMEM_REQUIRE_SERVERS") == "1" {
			t.Fatal("AGENTMEM_REQUIRE_SERVERS=1 but the failover test has no pair: set " + msg)
		}
		t.Skip("no PostgreSQL pair: set " + msg)
	}
	return p
}

// pgCtl runs the pair's pg_ctl, bounded in time.
func (p pgPair) pgCtl(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, p.ctl, args...).CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl %v: %v: %s", args, err, out)
	}
}

// failoverEvent is one Begin or Commit of the load.
type failoverEvent struct {
	worker   int
	op       string // "Begin" or "Commit"
	end      time.Time
	err      error
	boundary *store.Boundary // the boundary a successful Begin left stored
}

// TestPostgresFailover runs turns (Begin, then Commit) from several
// goroutines, each on a thread of its own under a token budget that trims
// every few turns, against a multi-host DSN with
// target_session_attrs=read-write. First, with the standby stopped for a
// moment, a write whose context ends while it waits for the standby fails.
// Mid-run the primary is stopped in
// immediate mode (a crash) and its synchronous standby promoted. Then:
//   - every Begin and Commit that failed did so with
//     core.ErrStorageUnavailable, and a failed Commit, called again,
//     succeeded once the new primary took over;
//   - every message of a Commit that returned success is on the new primary,
//     with its pgvector record (saved in the same transaction) or recorded
//     for indexing later;
//   - the trim boundary a Begin reads never goes back, nor does the stored
//     one at the end;
//   - the same Memory and pool serve turns again after the promotion, every
//     worker within a bounded time, without a restart.
func TestPostgresFailover(t *testing.T) {
	pair := failoverPair(t)
	// A short connect timeout: a connection attempt to a host that is gone
	// fails fast instead of holding the turn.
	dsn := pair.dsn + "&connect_timeout=2&pool_max_conns=8"
	s, err := postgres.Open(bg, dsn, postgres.WithSchema(fmt.Sprintf("failover_%d", rand.Int64())))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	// Messages and their pgvector records are saved in one transaction.
	vs, err := pgvector.New(bg, s.Pool(), pgvector.Config{Schema: s.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := overlapConfig()
	cfg.SemanticRecall = &core.SemanticRecall{TopK: 2, MessageRange: &core.MessageRange{}}
	mem, err := core.New(core.Options{Store: s, Vector: vs, Embedder: local.NewHashEmbedder(384), Tokenizer: byteTokenizer{}, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mem.Close(context.Background()) })

	// A write the standby has not confirmed is not reported as a success:
	// with the standby stopped, the commit waits for it until the context
	// ends, and PostgreSQL answers the cancel request with a success.
	pair.pgCtl(t, "-D", pair.standby, "-m", "fast", "-w", "-t", "60", "stop")
	ctx, cancel := context.WithTimeout(bg, time.Second)
	_, err = s.SaveThread(ctx, store.Thread{ID: "unconfirmed", ResourceID: "user-0"})
	cancel()
	if !errors.Is(err, core.ErrDeadlineExceeded) {
		t.Errorf("a write the standby did not confirm: %v, want core.ErrDeadlineExceeded", err)
	}
	pair.pgCtl(t, "-D", pair.standby, "-w", "-t", "60", "start")

	const workers = 6
	var (
		mu       sync.Mutex
		events   []failoverEvent
		acked    = map[string]bool{} // ids of messages whose Commit returned success
		stop     = make(chan struct{})
		wg       sync.WaitGroup
		deadline = time.Now().Add(3 * time.Minute) // hard bound on the load
	)
	record := func(e failoverEvent, ids ...string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
		for _, id := range ids {
			acked[id] = true
		}
	}
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return !time.Now().Before(deadline)
		}
	}
	pad := strings.Repeat(".", 80)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			thread, resource := fmt.Sprintf("thread-%d", w), fmt.Sprintf("user-%d", w)
			for n := 0; !stopped(); n++ {
				q := core.NewMessage(core.RoleUser, fmt.Sprintf("question %d of worker %d %s", n, w, pad))
				q.ID = fmt.Sprintf("w%d-%05d-q", w, n)
				ctx, cancel := context.WithTimeout(bg, 10*time.Second)
				turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: thread, ResourceID: resource, Input: []core.Message{q}})
				cancel()
				e := failoverEvent{worker: w, op: "Begin", end: time.Now(), err: err}
				if err == nil {
					e.boundary = turn.Thread().Boundary
				}
				record(e)
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				a := core.NewMessage(core.RoleAssistant, fmt.Sprintf("answer %d of worker %d %s", n, w, pad))
				a.ID = fmt.Sprintf("w%d-%05d-a", w, n)
				// A failed Commit is called again with the same response,
				// as the documentation says to: it saves under the same ids.
				for !stopped() {
					ctx, cancel := context.WithTimeout(bg, 10*time.Second)
					err := turn.Commit(ctx, []core.Message{a})
					cancel()
					e := failoverEvent{worker: w, op: "Commit", end: time.Now(), err: err}
					if err == nil {
						record(e, q.ID, a.ID)
						break
					}
					record(e)
					time.Sleep(20 * time.Millisecond)
				}
			}
		}(w)
	}
	stopLoad := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopLoad()

	commitsAfter := func(since time.Time) (n int, perWorker map[int]bool) {
		mu.Lock()
		defer mu.Unlock()
		perWorker = map[int]bool{}
		for _, e := range events {
			if e.op == "Commit" && e.err == nil && e.end.After(since) {
				n++
				perWorker[e.worker] = true
			}
		}
		return n, perWorker
	}
	waitFor := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		end := time.Now().Add(limit)
		for !cond() {
			if time.Now().After(end) {
				t.Fatalf("timed out after %v waiting for %s", limit, what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	waitFor("turns on the primary", time.Minute, func() bool { n, _ := commitsAfter(time.Time{}); return n >= 20*workers })
	crash := time.Now()
	pair.pgCtl(t, "-D", pair.primary, "-m", "immediate", "-w", "-t", "60", "stop")
	pair.pgCtl(t, "-D", pair.standby, "-w", "-t", "60", "promote")
	promoted := time.Now()
	waitFor("every worker to commit on the new primary", time.Minute, func() bool {
		_, per := commitsAfter(promoted)
		return len(per) == workers
	})
	recovery := time.Since(promoted)
	waitFor("more turns on the new primary", time.Minute, func() bool { n, _ := commitsAfter(promoted); return n >= 10*workers })
	stopLoad()

	mu.Lock()
	done := slices.Clone(events)
	mu.Unlock()

	// Failures are typed and retryable; the boundary a Begin reads never
	// goes back.
	failed := map[string]int{}
	last := map[int]*store.Boundary{}
	moves := 0 // Begins that found the boundary further than the last one read
	for _, e := range done {
		if e.err != nil {
			failed[e.op]++
			if failed[e.op] <= 2 {
				t.Logf("a failed %s: %v", e.op, e.err)
			}
			if !errors.Is(e.err, core.ErrStorageUnavailable) {
				t.Errorf("worker %d: %s failed with %v, not core.ErrStorageUnavailable", e.worker, e.op, e.err)
			}
			continue
		}
		if e.op != "Begin" || e.boundary == nil {
			continue
		}
		if prev := last[e.worker]; prev != nil && e.boundary.CreatedAt.Before(prev.CreatedAt) {
			t.Errorf("worker %d: boundary went back from %v to %v", e.worker, prev.CreatedAt, e.boundary.CreatedAt)
		}
		if prev := last[e.worker]; prev == nil || e.boundary.CreatedAt.After(prev.CreatedAt) {
			moves++
		}
		last[e.worker] = e.boundary
	}
	if failed["Begin"]+failed["Commit"] == 0 {
		t.Error("no turn failed: the failover happened between turns, or not at all")
	}
	if moves < workers {
		t.Errorf("the boundary moved %d times: the budget does not trim, the test checks nothing", moves)
	}

	// The longest time without a successful Commit.
	var ends []time.Time
	for _, e := range done {
		if e.op == "Commit" && e.err == nil {
			ends = append(ends, e.end)
		}
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	var gap time.Duration
	for i := 1; i < len(ends); i++ {
		gap = max(gap, ends[i].Sub(ends[i-1]))
	}

	// What a successful Commit stored is on the new primary, and the stored
	// boundary is where the last Begin left it, or further.
	var inRecovery bool
	if err := s.Pool().QueryRow(bg, "SELECT pg_is_in_recovery()").Scan(&inRecovery); err != nil || inRecovery {
		t.Fatalf("the pool's server after the failover: in recovery %v, %v", inRecovery, err)
	}
	var (
		table   string
		vectors []string
	)
	err = s.Pool().QueryRow(bg, "SELECT table_name FROM "+pgx.Identifier{s.Schema(), "vector_indexes"}.Sanitize()).Scan(&table)
	if err == nil {
		var rows pgx.Rows
		if rows, err = s.Pool().Query(bg, "SELECT message_id FROM "+pgx.Identifier{s.Schema(), table}.Sanitize()); err == nil {
			vectors, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	indexed := map[string]bool{}
	for _, id := range vectors {
		indexed[id] = true
	}
	unindexed, err := mem.Unindexed(bg, "")
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for id := range acked {
		if !indexed[id] {
			missing++
		}
	}
	if missing > unindexed {
		t.Errorf("%d acknowledged messages have no vector, and only %d wait for indexing", missing, unindexed)
	}
	t.Logf("%d vectors, %d messages wait for indexing", len(vectors), unindexed)
	for w := 0; w < workers; w++ {
		page, err := mem.Recall(bg, core.RecallQuery{ThreadID: fmt.Sprintf("thread-%d", w), PerPage: store.PerPageAll})
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string]bool{}
		for _, m := range page.Messages {
			stored[m.ID] = true
		}
		for id := range acked {
			if strings.HasPrefix(id, fmt.Sprintf("w%d-", w)) && !stored[id] {
				t.Errorf("message %s of a successful Commit is not on the new primary", id)
			}
		}
		th, err := s.GetThread(bg, fmt.Sprintf("thread-%d", w))
		if err != nil {
			t.Fatal(err)
		}
		if b := last[w]; b != nil && (th.Boundary == nil || th.Boundary.CreatedAt.Before(b.CreatedAt)) {
			t.Errorf("worker %d: stored boundary %v is behind the last one read, %v", w, th.Boundary, b.CreatedAt)
		}
	}
	t.Logf("%d turns, %d acknowledged messages, %d boundary moves; failed: %d Begin, %d Commit; stop and promote took %v; every worker committed %v after the promotion; longest time without a successful Commit %v",
		len(ends), len(acked), moves, failed["Begin"], failed["Commit"], promoted.Sub(crash).Round(time.Millisecond), recovery.Round(time.Millisecond), gap.Round(time.Millisecond))
	_, _ = s.Pool().Exec(bg, "DROP SCHEMA "+pgx.Identifier{s.Schema()}.Sanitize()+" CASCADE")
}
