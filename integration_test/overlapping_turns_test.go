package integration_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/internal/testenv"
)

// The overlapping-turns test runs several OS processes (this test binary,
// re-executed with overlapWorkerEnv set) that take turns on one thread of one
// database under a small token budget, so that turns overlap and trim all the
// time. A turn stamps its question at Begin and saves it at Commit; other
// turns trim meanwhile. The assertion: no committed message is ever hidden by
// a boundary that no turn saw it under.

const (
	overlapWorkerEnv = "AGENTMEM_OVERLAP_WORKER" // worker number; set in workers only
	overlapStoreEnv  = "AGENTMEM_OVERLAP_STORE"  // "sqlite:<path>" or "postgres:<schema>"
	overlapLogEnv    = "AGENTMEM_OVERLAP_LOG"    // file the worker writes its turns to
	overlapTurnsEnv  = "AGENTMEM_OVERLAP_TURNS"  // turns per worker
	overlapWorkers   = 4
	overlapTurns     = 60
)

func TestMain(m *testing.M) {
	if os.Getenv(overlapWorkerEnv) != "" {
		if err := runOverlapWorker(); err != nil {
			fmt.Fprintln(os.Stderr, "overlap worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// byteTokenizer counts one token per byte: deterministic and fast.
type byteTokenizer struct{}

func (byteTokenizer) Count(s string) int { return len(s) }
func (byteTokenizer) Encoding() string   { return "bytes" }

// overlapConfig trims every few turns: a question and its answer are about
// 100 tokens each, the budget holds about six.
func overlapConfig() core.Config {
	return core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 650, AtMaxRemoveTokens: core.Int(150)}}
}

// overlapLog is one line a worker reports: a turn, or one AdvanceBoundary
// call (what the advancing turn had read, SeenSeq, and what was stored).
type overlapLog struct {
	Worker int `json:"worker"`
	Turn   int `json:"turn"`
	// Loaded are the ids of the thread's messages the turn loaded (in its
	// prompt or trimmed by its own budget); MaxSeq is their highest Seq.
	Loaded []string `json:"loaded,omitempty"`
	MaxSeq int64    `json:"maxSeq,omitempty"`
	// Read is the boundary the turn loaded history under; Horizon the
	// highest Seq of the thread just before it read it (every message up to
	// it was committed before the turn began reading).
	Read    *store.Boundary `json:"read,omitempty"`
	Horizon int64           `json:"horizon"`
	// Advance is set on the line of an AdvanceBoundary call.
	Advance *advanceLog `json:"advance,omitempty"`
}

type advanceLog struct {
	SeenSeq int64          `json:"seenSeq"`
	Stored  store.Boundary `json:"stored"`
}

// recordingStore notes, for each GetThread, the thread's highest Seq just
// before and the boundary returned, and every AdvanceBoundary call of one
// worker (whose turns run one at a time).
type recordingStore struct {
	store.Store
	horizon  int64
	read     *store.Boundary
	advances []advanceLog
}

func (r *recordingStore) GetThread(ctx context.Context, id string) (core.Thread, error) {
	r.horizon = 0
	if p, err := r.Store.ListMessages(ctx, store.MessageQuery{ThreadID: id, PerPage: store.PerPageAll}); err == nil {
		for _, m := range p.Messages {
			r.horizon = max(r.horizon, m.Seq)
		}
	}
	th, err := r.Store.GetThread(ctx, id)
	r.read = nil
	if th.Boundary != nil {
		b := th.Boundary.Clone()
		r.read = &b
	}
	return th, err
}

func (r *recordingStore) AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand store.Boundary) (store.Boundary, error) {
	b, err := r.Store.AdvanceBoundary(ctx, threadID, resourceID, cand)
	if err == nil {
		r.advances = append(r.advances, advanceLog{SeenSeq: cand.SeenSeq, Stored: b.Clone()})
	}
	return b, err
}

// runOverlapWorker takes turns on thread "t" until done, logging each one.
func runOverlapWorker() error {
	worker, _ := strconv.Atoi(os.Getenv(overlapWorkerEnv))
	turns, _ := strconv.Atoi(os.Getenv(overlapTurnsEnv))
	ctx := context.Background()
	raw, err := openOverlapStore(ctx, os.Getenv(overlapStoreEnv))
	if err != nil {
		return err
	}
	defer raw.Close()
	s := &recordingStore{Store: raw}
	m, err := core.New(core.Options{Store: s, Tokenizer: byteTokenizer{}, Config: overlapConfig()})
	if err != nil {
		return err
	}
	f, err := os.Create(os.Getenv(overlapLogEnv))
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	rng := rand.New(rand.NewPCG(uint64(worker), 7))
	for i := range turns {
		q := core.NewMessage(core.RoleUser, fmt.Sprintf("question %d of worker %d %s", i, worker, strings.Repeat("q", 70)))
		q.ID = fmt.Sprintf("q-%d-%d", worker, i)
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{q}})
		if err != nil {
			return fmt.Errorf("turn %d: Begin: %w", i, err)
		}
		l := overlapLog{Worker: worker, Turn: i, Read: s.read, Horizon: s.horizon}
		for _, msg := range append(turn.Messages(), turn.Trimmed()...) {
			if msg.Source == core.SourceMemory {
				l.Loaded = append(l.Loaded, msg.ID)
				l.MaxSeq = max(l.MaxSeq, msg.Seq)
			}
		}
		// The model's latency: other workers' turns begin, commit and trim.
		time.Sleep(time.Duration(rng.IntN(4000)) * time.Microsecond)
		a := core.NewMessage(core.RoleAssistant, fmt.Sprintf("answer %d of worker %d %s", i, worker, strings.Repeat("a", 70)))
		a.ID = fmt.Sprintf("a-%d-%d", worker, i)
		if err := turn.Commit(ctx, []core.Message{a}); err != nil {
			return fmt.Errorf("turn %d: Commit: %w", i, err)
		}
		lines := []overlapLog{l}
		for _, adv := range s.advances {
			lines = append(lines, overlapLog{Worker: worker, Turn: i, Advance: &adv})
		}
		s.advances = nil
		for _, line := range lines {
			if err := enc.Encode(line); err != nil {
				return err
			}
		}
	}
	return nil
}

