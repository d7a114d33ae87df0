package integration_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
)

// faultyVectors passes every call to a real vector store, and fails one
// write (Upsert or Delete) chosen by arm: before the store sees it (a
// failed call) or after the store applied it (a reply lost on the way, as
// when the process stops right after the write).
type faultyVectors struct {
	vector.Store
	mu     sync.Mutex
	index  string   // the index of the last Upsert
	writes []string // writes seen while recording
	record bool
	failAt int  // 1-based number of the write to fail; 0 = none
	after  bool // fail after the store applied the write
	seen   int
	fired  bool
}

func (f *faultyVectors) SearchModes() []string {
	if ml, ok := f.Store.(vector.ModeLister); ok {
		return ml.SearchModes()
	}
	return nil
}

// arm makes the n-th write from now on fail once.
func (f *faultyVectors) arm(n int, after bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failAt, f.after, f.seen, f.fired = n, after, 0, false
}

// disarm stops failing writes and reports whether the armed write failed.
func (f *faultyVectors) disarm() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	fired := f.fired
	f.failAt, f.fired = 0, false
	return fired
}

// recording starts (on) or stops recording the kinds of writes and returns
// those recorded.
func (f *faultyVectors) recording(on bool) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.writes
	f.record, f.writes = on, nil
	return out
}

func (f *faultyVectors) write(kind string, do func() error) error {
	f.mu.Lock()
	if f.record {
		f.writes = append(f.writes, kind)
	}
	fail := false
	if f.failAt > 0 && !f.fired {
		f.seen++
		fail = f.seen == f.failAt
		f.fired = fail
	}
	after := f.after
	f.mu.Unlock()
	if fail && !after {
		return memerr.Errorf(memerr.CodeVector, kind, "injected failure before the write")
	}
	if err := do(); err != nil || !fail {
		return err
	}
	return memerr.Errorf(memerr.CodeVector, kind, "injected failure after the write")
}

func (f *faultyVectors) Upsert(ctx context.Context, index string, recs []vector.Record) error {
	f.mu.Lock()
	f.index = index
	f.mu.Unlock()
	return f.write("Upsert", func() error { return f.Store.Upsert(ctx, index, recs) })
}

func (f *faultyVectors) Delete(ctx context.Context, index string, flt vector.Filter) error {
	return f.write("Delete", func() error { return f.Store.Delete(ctx, index, flt) })
}

// records returns, for each message of thread under resource, how many
// vector records a query of the store itself returns for it.
func (f *faultyVectors) records(t *testing.T, emb vector.Embedder, resource, thread string) map[string]int {
	t.Helper()
	q := vector.Query{Text: "parcel number", TopK: 1000, Filter: vector.Filter{ResourceID: resource, ThreadID: thread}}
	if emb != nil {
		vecs, err := emb.Embed(bg, []string{q.Text})
		if err != nil {
			t.Fatal(err)
		}
		q.Vector = vecs[0]
	}
	f.mu.Lock()
	index := f.index
	f.mu.Unlock()
	hits, err := f.Store.Query(bg, index, q)
	if err != nil {
		t.Fatalf("query %s/%s: %v", resource, thread, err)
	}
	out := map[string]int{}
	for _, h := range hits {
		if h.Meta.ResourceID != resource || h.Meta.ThreadID != thread {
			t.Fatalf("hit %s of %s/%s under %s/%s", h.ID, h.Meta.ResourceID, h.Meta.ThreadID, resource, thread)
		}
		out[h.Meta.MessageID]++
	}
	return out
}

// moveFixture saves thread under "guest": six messages about a parcel,
// and waits for their indexing.
func moveFixture(t *testing.T, mem *core.Memory, thread string) []string {
	t.Helper()
	if _, err := mem.CreateThread(bg, core.ThreadInput{ID: thread, ResourceID: "guest"}); err != nil {
		t.Fatal(err)
	}
	var msgs []core.Message
	var want []string
	for i := range 6 {
		msg := core.NewMessage(core.RoleUser, fmt.Sprintf("%s: message %d about parcel number %d", thread, i, 7*i+1))
		msg.ID, msg.ThreadID, msg.ResourceID = fmt.Sprintf("%s-m%d", thread, i), thread, "guest"
		msgs = append(msgs, msg)
		want = append(want, msg.ID)
	}
	if _, err := mem.SaveMessages(bg, msgs, nil); err != nil {
		t.Fatal(err)
	}
	if err := mem.Close(bg); err != nil { // background index retries
		t.Fatal(err)
	}
	return want
}

