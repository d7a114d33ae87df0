package core_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/testenv"
)

// gatedVectors is the local vector store whose upserts of one message are
// held: the first fails when failFirst is set (the message stays
// unindexed), the next waits at the gate until it is opened, so that a
// delete or move runs between the message's read and its upsert.
type gatedVectors struct {
	*local.Store
	msgID     string
	failFirst bool
	mu        sync.Mutex
	upserts   int
	reached   chan struct{}
	open      chan struct{}
}

func newGatedVectors(msgID string, failFirst bool) *gatedVectors {
	return &gatedVectors{Store: local.New(), msgID: msgID, failFirst: failFirst,
		reached: make(chan struct{}), open: make(chan struct{})}
}

func (v *gatedVectors) Upsert(ctx context.Context, index string, recs []vector.Record) error {
	if slices.ContainsFunc(recs, func(r vector.Record) bool { return r.Meta.MessageID == v.msgID }) {
		v.mu.Lock()
		v.upserts++
		n := v.upserts
		v.mu.Unlock()
		switch {
		case n == 1 && v.failFirst:
			return errors.New("vector store refused the upsert (scripted)")
		case n == 1 || n == 2 && v.failFirst:
			close(v.reached)
			<-v.open
		}
	}
	return v.Store.Upsert(ctx, index, recs)
}

// holds reports whether resource res has a vector of message id.
func (v *gatedVectors) holds(t *testing.T, emb *local.HashEmbedder, res, id string) bool {
	t.Helper()
	hits, err := v.Store.Query(ctx, vector.IndexName(emb.Dimension()), vector.Query{Vector: emb.EmbedOne("text"), TopK: 100,
		Filter: vector.Filter{ResourceID: res}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Meta.MessageID == id {
			return true
		}
	}
	return false
}

// A delete or move that runs while a message is being indexed (its save's
// inline indexing, or the background retry of its failed indexing) leaves
// no vector under the resource that no longer owns the message: the
// indexer reads the owners back after its upsert and deletes what it wrote
// for messages gone or moved; a moved message is indexed under its owner.
func TestIndexingRacesDeleteAndMove(t *testing.T) {
	changes := []struct {
		name  string
		run   func(m *core.Memory) error
		owner string // the message's resource after the change, "" when deleted
	}{
		{"DeleteThread", func(m *core.Memory) error { return m.DeleteThread(ctx, "t1") }, ""},
		{"DeleteMessages", func(m *core.Memory) error { return m.DeleteMessages(ctx, []string{"m1"}) }, ""},
		{"MoveThread", func(m *core.Memory) error { _, err := m.MoveThread(ctx, "t1", "r2"); return err }, "r2"},
	}
	for _, c := range changes {
		for _, retry := range []bool{false, true} {
			name := c.name + "/inline"
			if retry {
				name = c.name + "/retry"
			}
			t.Run(name, func(t *testing.T) {
				eachBackend(t, func(t *testing.T, s store.Store) { raceIndexing(t, s, retry, c.run, c.owner) })
			})
		}
	}
}

func raceIndexing(t *testing.T, s store.Store, retry bool, change func(*core.Memory) error, owner string) {
	emb := local.NewHashEmbedder(16)
	v := newGatedVectors("m1", retry)
	m, err := core.New(core.Options{Store: s, Vector: v, Embedder: emb, Tokenizer: testenv.ByteTokenizer{},
		Config: core.Config{SemanticRecall: &core.SemanticRecall{}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []string{"t1", "t2"} {
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: th, ResourceID: "r1"}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := m.SaveMessages(ctx, []core.Message{userAt("m1", "t1", "r1", "text of m1", T(1))}, nil)
		if err == nil && retry {
			// The next write of r1 retries m1 in the background.
			_, err = m.SaveMessages(ctx, []core.Message{userAt("m2", "t2", "r1", "text of m2", T(2))}, nil)
		}
		done <- err
	}()
	<-v.reached
	if err := change(m); err != nil {
		t.Fatal(err)
	}
	close(v.open)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctx); err != nil { // awaits the background retry
		t.Fatal(err)
	}
	if v.holds(t, emb, "r1", "m1") {
		t.Fatal("a vector of m1 stays under r1, which no longer owns it")
	}
	if owner != "" && !v.holds(t, emb, owner, "m1") {
		t.Fatalf("m1 has no vector under its owner %s", owner)
	}
}
