package core_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/internal/testenv"
)

// flakyVectors is a self-embedding vector.Store that fails every call while
// down (or when the call's context is done) and remembers the message ids it
// indexed.
type flakyVectors struct {
	mu      sync.Mutex
	down    bool
	indexed map[string]bool
}

func (v *flakyVectors) setDown(down bool) { v.mu.Lock(); v.down = down; v.mu.Unlock() }

func (v *flakyVectors) fail(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.down {
		return errors.New("vector store down")
	}
	return nil
}

func (v *flakyVectors) has(ids ...string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, id := range ids {
		if !v.indexed[id] {
			return false
		}
	}
	return true
}

func (v *flakyVectors) SelfEmbedding() bool { return true }
func (v *flakyVectors) EnsureIndex(ctx context.Context, spec vector.IndexSpec) error {
	return v.fail(ctx)
}
func (v *flakyVectors) Upsert(ctx context.Context, index string, recs []vector.Record) error {
	if err := v.fail(ctx); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.indexed == nil {
		v.indexed = map[string]bool{}
	}
	for _, r := range recs {
		v.indexed[r.Meta.MessageID] = true
	}
	return nil
}
func (v *flakyVectors) Query(ctx context.Context, index string, q vector.Query) ([]vector.Hit, error) {
	return nil, v.fail(ctx)
}
func (v *flakyVectors) Delete(ctx context.Context, index string, f vector.Filter) error {
	return v.fail(ctx)
}

// markFailStore refuses MarkUnindexed while failMarks is set.
type markFailStore struct {
	fullStore
	mu        sync.Mutex
	failMarks bool
}

func (s *markFailStore) setFailMarks(fail bool) { s.mu.Lock(); s.failMarks = fail; s.mu.Unlock() }

func (s *markFailStore) MarkUnindexed(ctx context.Context, ids []string) error {
	s.mu.Lock()
	fail := s.failMarks
	s.mu.Unlock()
	if fail {
		return memerr.WrapStorage("MarkUnindexed", errors.New("storage hiccup"))
	}
	return s.fullStore.MarkUnindexed(ctx, ids)
}

