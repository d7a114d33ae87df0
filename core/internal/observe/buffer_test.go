package observe

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/internal/telemetry"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

var bg = context.Background()

// bufferFixture is a thread "t" in a memstore with messages m1..mn of the
// given tokens, and a cycle of its record that knows them as unobserved.
type bufferFixture struct {
	s    *memstore.Store
	msgs []message.Message
	c    *cycle
	wg   sync.WaitGroup
}

// testTokenizer counts words and keeps the stored counts of messages.
type testTokenizer struct{ wordCounter }

func (testTokenizer) Encoding() string            { return "words" }
func (testTokenizer) Ensure(msg *message.Message) {}

type noSkipped struct{}

func (noSkipped) Report(context.Context, []message.Message) {}

func newBufferFixture(t *testing.T, tokens ...int) *bufferFixture {
	t.Helper()
	f := &bufferFixture{s: memstore.New()}
	th, err := f.s.SaveThread(bg, store.Thread{ID: "t", ResourceID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i, n := range tokens {
		msg := msgAt("m"+string(rune('1'+i)), t0.Add(time.Duration(i)*time.Second), n)
		msg.ThreadID, msg.ResourceID, msg.TokenEncoding = "t", "r", "words"
		f.msgs = append(f.msgs, msg)
	}
	if len(f.msgs) > 0 {
		if _, err := f.s.SaveMessages(bg, f.msgs); err != nil {
			t.Fatal(err)
		}
	}
	o := New(Deps{Store: f.s, Tokenizer: testTokenizer{}, Skipped: noSkipped{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Telemetry: telemetry.New(telemetry.Config{}), Jobs: &f.wg})
	set := &Settings{Scope: store.ScopeThread, MaxUnobserved: 1000, MaxTokensPerBatch: 1 << 20, Timeout: time.Second}
	f.c = o.cycle(bg, set, th, Pending{Known: f.msgs})
	return f
}

// chunk stores a buffered chunk over the messages with the given indexes.
func (f *bufferFixture) chunk(t *testing.T, text string, idx ...int) {
	t.Helper()
	err := f.c.update(bg, func(cur *store.ObservationRecord) bool {
		c := store.BufferedChunk{Observations: text, Tokens: wordCounter{}.Count(text), Generation: cur.Generation}
		for _, i := range idx {
			c.Messages = append(c.Messages, store.ObservedMessage{ID: f.msgs[i].ID, CreatedAt: f.msgs[i].CreatedAt})
			c.MessageTokens += f.msgs[i].Tokens
		}
		cur.Buffer.Chunks = append(cur.Buffer.Chunks, c)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pending is the token sum of the unobserved messages.
func (f *bufferFixture) pending(t *testing.T) int {
	t.Helper()
	msgs, err := f.c.tally(bg, f.get(t))
	if err != nil {
		t.Fatal(err)
	}
	return Tokens(msgs)
}

func (f *bufferFixture) get(t *testing.T) store.ObservationRecord {
	t.Helper()
	rec, err := f.s.GetObservations(bg, "thread:t")
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func settings(threshold int, activation float64) *BufferSettings {
	return &BufferSettings{MessageTokens: threshold, BufferTokens: threshold / 5, Activation: activation, BlockAfter: threshold * 6 / 5}
}

// Mastra: "should treat swapBufferedToActive as a no-op when no buffered
// observations exist" (stores/_test-utils/src/domains/memory/
// observational-memory.ts, describe 'Buffered Observations'; the cases below
// come from the same describe unless they say otherwise).
func TestActivateWithoutChunksIsNoop(t *testing.T) {
	f := newBufferFixture(t, 100)
	rec, err := f.c.activate(bg, settings(1000, 1), 0, true)
	if err != nil || rec.Version != 0 || rec.Observations != "" || len(rec.Buffer.Chunks) != 0 {
		t.Fatalf("Activate = %+v, %v; want the untouched zero record", rec, err)
	}
}

// Mastra: "should make swapBufferedToActive idempotent after activation".
func TestActivateIsIdempotent(t *testing.T) {
	f := newBufferFixture(t, 600)
	f.chunk(t, "- Buffered A", 0)
	first, err := f.c.activate(bg, settings(1000, 1), f.pending(t), false)
	if err != nil || first.Observations != "- Buffered A" || len(first.Buffer.Chunks) != 0 || !first.Observed(f.msgs[0].CreatedAt, "m1") {
		t.Fatalf("first activation = %+v, %v", first, err)
	}
	second, err := f.c.activate(bg, settings(1000, 1), 0, true)
	if err != nil || second.Observations != first.Observations || second.Version != first.Version {
		t.Fatalf("second activation changed the record: %+v, %v", second, err)
	}
}

// Mastra: "should activate buffered chunks at activation ratio boundaries".
func TestActivateAtRatioBoundaries(t *testing.T) {
	f := newBufferFixture(t, 700, 700)
	f.chunk(t, "- Chunk 1", 0)
	f.chunk(t, "- Chunk 2", 1)
	// Ratio 0 keeps the whole threshold (1000) raw: one chunk goes.
	rec, err := f.c.activate(bg, &BufferSettings{MessageTokens: 1000}, f.pending(t), false)
	if err != nil || len(rec.Buffer.Chunks) != 1 || rec.Observations != "- Chunk 1" {
		t.Fatalf("low ratio: %+v, %v", rec, err)
	}
	rec, err = f.c.activate(bg, settings(1000, 1), f.pending(t), false)
	if err != nil || len(rec.Buffer.Chunks) != 0 || rec.Observations != "- Chunk 1\n- Chunk 2" {
		t.Fatalf("high ratio: %+v, %v", rec, err)
	}
}

// Mastra: "should retain observed message IDs across buffered activation".
func TestActivateKeepsObservedIDs(t *testing.T) {
	f := newBufferFixture(t, 10, 10, 500)
	rec := f.get(t)
	rec.Observations, rec.ObservationTokens = "- Active observations", 3
	rec = Append(rec, f.msgs[:2], "", map[string]time.Time{}, wordCounter{})
	if _, err := f.s.PutObservations(bg, rec, 0); err != nil {
		t.Fatal(err)
	}
	f.chunk(t, "- Buffered observations", 2)
	got, err := f.c.activate(bg, settings(1000, 1), f.pending(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.ObservedMessageIDs, ",") != "m1,m2,m3" {
		t.Fatalf("observed ids = %v, want m1,m2,m3", got.ObservedMessageIDs)
	}
}

// Mastra: "should keep remaining buffered chunks after partial activation".
func TestActivatePartialKeepsRest(t *testing.T) {
	f := newBufferFixture(t, 600, 600)
	f.chunk(t, "- Chunk A", 0)
	f.chunk(t, "- Chunk B", 1)
	rec, err := f.c.activate(bg, settings(1000, 0.5), f.pending(t), false)
	if err != nil || len(rec.Buffer.Chunks) != 1 || rec.Buffer.Chunks[0].Observations != "- Chunk B" {
		t.Fatalf("partial: %+v, %v", rec, err)
	}
	rec, err = f.c.activate(bg, settings(1000, 1), f.pending(t), false)
	if err != nil || len(rec.Buffer.Chunks) != 0 || rec.Observations != "- Chunk A\n- Chunk B" {
		t.Fatalf("final: %+v, %v", rec, err)
	}
}

// A chunk over messages another writer observed first is dropped, never
// applied on top of their observations.
func TestActivateDropsChunkOfObservedMessages(t *testing.T) {
	f := newBufferFixture(t, 600, 600)
	f.chunk(t, "- late chunk", 0)
	rec := f.get(t)
	rec = Append(rec, f.msgs[:1], "- observed directly", map[string]time.Time{}, wordCounter{})
	if len(rec.Buffer.Chunks) != 0 {
		t.Fatalf("Append kept a chunk over an observed message: %+v", rec.Buffer)
	}
	if _, err := f.s.PutObservations(bg, rec, rec.Version); err != nil {
		t.Fatal(err)
	}
	got, err := f.c.activate(bg, settings(1000, 1), 0, true)
	if err != nil || got.Observations != "- observed directly" {
		t.Fatalf("after activation: %q, %v", got.Observations, err)
	}
}

// Mastra: "should swap buffered reflection to active and create new
// generation" (same file, describe 'Buffered Reflection'): the
// reflected lines are replaced, the lines observed since are kept.
func TestActivateBufferedReflection(t *testing.T) {
	rec := store.ObservationRecord{Observations: "- Line 1\n- Line 2\n- Line 3\n- Line 4\n- Line 5"}
	in := rec.Observations
	rec.Observations += "\n- Line 6\n- Line 7"
	rec.Buffer.Reflection = &store.BufferedReflection{Observations: "- Condensed reflection", InputLength: len(in), InputHash: hash(in)}
	if !activateReflection(&rec, wordCounter{}) {
		t.Fatal("buffered reflection not activated")
	}
	if rec.Observations != "- Condensed reflection\n- Line 6\n- Line 7" || rec.Generation != 1 || rec.Buffer.Reflection != nil {
		t.Fatalf("after activation: %+v", rec)
	}
	// One made from other observations (reflected meanwhile) is dropped.
	rec.Buffer.Reflection = &store.BufferedReflection{Observations: "- stale", Generation: 0, InputLength: 3, InputHash: hash("- C")}
	if activateReflection(&rec, wordCounter{}) || rec.Generation != 1 || rec.Buffer.Reflection != nil {
		t.Fatalf("stale reflection activated or kept: %+v", rec)
	}
}