// checkMoved asserts that every vector of thread is found under "user"
// exactly once and under "guest" never, by the store and by Memory.Recall.
func checkMoved(t *testing.T, mem *core.Memory, f *faultyVectors, emb vector.Embedder, thread string, want []string) {
	t.Helper()
	if got := f.records(t, emb, "guest", thread); len(got) != 0 {
		t.Fatalf("records of %s under the old resource: %v", thread, got)
	}
	got := f.records(t, emb, "user", thread)
	for _, id := range want {
		if got[id] != 1 {
			t.Fatalf("message %s has %d records under the new resource: %v", id, got[id], got)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("records under the new resource: %v, want %v", got, want)
	}
	if n, err := mem.Unindexed(bg, ""); err != nil || n != 0 {
		t.Fatalf("unindexed after the move = %d, %v", n, err)
	}
	cfg := &core.Config{LastMessages: core.NoHistory, SemanticRecall: &core.SemanticRecall{TopK: 500, MessageRange: &core.MessageRange{}}}
	res, err := mem.Recall(bg, core.RecallQuery{ThreadID: "signed-in", ResourceID: "user", VectorSearch: "parcel number", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	var recalled []string
	for _, m := range res.Messages {
		if m.ThreadID == thread {
			recalled = append(recalled, m.ID)
		}
	}
	slices.Sort(recalled)
	if !slices.Equal(recalled, want) {
		t.Fatalf("the new owner recalls %v of %s, want %v", recalled, thread, want)
	}
	res, err = mem.Recall(bg, core.RecallQuery{ThreadID: "guest-left", ResourceID: "guest", VectorSearch: "parcel number", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Messages {
		if m.ThreadID == thread {
			t.Fatalf("the old owner recalls moved message %s", m.ID)
		}
	}
}

// Mastra's updateThreadResourceId with semantic recall, on every vector
// store: the moved thread's vectors are found under the new resource
// exactly once and under the old never, and a move whose vector write
// fails or whose reply is lost (each write of the move in turn) never
// shows a vector under both resources and, run again, finishes (a refused
// upsert is retried in smaller batches, so the move may finish at once).
func TestMoveThreadMovesVectorsOnEveryVectorStore(t *testing.T) {
	for _, b := range vectorBackends() {
		t.Run(b.name, func(t *testing.T) {
			vs, emb := b.open(t)
			f := &faultyVectors{Store: vs}
			mem, err := core.New(core.Options{Store: memstore.New(), Vector: f, Embedder: emb,
				Config: core.Config{SemanticRecall: &core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{}}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, th := range []core.ThreadInput{{ID: "signed-in", ResourceID: "user"}, {ID: "guest-left", ResourceID: "guest"}} {
				if _, err := mem.CreateThread(bg, th); err != nil {
					t.Fatal(err)
				}
			}

			want := moveFixture(t, mem, "clean")
			f.recording(true)
			if _, err := mem.MoveThread(bg, "clean", "user"); err != nil {
				t.Fatal(err)
			}
			writes := f.recording(false)
			checkMoved(t, mem, f, emb, "clean", want)
			if !slices.Contains(writes, "Delete") || !slices.Contains(writes, "Upsert") {
				t.Fatalf("the move wrote %v, want deletes and upserts", writes)
			}

			for n := range writes {
				for _, after := range []bool{false, true} {
					thread := fmt.Sprintf("w%d-%s", n+1, map[bool]string{false: "failed", true: "lost"}[after])
					t.Run(thread, func(t *testing.T) {
						want := moveFixture(t, mem, thread)
						f.arm(n+1, after)
						_, moveErr := mem.MoveThread(bg, thread, "user")
						if err := mem.Close(bg); err != nil {
							t.Fatal(err)
						}
						if !f.disarm() {
							t.Fatalf("write %d of %v was not reached", n+1, writes)
						}
						// A refused upsert is retried in halves down to single
						// messages, so a move can finish despite it; any other
						// write that fails fails the move.
						if moveErr == nil && writes[n] != "Upsert" {
							t.Fatalf("MoveThread succeeded although write %d (%s) failed", n+1, writes[n])
						}
						if moveErr == nil {
							checkMoved(t, mem, f, emb, thread, want)
						}
						old, moved := f.records(t, emb, "guest", thread), f.records(t, emb, "user", thread)
						for id := range old {
							if moved[id] > 0 {
								t.Fatalf("after the failed move message %s has vectors under both resources", id)
							}
						}
						th, err := mem.MoveThread(bg, thread, "user")
						if err != nil || th.ResourceID != "user" || th.Metadata["agentmem.move"] != nil {
							t.Fatalf("resumed MoveThread = %+v, %v", th, err)
						}
						checkMoved(t, mem, f, emb, thread, want)
					})
				}
			}
		})
	}
}
