package sqlite

import (
	"fmt"
	"testing"
	"time"

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