func recallMem(t *testing.T, s store.Store, v vector.Store) *core.Memory {
	t.Helper()
	m, err := core.New(core.Options{Store: s, Vector: v, Tokenizer: testenv.ByteTokenizer{},
		Config: core.Config{SemanticRecall: &core.SemanticRecall{}}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func saveText(t *testing.T, m *core.Memory, c context.Context, id, thread, res string) {
	t.Helper()
	msg := core.NewMessage(core.RoleUser, "text of "+id)
	msg.ID, msg.ThreadID, msg.ResourceID = id, thread, res
	if _, err := m.SaveMessages(c, []core.Message{msg}, nil); err != nil {
		t.Fatalf("SaveMessages(%s) failed: %v", id, err)
	}
	// The retry of recorded messages runs in the background; Close awaits it.
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func wantUnindexed(t *testing.T, m *core.Memory, res string, want int) {
	t.Helper()
	if n, err := m.Unindexed(ctx, res); err != nil || n != want {
		t.Fatalf("Unindexed(%q) = %d, %v; want %d", res, n, err, want)
	}
}

func storedMarks(t *testing.T, s store.Store, res string) []string {
	t.Helper()
	msgs, err := store.Check(s).ListUnindexed(ctx, res, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return ids(msgs)
}

// A failed indexing is recorded in the store, retried by the next successful
// write (of this process or of a restarted one) and cleared.
func TestUnindexedRecordedAndRetried(t *testing.T) {
	s := memstore.New()
	v := &flakyVectors{}
	m := recallMem(t, s, v)
	seed(t, s, "t1", "r")
	seed(t, s, "t2", "r")
	seed(t, s, "o1", "other")

	v.setDown(true)
	saveText(t, m, ctx, "u1", "t1", "r")
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t1", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "during the outage")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "noted")}); err != nil {
		t.Fatalf("Commit failed during the outage: %v", err)
	}
	saveText(t, m, ctx, "x1", "o1", "other")
	wantUnindexed(t, m, "r", 3)
	wantUnindexed(t, m, "other", 1)
	wantUnindexed(t, m, "", 4)
	if v.has("u1") {
		t.Fatal("u1 indexed while the vector store was down")
	}

	// The next successful write of the resource retries and clears its markers,
	// leaving other resources' markers alone.
	v.setDown(false)
	saveText(t, m, ctx, "u2", "t2", "r")
	wantUnindexed(t, m, "r", 0)
	wantUnindexed(t, m, "other", 1)
	same(t, "stored markers", storedMarks(t, s, ""), []string{"x1"})
	if !v.has("u1", "u2") {
		t.Fatal("u1 or u2 not indexed after the retry")
	}

	// A restarted process (a new Memory on the same store) retries the old
	// markers on its first successful write, without Reindex.
	v.setDown(true)
	saveText(t, m, ctx, "u3", "t1", "r")
	same(t, "marker of u3", storedMarks(t, s, "r"), []string{"u3"})
	v.setDown(false)
	restarted := recallMem(t, s, v)
	saveText(t, restarted, ctx, "u4", "t2", "r")
	wantUnindexed(t, restarted, "r", 0)
	if !v.has("u3", "u4") {
		t.Fatal("the restarted process did not index u3")
	}

	// Reindex retries the markers of the thread's resource first; a deleted
	// message takes its marker with it.
	v.setDown(true)
	saveText(t, m, ctx, "x2", "o1", "other")
	saveText(t, m, ctx, "x3", "o1", "other")
	v.setDown(false)
	if err := m.DeleteMessages(ctx, []string{"x3"}); err != nil {
		t.Fatal(err)
	}
	same(t, "markers of other", storedMarks(t, s, "other"), []string{"x1", "x2"})
	if err := restarted.Reindex(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	wantUnindexed(t, m, "", 0)
	if !v.has("x1", "x2") {
		t.Fatal("Reindex did not index x1 and x2")
	}
}

// ReindexResource retries the resource's markers first and fails (keeping
// them) while the vector store is down.
func TestUnindexedReindexResource(t *testing.T) {
	s := memstore.New()
	v := &flakyVectors{}
	m := recallMem(t, s, v)
	seed(t, s, "t1", "r")
	v.setDown(true)
	saveText(t, m, ctx, "u1", "t1", "r")
	if err := m.ReindexResource(ctx, "r"); !errors.Is(err, core.ErrVector) {
		t.Fatalf("ReindexResource during the outage = %v", err)
	}
	wantUnindexed(t, m, "r", 1)
	v.setDown(false)
	if err := recallMem(t, s, v).ReindexResource(ctx, "r"); err != nil {
		t.Fatal(err)
	}
	wantUnindexed(t, m, "r", 0)
	if !v.has("u1") {
		t.Fatal("u1 not indexed")
	}
}

// A write whose context is cancelled after the save still records its
// messages: the marker is written with a context of its own.
func TestUnindexedCancelledWrite(t *testing.T) {
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &cancelAfterSave{fullStore: memstore.New(), cancel: cancel}
	v := &flakyVectors{}
	m := recallMem(t, s, v)
	seed(t, s, "t1", "r")
	saveText(t, m, c, "u1", "t1", "r") // saved, then the context ends before indexing
	same(t, "markers", storedMarks(t, s, "r"), []string{"u1"})
}

// cancelAfterSave ends the caller's context right after a successful save.
type cancelAfterSave struct {
	fullStore
	cancel context.CancelFunc
}

func (s *cancelAfterSave) SaveMessages(ctx context.Context, msgs []core.Message) ([]core.Message, error) {
	out, err := s.fullStore.SaveMessages(ctx, msgs)
	if err == nil {
		s.cancel()
	}
	return out, err
}

// When the store refuses the markers too, the process keeps them and records
// them with its next write.
func TestUnindexedMarkFallback(t *testing.T) {
	s := &markFailStore{fullStore: memstore.New()}
	v := &flakyVectors{}
	m := recallMem(t, s, v)
	seed(t, s, "t1", "r")
	v.setDown(true)
	s.setFailMarks(true)
	saveText(t, m, ctx, "u1", "t1", "r")
	same(t, "stored markers", storedMarks(t, s, "r"), nil)
	wantUnindexed(t, m, "r", 1)
	wantUnindexed(t, m, "elsewhere", 0)

	// Still down, the store recovered: the failed write records both.
	s.setFailMarks(false)
	saveText(t, m, ctx, "u2", "t1", "r")
	same(t, "stored markers", storedMarks(t, s, "r"), []string{"u1", "u2"})
	wantUnindexed(t, m, "r", 2)

	// Refused again, then a successful write records and retries them.
	s.setFailMarks(true)
	saveText(t, m, ctx, "u3", "t1", "r")
	wantUnindexed(t, m, "r", 3)
	s.setFailMarks(false)
	v.setDown(false)
	saveText(t, m, ctx, "u4", "t1", "r")
	wantUnindexed(t, m, "r", 0)
	if !v.has("u1", "u2", "u3", "u4") {
		t.Fatal("not everything indexed")
	}
}

// One retry indexes a bounded batch of the oldest markers.
func TestUnindexedRetryBatch(t *testing.T) {
	s := memstore.New()
	v := &flakyVectors{}
	m := recallMem(t, s, v)
	seed(t, s, "t1", "r")
	var batch []core.Message
	for i := range 600 {
		msg := userAt(fmt.Sprintf("m%03d", i), "t1", "r", "old message", T(i))
		batch = append(batch, msg)
	}
	v.setDown(true)
	if _, err := m.SaveMessages(ctx, batch, nil); err != nil {
		t.Fatal(err)
	}
	wantUnindexed(t, m, "r", 600)
	v.setDown(false)
	saveText(t, m, ctx, "new", "t1", "r")
	left := storedMarks(t, s, "r")
	if len(left) != 100 || left[0] != "m500" || !slices.IsSorted(left) {
		t.Fatalf("after one retry %d markers left, from %v", len(left), left[:min(len(left), 1)])
	}
	saveText(t, m, ctx, "newer", "t1", "r")
	wantUnindexed(t, m, "r", 0)
}
