package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// testBulkSameAsSave runs the same batches through SaveMessages on one side
// of the store and SaveMessagesBulk (the driver's store.BulkSaver, or its
// fallback) on the other, ids prefixed by side: new batches with equal
// timestamps and ids out of order, batches over two threads, a repeated id,
// stored ids (an update and a move), a missing thread, a thread and a
// message id of another resource, a message before a persisted boundary,
// the same batch twice. Every call must return the same messages (Seq
// compared by order) or fail with the same code, and leave the same rows,
// boundaries and bumped threads.
func testBulkSameAsSave(t *testing.T, s *store.Checked) {
	sides := []struct {
		name string
		save func([]message.Message) ([]message.Message, error)
	}{
		{"s", func(m []message.Message) ([]message.Message, error) { return s.SaveMessages(ctx(), m) }},
		{"b", func(m []message.Message) ([]message.Message, error) { return s.SaveMessagesBulk(ctx(), m) }},
	}
	for _, side := range sides {
		p := side.name + "-"
		mustThread(t, s, p+"A", p+"r")
		mustThread(t, s, p+"B", p+"r")
		mustThread(t, s, p+"O", p+"other")
		mustSave(t, s, msg(p+"foreign", p+"O", p+"other", "theirs", T(1)))
		if _, err := s.AdvanceBoundary(ctx(), p+"B", p+"r", store.Boundary{CreatedAt: T(50), MaxTokens: 100}); err != nil {
			t.Fatal(err)
		}
	}
	batches := [][]message.Message{
		bulkBatch("A", 0, 40, 10),
		append(bulkBatch("A", 40, 10, 100), bulkBatch("B", 0, 10, 100)...),
		{msg("dup", "A", "r", "one", T(200)), msg("dup", "A", "r", "two", T(201))},
		{msg("m-A-3", "B", "r", "moved and changed", T(300)), msg("new", "A", "r", "new", T(300))},
		{msg("n1", "A", "r", "x", T(400)), msg("n2", "nothread", "r", "x", T(400))},
		{msg("n3", "A", "r", "x", T(400)), msg("n4", "O", "r", "x", T(400))},
		{msg("n5", "A", "r", "x", T(400)), msg("foreign", "A", "r", "x", T(400))},
		bulkBatch("B", 60, 5, 10),
		bulkBatch("B", 100, 1200, 1000),
		bulkBatch("A", 0, 40, 10),
	}
	for i, batch := range batches {
		var got [2]string
		for j, side := range sides {
			before := threadStamps(t, s, side.name)
			out, err := side.save(prefixed(batch, side.name))
			var e *memerr.Error
			switch {
			case errors.As(err, &e):
				got[j] = "error " + string(e.Code)
			case err != nil:
				t.Fatalf("batch %d, side %s: %v", i, side.name, err)
			default:
				got[j] = "saved " + describeSaved(out, side.name)
			}
			got[j] += " bumped " + bumped(before, threadStamps(t, s, side.name)) + " stored " + describeStored(t, s, side.name)
		}
		if got[0] != got[1] {
			t.Fatalf("batch %d:\nSaveMessages:     %s\nSaveMessagesBulk: %s", i, got[0], got[1])
		}
	}
}

// bulkBatch is n messages of thread th with ids from lo, the k-th at
// T(base + k/3): equal timestamps, ids out of lexical order.
func bulkBatch(th string, lo, n, base int) []message.Message {
	out := make([]message.Message, n)
	for k := range out {
		out[k] = msg(fmt.Sprintf("m-%s-%d", th, lo+k), th, "r", fmt.Sprintf("text %d", lo+k), T(base+(lo+k)/3))
		out[k].Tokens, out[k].TokenEncoding = lo+k, "e"
	}
	return out
}

// prefixed returns batch with ids, threads and resources of side p; ids
// and threads of the other resource keep their names there.
func prefixed(batch []message.Message, p string) []message.Message {
	out := make([]message.Message, len(batch))
	for i, m := range batch {
		m.ID, m.ThreadID, m.ResourceID = p+"-"+m.ID, p+"-"+m.ThreadID, p+"-"+m.ResourceID
		out[i] = m
	}
	return out
}

// describeSaved describes saved messages without the side's prefix, Seq as
// ranks.
func describeSaved(msgs []message.Message, side string) string {
	seqs := make([]int64, len(msgs))
	for i, m := range msgs {
		seqs[i] = m.Seq
	}
	slices.Sort(seqs)
	var b strings.Builder
	for _, m := range msgs {
		rank, _ := slices.BinarySearch(seqs, m.Seq)
		fmt.Fprintf(&b, "[%s %s %s %s %d %s #%d] ", m.ID, m.ThreadID, m.ResourceID, m.CreatedAt.Format("15:04:05.000000"), m.Tokens, jsonOf(m.Content), rank)
	}
	return strings.ReplaceAll(b.String(), side+"-", "")
}

// describeStored describes the side's threads in order, and their
// boundaries.
func describeStored(t *testing.T, s *store.Checked, side string) string {
	t.Helper()
	var b strings.Builder
	for _, th := range []string{"A", "B", "O"} {
		id := side + "-" + th
		b.WriteString(th + ": " + describeSaved(list(t, s, store.MessageQuery{ThreadID: id, PerPage: store.PerPageAll}).Messages, side))
		got, err := s.GetThread(ctx(), id)
		if err != nil {
			t.Fatal(err)
		}
		if bd := got.Boundary; bd != nil {
			fmt.Fprintf(&b, "boundary %s; ", bd.CreatedAt.Format("15:04:05.000000"))
		}
	}
	return b.String()
}

// threadStamps returns the UpdatedAt of the side's threads.
func threadStamps(t *testing.T, s *store.Checked, side string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, th := range []string{"A", "B", "O"} {
		got, err := s.GetThread(ctx(), side+"-"+th)
		if err != nil {
			t.Fatal(err)
		}
		out[th] = got.UpdatedAt.String()
	}
	return out
}

// bumped lists the threads whose UpdatedAt changed.
func bumped(before, after map[string]string) string {
	var out []string
	for _, th := range []string{"A", "B", "O"} {
		if before[th] != after[th] {
			out = append(out, th)
		}
	}
	return strings.Join(out, ",")
}