// openOverlapStore opens the store named by spec ("sqlite:<path>" or
// "postgres:<schema>", the DSN from AGENTMEM_PG_DSN).
func openOverlapStore(ctx context.Context, spec string) (store.Store, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	if kind == "sqlite" {
		return sqlite.Open(ctx, arg, sqlite.WithBusyTimeout(30*time.Second))
	}
	return postgres.Open(ctx, os.Getenv(testenv.EnvPostgres), postgres.WithSchema(arg))
}

func TestOverlappingTurnsAcrossProcesses(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "shared.db")
		s, err := sqlite.Open(bg, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		runOverlap(t, "sqlite:"+path, s)
	})
	t.Run("postgres", func(t *testing.T) {
		s := openPG(t, nil)
		runOverlap(t, "postgres:"+s.Schema(), s)
	})
}

// runOverlap starts the workers on spec, waits for them and checks what
// every turn loaded against the committed messages.
func runOverlap(t *testing.T, spec string, s store.Store) {
	dir := t.TempDir()
	procs := make([]*exec.Cmd, overlapWorkers)
	for w := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(),
			overlapWorkerEnv+"="+strconv.Itoa(w), overlapStoreEnv+"="+spec,
			overlapTurnsEnv+"="+strconv.Itoa(overlapTurns), overlapLogEnv+"="+filepath.Join(dir, fmt.Sprint(w, ".jsonl")))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[w] = cmd
	}
	for w, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
	}
	var logs []overlapLog
	for w := range procs {
		logs = append(logs, readOverlapLog(t, filepath.Join(dir, fmt.Sprint(w, ".jsonl")))...)
	}
	checkNothingHiddenUnseen(t, s, logs)
}

