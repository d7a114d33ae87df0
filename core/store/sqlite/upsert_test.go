package sqlite

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// SaveMessages writes a batch in runs that share a thread, resource, type
// and token encoding, full runs through the statement prepared once per
// Store. A batch longer than two full runs, broken by another encoding,
// another type and another thread, holding a moved message, an updated one
// and a repeated id, must store every field of every row, give new rows
// their sequence in batch order, keep the stored rows' sequence, and read
// back the same when saved a second time through the cached statement.
func TestUpsertRuns(t *testing.T) {
	s := openTemp(t)
	thread(t, s, "A", "r")
	thread(t, s, "B", "r")
	old, err := s.SaveMessages(bg(), []message.Message{msgAt("moved", "B", "r", "before", at(1)), msgAt("updated", "A", "r", "before", at(2))})
	if err != nil {
		t.Fatal(err)
	}
	oldSeq := map[string]int64{old[0].ID: old[0].Seq, old[1].ID: old[1].Seq}
	oldAt := map[string]time.Time{old[0].ID: at(1), old[1].ID: at(2)}

	batch := make([]message.Message, 250)
	for i := range batch {
		id, th := fmt.Sprintf("m%03d", i), "A"
		switch i {
		case 200:
			id = "moved"
		case 210:
			id = "updated"
		case 220:
			id = "m005" // the later copy wins
		}
		if i >= 230 {
			th = "B"
		}
		batch[i] = msgAt(id, th, "r", fmt.Sprintf("text %d", i), at(10+i))
		batch[i].Tokens, batch[i].TokenEncoding = i, "e1"
		if i >= 120 && i < 130 {
			batch[i].TokenEncoding = "e2"
		}
		if i == 150 {
			batch[i].Type = "v2"
		}
	}
	want := map[string]message.Message{} // by id: the last copy, at the first one's time
	for _, m := range batch {
		if first, ok := want[m.ID]; ok {
			m.CreatedAt = first.CreatedAt
		}
		want[m.ID] = m
	}
	for round := 1; round <= 2; round++ {
		out, err := s.SaveMessages(bg(), batch)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		seqOf := map[string]int64{}
		var last int64
		for i, m := range out {
			if prev, ok := seqOf[m.ID]; ok && prev != m.Seq {
				t.Fatalf("round %d: %s returned with seq %d and %d", round, m.ID, prev, m.Seq)
			}
			seqOf[m.ID] = m.Seq
			if seq, ok := oldSeq[m.ID]; ok {
				if m.Seq != seq || !m.CreatedAt.Equal(oldAt[m.ID]) {
					t.Fatalf("round %d: stored %s came back as seq %d at %v, want seq %d and its own time", round, m.ID, m.Seq, m.CreatedAt, seq)
				}
				continue
			}
			if i != 220 && m.Seq <= last {
				t.Fatalf("round %d: %s has seq %d after %d: not in batch order", round, m.ID, m.Seq, last)
			}
			last = max(last, m.Seq)
		}
		stored := map[string]message.Message{}
		for _, th := range []string{"A", "B"} {
			page, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: th, PerPage: store.PerPageAll})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range page.Messages {
				stored[m.ID] = m
			}
		}
		if len(stored) != len(want) {
			t.Fatalf("round %d: %d rows stored, want %d", round, len(stored), len(want))
		}
		for id, w := range want {
			g := stored[id]
			if g.ThreadID != w.ThreadID || g.ResourceID != w.ResourceID || g.Role != w.Role || g.Type != w.Type ||
				g.Content.Parts[0].Text != w.Content.Parts[0].Text || g.Tokens != w.Tokens || g.TokenEncoding != w.TokenEncoding {
				t.Fatalf("round %d: %s stored as %+v, want %+v", round, id, g, w)
			}
			if g.Seq != seqOf[id] {
				t.Fatalf("round %d: %s stored with seq %d, returned with %d", round, id, g.Seq, seqOf[id])
			}
			wantAt, ok := oldAt[id]
			if !ok {
				wantAt = w.CreatedAt
			}
			if !g.CreatedAt.Equal(wantAt) {
				t.Fatalf("round %d: %s stored at %v, want %v", round, id, g.CreatedAt, wantAt)
			}
		}
	}
}

// A batch larger than smallSave is first inserted as new; one stored id in
// it rolls that back and the whole batch is upserted: the stored message
// keeps its Seq and takes the new text, the others are inserted, and a
// stored id of another resource fails the save with nothing written.
func TestLargeSaveWithStoredID(t *testing.T) {
	s := openTemp(t)
	thread(t, s, "t", "r")
	thread(t, s, "other", "r2")
	first, err := s.SaveMessages(bg(), []message.Message{msgAt("m3", "t", "r", "old", at(3))})
	if err != nil {
		t.Fatal(err)
	}
	batch := make([]message.Message, 10)
	for i := range batch {
		batch[i] = msgAt(fmt.Sprint("m", i), "t", "r", "new", at(i))
	}
	saved, err := s.SaveMessages(bg(), batch)
	if err != nil {
		t.Fatal(err)
	}
	if saved[3].Seq != first[0].Seq {
		t.Fatalf("stored message's seq %d, want %d", saved[3].Seq, first[0].Seq)
	}
	page, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if err != nil || len(page.Messages) != 10 {
		t.Fatalf("listed %d messages (%v), want 10", len(page.Messages), err)
	}
	for i, m := range page.Messages {
		if m.Text() != "new" || m.Seq != saved[i].Seq {
			t.Fatalf("message %d: %q seq %d, want \"new\" seq %d", i, m.Text(), m.Seq, saved[i].Seq)
		}
	}
	taken := make([]message.Message, 10)
	for i := range taken {
		taken[i] = msgAt(fmt.Sprint("x", i), "other", "r2", "x", at(i))
	}
	taken[5] = msgAt("m5", "other", "r2", "x", at(5))
	if _, err := s.SaveMessages(bg(), taken); !errors.Is(err, memerr.ErrResourceMismatch) {
		t.Fatalf("taking over another resource's message: %v, want ErrResourceMismatch", err)
	}
	if page, _ := s.ListMessages(bg(), store.MessageQuery{ThreadID: "other", PerPage: store.PerPageAll}); len(page.Messages) != 0 {
		t.Fatalf("a failed save wrote %d messages", len(page.Messages))
	}
}
