package core_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

// Environment of the process killed while it stores a buffered chunk.
const (
	bufEnvDB   = "AGENTMEM_BUFFER_TEST_DB"
	bufEnvStep = "AGENTMEM_BUFFER_TEST_STEP"
	bufEnvAt   = "AGENTMEM_BUFFER_TEST_AT"
)

// chunkWriteStore stops the process around its at-th write that adds a
// buffered chunk: "before" stops before the write, "after" once it is
// committed, "during" announces the write and goes on (the parent kills
// the process while it runs).
type chunkWriteStore struct {
	*sqlite.Store
	step string
	at   int
	n    int
}

func (s *chunkWriteStore) PutObservations(ctx context.Context, rec store.ObservationRecord, expect int64) (store.ObservationRecord, error) {
	cur, err := s.Store.GetObservations(ctx, rec.Key)
	if err != nil || len(rec.Buffer.Chunks) <= len(cur.Buffer.Chunks) {
		return s.Store.PutObservations(ctx, rec, expect)
	}
	if s.n++; s.n < s.at {
		return s.Store.PutObservations(ctx, rec, expect)
	}
	if s.step != "after" {
		fmt.Println("AT " + s.step)
	}
	if s.step == "before" {
		select {} // the parent kills the process here
	}
	out, err := s.Store.PutObservations(ctx, rec, expect)
	if s.step == "after" {
		fmt.Println("AT after")
		select {}
	}
	return out, err
}

func killBufferConfig(obs core.Model) core.Config {
	return bufferedConfig(obs, &reflectorModel{}, 500, 1000000, 0.2, 3)
}

// TestBufferedObservationWriterProcess is the process the kill test starts:
// it runs turns with buffered observational memory until the chunk write
// named in the environment stops it. Run directly, it does nothing.
func TestBufferedObservationWriterProcess(t *testing.T) {
	step := os.Getenv(bufEnvStep)
	if step == "" {
		return
	}
	at, _ := strconv.Atoi(os.Getenv(bufEnvAt))
	s, err := sqlite.Open(ctx, os.Getenv(bufEnvDB))
	if err != nil {
		t.Fatal(err)
	}
	m := newMem(t, &chunkWriteStore{Store: s, step: step, at: at}, killBufferConfig(&observerModel{}))
	for i := 0; i < 1000; i++ {
		observedTurn(t, m, "t", "r", i)
		core.WaitBackground(m)
	}
	fmt.Fprintln(os.Stderr, "the writer process ran out of turns")
	os.Exit(3)
}

var sawRE = regexp.MustCompile(`saw (m\d+[ua])`)

// TestBufferedObservationSurvivesKill: the process storing a buffered chunk
// is killed before, during or after the write; on restart every message is
// observed exactly once: a stored chunk is activated once, a lost one is
// observed again, none is applied twice.
func TestBufferedObservationSurvivesKill(t *testing.T) {
	for _, step := range []string{"before", "during", "after"} {
		for _, at := range []int{1, 8} { // the first chunk, and one after an activation
			t.Run(fmt.Sprintf("%s/%d", step, at), func(t *testing.T) { testBufferKilledAt(t, step, at) })
		}
	}
}

func testBufferKilledAt(t *testing.T, step string, at int) {
	dbPath := filepath.Join(t.TempDir(), "memory.db")
	killAt(t, "TestBufferedObservationWriterProcess", step, bufEnvDB+"="+dbPath, bufEnvStep+"="+step, bufEnvAt+"="+strconv.Itoa(at))

	s, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	rec, err := s.GetObservations(ctx, "thread:t")
	if err != nil {
		t.Fatal(err)
	}
	if step == "after" && len(rec.Buffer.Chunks) == 0 {
		t.Fatal("the committed chunk is not stored")
	}
	if step == "before" && at == 1 && (len(rec.Buffer.Chunks) != 0 || rec.Observations != "") {
		t.Fatalf("a chunk stored before its write: %+v", rec.Buffer)
	}
	// Restart: a new process observes what is left, with more turns.
	obs := &observerModel{}
	m := newMem(t, s, killBufferConfig(obs))
	for i := 1000; i < 1010; i++ {
		observedTurn(t, m, "t", "r", i)
		core.WaitBackground(m)
	}
	final, err := m.ObserveNow(ctx, "t", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, mt := range sawRE.FindAllStringSubmatch(final.Observations, -1) {
		counts[mt[1]]++
	}
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: "t", PerPage: 10000})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range page.Messages {
		tag := tagRE.FindString(msg.Text())
		if counts[tag] != 1 {
			t.Fatalf("%s is in the observations %d times after the restart", tag, counts[tag])
		}
		if !final.Observed(msg.CreatedAt, msg.ID) {
			t.Fatalf("%s is not observed", tag)
		}
	}
	if len(counts) != len(page.Messages) {
		t.Fatalf("%d tags observed, %d messages stored", len(counts), len(page.Messages))
	}
}