func readOverlapLog(t *testing.T, path string) []overlapLog {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []overlapLog
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l overlapLog
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// checkNothingHiddenUnseen: when a turn skipped a message because of the
// boundary it read, although the message was committed before the turn
// began reading (its Seq is at most the turn's horizon: Seq follows commit
// order within a thread), some turn that stored that boundary must have
// seen the message: loaded it, begun reading after it was committed, or
// read past it while it lay before the turn's full window. A boundary
// without ids was pulled back by an insert or clamped (it hides less than
// the boundary it came from); its skips are counted, not attributed.
func checkNothingHiddenUnseen(t *testing.T, s store.Store, logs []overlapLog) {
	t.Helper()
	c := store.Check(s)
	p, err := c.ListMessages(bg, store.MessageQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 2*overlapWorkers*overlapTurns {
		t.Fatalf("%d messages stored, want %d", len(p.Messages), 2*overlapWorkers*overlapTurns)
	}
	type turnKey struct{ worker, turn int }
	turns := map[turnKey]overlapLog{}
	for _, l := range logs {
		if l.Advance == nil {
			turns[turnKey{l.Worker, l.Turn}] = l
		}
	}
	// sawBy reports whether the turn that made an advance saw m.
	type author struct {
		adv  advanceLog
		turn overlapLog
	}
	var authors []author
	for _, l := range logs {
		if l.Advance != nil {
			authors = append(authors, author{*l.Advance, turns[turnKey{l.Worker, l.Turn}]})
		}
	}
	if len(turns) != overlapWorkers*overlapTurns || len(authors) == 0 {
		t.Fatalf("%d turns and %d boundary advances logged", len(turns), len(authors))
	}
	byID := map[string]core.Message{}
	for _, m := range p.Messages {
		byID[m.ID] = m
	}
	// A turn saw m if it began reading after m was committed, loaded m, or
	// read past m (a higher Seq) while m lay before its window, which its
	// budget had filled.
	saw := func(a author, m core.Message) bool {
		if m.Seq <= a.turn.Horizon || slices.Contains(a.turn.Loaded, m.ID) {
			return true
		}
		if m.Seq > a.turn.MaxSeq {
			return false
		}
		for _, id := range a.turn.Loaded {
			if o := byID[id]; message.Less(&o, &m) {
				return false
			}
		}
		return true
	}
	skipped, pulledBack, unseen := 0, 0, 0
	for _, l := range turns {
		if l.Read == nil {
			continue
		}
		var by []author
		for _, a := range authors {
			if len(l.Read.MessageIDs) > 0 && sameBoundary(a.adv.Stored, *l.Read) {
				by = append(by, a)
			}
		}
		for _, m := range p.Messages {
			if m.Seq > l.Horizon || slices.Contains(l.Loaded, m.ID) || !l.Read.Excludes(m.CreatedAt, m.ID) {
				continue
			}
			skipped++
			if len(by) == 0 {
				pulledBack++
				continue
			}
			seen := false
			for _, a := range by {
				seen = seen || saw(a, m)
			}
			if !seen {
				unseen++
				t.Errorf("worker %d turn %d: %s (seq %d) was hidden by boundary %+v, stored by turns that had not seen it",
					l.Worker, l.Turn, m.ID, m.Seq, *l.Read)
			}
		}
	}
	t.Logf("%d turns by %d processes, %d boundary advances; turns skipped %d committed messages behind the boundary they read (%d under a pulled-back or clamped one), %d of them unseen by the boundary's author",
		len(turns), overlapWorkers, len(authors), skipped, pulledBack, unseen)
}

func sameBoundary(a, b store.Boundary) bool {
	return a.CreatedAt.Equal(b.CreatedAt) && fmt.Sprint(a.MessageIDs) == fmt.Sprint(b.MessageIDs) &&
		a.MaxTokens == b.MaxTokens && a.AtMaxRemoveTokens == b.AtMaxRemoveTokens
}
