package observe

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// wordCounter counts space-separated words.
type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }

func msgAt(id string, at time.Time, tokens int) message.Message {
	m := message.NewMessage(message.RoleUser, id)
	m.ID, m.CreatedAt, m.Tokens = id, at, tokens
	return m
}

// Append adds the text, moves the cursor to the newest message and keeps the
// ids of the lookback window only.
func TestAppendMovesCursor(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	old := t0.Add(-store.ObservationLookback - time.Minute)
	rec := store.ObservationRecord{Key: "thread:t", Observations: "- a b", ObservationTokens: 3,
		LastObservedAt: t0.Add(-time.Minute), ObservedMessageIDs: []string{"old", "recent"}}
	seen := map[string]time.Time{"old": old, "recent": t0.Add(-time.Minute)}
	batch := []message.Message{msgAt("m1", t0.Add(-2*time.Minute), 1), msgAt("m2", t0, 1)}
	next := Append(rec, batch, "- c d e", seen, wordCounter{})
	if next.Observations != "- a b\n- c d e" || next.ObservationTokens != 3+4 {
		t.Fatalf("observations = %q (%d tokens)", next.Observations, next.ObservationTokens)
	}
	if !next.LastObservedAt.Equal(t0) {
		t.Fatalf("LastObservedAt = %v, want %v", next.LastObservedAt, t0)
	}
	if want := []string{"recent", "m1", "m2"}; !reflect.DeepEqual(next.ObservedMessageIDs, want) {
		t.Fatalf("ObservedMessageIDs = %v, want %v", next.ObservedMessageIDs, want)
	}
	if len(rec.ObservedMessageIDs) != 2 || rec.Observations != "- a b" {
		t.Fatalf("Append changed its input: %+v", rec)
	}
	// A batch older than the cursor does not move it back; empty text adds nothing.
	back := Append(next, []message.Message{msgAt("late", t0.Add(-time.Minute), 1)}, "", seen, wordCounter{})
	if !back.LastObservedAt.Equal(t0) || back.Observations != next.Observations || back.ObservationTokens != next.ObservationTokens {
		t.Fatalf("late batch: %+v", back)
	}
	if !back.Observed(t0.Add(-time.Minute), "late") {
		t.Fatal("late message not marked observed")
	}
}

func TestClean(t *testing.T) {
	in := "<think>plan</think>\n  - [2026-01-01] (high) a  \n\n\x00- [2026-01-02] (low) b\xff\n"
	if got, want := Clean(in), "- [2026-01-01] (high) a\n- [2026-01-02] (low) b\uFFFD"; got != want {
		t.Fatalf("Clean = %q, want %q", got, want)
	}
	if got := Clean("<reasoning>nothing</reasoning>\n \n"); got != "" {
		t.Fatalf("Clean of an empty reply = %q", got)
	}
}

// Batches keep order, stay within maxTokens, and give an oversized message
// a batch of its own.
func TestBatches(t *testing.T) {
	var msgs []message.Message
	for i, tk := range []int{3, 4, 2, 20, 1, 1} {
		msgs = append(msgs, msgAt(fmt.Sprint(i), time.Time{}, tk))
	}
	var got [][]string
	for _, b := range Batches(msgs, 9) {
		var ids []string
		for _, m := range b {
			ids = append(ids, m.ID)
		}
		got = append(got, ids)
	}
	want := [][]string{{"0", "1", "2"}, {"3"}, {"4", "5"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Batches = %v, want %v", got, want)
	}
	if Batches(nil, 9) != nil || Tokens(msgs) != 31 {
		t.Fatalf("Batches(nil) or Tokens wrong: %d", Tokens(msgs))
	}
}

// An observed id whose time Append is not given stays while the window
// still covers the old cursor (its message was created after the new
// cutoff, or is gone); once the window passes the old cursor, every
// earlier id leaves.
func TestAppendKeepsIDsOfUnknownTime(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	rec := store.ObservationRecord{Key: "thread:t", LastObservedAt: t0, ObservedMessageIDs: []string{"early", "unknown"}}
	times := map[string]time.Time{"early": t0.Add(-store.ObservationLookback + 30*time.Second)}
	next := Append(rec, []message.Message{msgAt("m1", t0.Add(time.Minute), 1)}, "", times, wordCounter{})
	if want := []string{"unknown", "m1"}; !reflect.DeepEqual(next.ObservedMessageIDs, want) {
		t.Fatalf("ObservedMessageIDs = %v, want %v", next.ObservedMessageIDs, want)
	}
	later := t0.Add(store.ObservationLookback + time.Second)
	next = Append(rec, []message.Message{msgAt("m2", later, 1)}, "", map[string]time.Time{}, wordCounter{})
	if want := []string{"m2"}; !reflect.DeepEqual(next.ObservedMessageIDs, want) {
		t.Fatalf("after the window passed the cursor: %v, want %v", next.ObservedMessageIDs, want)
	}
	if got := Cutoff(rec, []message.Message{msgAt("m2", later, 1)}); !got.Equal(later.Add(-store.ObservationLookback)) {
		t.Fatalf("Cutoff = %v", got)
	}
}
