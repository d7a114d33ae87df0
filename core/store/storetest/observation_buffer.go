package storetest

import (
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// testObservationsBuffer: buffered chunks and a buffered reflection are
// stored with the record and read back; activating a chunk (observations
// appended, its messages observed, the chunk gone) is one compare-and-set; a
// write at a stale version changes nothing; a chunk covering an observed
// message is refused.
func testObservationsBuffer(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	key := store.ObservationKey(store.ScopeThread, "A", "r")
	chunk := func(obs string, ids ...string) store.BufferedChunk {
		c := store.BufferedChunk{Observations: obs, Tokens: 3, MessageTokens: 40, CreatedAt: T(9)}
		for i, id := range ids {
			c.Messages = append(c.Messages, store.ObservedMessage{ID: id, CreatedAt: T(i + 1)})
		}
		return c
	}
	rec := store.ObservationRecord{Key: key, Observations: "- old", ObservationTokens: 2}
	rec.Buffer.Chunks = []store.BufferedChunk{chunk("- first", "m1", "m2"), chunk("- second", "m3")}
	rec.Buffer.Reflection = &store.BufferedReflection{Observations: "- condensed", Tokens: 1, InputLength: 5, InputHash: "h", CreatedAt: T(9)}
	v1 := putObs(t, s, rec, 0)
	got := getObs(t, s, key)
	sameObs(t, "stored", got, v1)
	if len(got.Buffer.Chunks) != 2 || got.Buffer.Chunks[1].Observations != "- second" || len(got.Buffer.Chunks[0].Messages) != 2 ||
		got.Buffer.Chunks[0].Messages[1].ID != "m2" || !got.Buffer.Chunks[0].Messages[1].CreatedAt.Equal(T(2)) ||
		got.Buffer.Chunks[0].MessageTokens != 40 || got.Buffer.Reflection == nil || got.Buffer.Reflection.InputHash != "h" {
		t.Fatalf("buffer read back as %+v", got.Buffer)
	}

	// Activation: the first chunk's observations become active and its
	// messages observed, in one write.
	act := got.Clone()
	act.Observations += "\n- first"
	act.LastObservedAt, act.ObservedMessageIDs = T(2), []string{"m1", "m2"}
	act.Buffer.Chunks = act.Buffer.Chunks[1:]
	v2 := putObs(t, s, act, v1.Version)
	got = getObs(t, s, key)
	if got.Observations != "- old\n- first" || len(got.Buffer.Chunks) != 1 || got.Buffer.Chunks[0].Observations != "- second" || got.Version != v2.Version {
		t.Fatalf("after activation: %+v", got)
	}

	// A stale writer (still at v1) cannot activate the chunk again.
	_, err := s.PutObservations(ctx(), act, v1.Version)
	if !errors.Is(err, memerr.ErrConflict) {
		t.Fatalf("stale activation: err = %v, want ErrConflict", err)
	}
	if again := getObs(t, s, key); again.Observations != got.Observations || again.Version != got.Version {
		t.Fatalf("stale write changed the record: %+v", again)
	}

	// A chunk may not cover an observed message, nor one another chunk covers.
	bad := got.Clone()
	bad.Buffer.Chunks = append(bad.Buffer.Chunks, chunk("- again", "m1"))
	if _, err := s.PutObservations(ctx(), bad, got.Version); !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Fatalf("chunk over an observed message: err = %v, want ErrInvalidArgument", err)
	}
	bad = got.Clone()
	bad.Buffer.Chunks = append(bad.Buffer.Chunks, store.BufferedChunk{Observations: "- x", Messages: []store.ObservedMessage{{ID: "m3", CreatedAt: T(3)}}})
	if _, err := s.PutObservations(ctx(), bad, got.Version); !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Fatalf("message buffered twice: err = %v, want ErrInvalidArgument", err)
	}

	// Emptying the buffer is stored as empty; so does ClearObservations.
	clear := got.Clone()
	clear.Buffer = store.ObservationBuffer{}
	emptied := putObs(t, s, clear, got.Version)
	if b := getObs(t, s, key).Buffer; !b.Empty() {
		t.Fatalf("buffer not emptied: %+v", b)
	}
	again := emptied.Clone()
	again.Buffer.Chunks = []store.BufferedChunk{chunk("- fresh", "m7")}
	putObs(t, s, again, emptied.Version)
	if _, err := s.ClearObservations(ctx(), key); err != nil {
		t.Fatal(err)
	}
	if b := getObs(t, s, key).Buffer; !b.Empty() {
		t.Fatalf("buffer after ClearObservations: %+v", b)
	}
}
