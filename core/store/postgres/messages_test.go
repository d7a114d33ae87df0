package postgres

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// saveText saves messages with the given ids and one timestamp into thread
// "t" of resource "r" as one batch.
func saveText(t *testing.T, s *Store, at time.Time, ids ...string) ([]message.Message, error) {
	t.Helper()
	var batch []message.Message
	for _, id := range ids {
		m := message.NewMessage(message.RoleUser, "text of "+id)
		m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = id, "t", "r", at
		batch = append(batch, m)
	}
	return s.SaveMessages(bg(), batch)
}

func listIDs(t *testing.T, s *Store) []string {
	t.Helper()
	page, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range page.Messages {
		ids = append(ids, m.ID)
	}
	return ids
}

// TestSaveBatchOrder: new messages with one timestamp list in the order of
// their batch (save_new_messages inserts in the order given), and the seqs
// SaveMessages returns are the stored ones.
func TestSaveBatchOrder(t *testing.T) {
	s := openFresh(t)
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	at := now()
	out, err := saveText(t, s, at, "z", "a", "m", "b")
	if err != nil {
		t.Fatal(err)
	}
	if got := listIDs(t, s); !slices.Equal(got, []string{"z", "a", "m", "b"}) {
		t.Fatalf("listed %v, want the batch order", got)
	}
	stored, err := s.GetMessages(bg(), []string{"z", "a", "m", "b"})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range stored {
		if m.ID != out[i].ID || m.Seq != out[i].Seq || !m.CreatedAt.Equal(out[i].CreatedAt) {
			t.Fatalf("returned %s seq %d at %v, stored %s seq %d at %v", out[i].ID, out[i].Seq, out[i].CreatedAt, m.ID, m.Seq, m.CreatedAt)
		}
	}
}

// TestSaveFallsBack: the saves that skip save_messages' checks refuse and
// upsert exactly as it does when their batch is not all new or not the
// thread's resource's, one message or many.
func TestSaveFallsBack(t *testing.T) {
	s := openFresh(t)
	for _, th := range []store.Thread{{ID: "t", ResourceID: "r"}, {ID: "u", ResourceID: "other"}} {
		if _, err := s.SaveThread(bg(), th); err != nil {
			t.Fatal(err)
		}
	}
	at := now()
	first, err := saveText(t, s, at, "m1", "m2")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2} {
		// A stored id: upserted in place, the new one inserted.
		ids := []string{"m1", fmt.Sprint("new", n)}[:n]
		out, err := saveText(t, s, at.Add(time.Hour), ids...)
		if err != nil {
			t.Fatal(err)
		}
		if out[0].Seq != first[0].Seq || !out[0].CreatedAt.Equal(first[0].CreatedAt) {
			t.Fatalf("batch of %d: upsert moved m1 to seq %d at %v", n, out[0].Seq, out[0].CreatedAt)
		}
		// A missing thread or another resource's: refused, nothing written.
		for _, c := range []struct {
			thread, resource string
			want             error
		}{{"nope", "r", memerr.ErrThreadNotFound}, {"u", "r", memerr.ErrResourceMismatch}} {
			var batch []message.Message
			for i := 0; i < n; i++ {
				m := message.NewMessage(message.RoleUser, "refused")
				m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = fmt.Sprint("x", n, i), c.thread, c.resource, at
				batch = append(batch, m)
			}
			if _, err := s.SaveMessages(bg(), batch); !errors.Is(err, c.want) {
				t.Fatalf("batch of %d into %s: %v, want %v", n, c.thread, err, c.want)
			}
			if got, err := s.GetMessages(bg(), []string{batch[0].ID}); err != nil || len(got) != 0 {
				t.Fatalf("batch of %d into %s: refused but wrote %v (%v)", n, c.thread, got, err)
			}
		}
	}
	if got := listIDs(t, s); !slices.Equal(got, []string{"m1", "m2", "new2"}) {
		t.Fatalf("listed %v", got)
	}
}

// TestSaveNewStatementsWriteAllOrNothing: the one-statement saves of new
// messages fail on agentmem_messages_pkey when an id is stored, having written
// nothing (the thread keeps its updatedAt), and answer no row for a thread
// of another resource; SaveMessages then goes on to save_messages.
func TestSaveNewStatementsWriteAllOrNothing(t *testing.T) {
	s := openFresh(t)
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := saveText(t, s, now(), "m1"); err != nil {
		t.Fatal(err)
	}
	before, err := s.GetThread(bg(), "t")
	if err != nil {
		t.Fatal(err)
	}
	at := now().Add(time.Hour)
	content := `{"format":2,"parts":[]}`
	// noRow runs a save statement and fails when it answers a row.
	noRow := func(sql string, args ...any) error {
		rows, err := s.pool.Query(bg(), sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		if rows.Next() {
			return fmt.Errorf("answered a row")
		}
		return rows.Err()
	}
	batch := func(resource string, ids ...string) error {
		n := len(ids)
		fill := func(v string) []string { return slices.Repeat([]string{v}, n) }
		return noRow(s.q.saveNewMessages, ids, "t", resource, fill("user"), fill(""), fill(content),
			slices.Repeat([]time.Time{at}, n), slices.Repeat([]int32{1}, n), fill(""), at)
	}
	one := func(resource, id string) error {
		return noRow(s.q.saveOneMessage, id, "t", resource, "user", "", content, at, int32(1), "", at)
	}
	for name, err := range map[string]error{"batch": batch("r", "m2", "m1"), "one": one("r", "m1")} {
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23505" || pgErr.ConstraintName != "agentmem_messages_pkey" {
			t.Fatalf("%s holding a stored id: %v, want a unique violation on agentmem_messages_pkey", name, err)
		}
	}
	for name, err := range map[string]error{"batch": batch("other", "m3", "m4"), "one": one("other", "m3")} {
		if err != nil {
			t.Fatalf("%s into another resource's thread: %v, want no row", name, err)
		}
	}
	if got := listIDs(t, s); !slices.Equal(got, []string{"m1"}) {
		t.Fatalf("stored %v, want only m1", got)
	}
	if after, err := s.GetThread(bg(), "t"); err != nil || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("thread updated at %v, was %v (%v)", after.UpdatedAt, before.UpdatedAt, err)
	}
}

// TestSaveNewRowsChecksOrder: the one-statement saves count as done only
// when they answer every id of the batch in batch order, each with a seq;
// any other answer sends the batch to save_messages. The statements here
// take the save's parameters and answer crafted rows without writing.
func TestSaveNewRowsChecksOrder(t *testing.T) {
	s := openFresh(t)
	var batch []message.Message
	for _, id := range []string{"a", "b", "c"} {
		m := message.NewMessage(message.RoleUser, "text of "+id)
		m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = id, "t", "r", now()
		batch = append(batch, m)
	}
	// Every parameter is used, so that the server knows its type.
	const params = `$2::text IS NOT NULL AND $3::text IS NOT NULL AND $4::text[] IS NOT NULL AND $5::text[] IS NOT NULL
		AND $6::text[] IS NOT NULL AND $7::timestamptz[] IS NOT NULL AND $8::int[] IS NOT NULL AND $9::text[] IS NOT NULL
		AND $10::timestamptz IS NOT NULL`
	answer := func(rows string) string {
		return `SELECT id, seq FROM (` + rows + `) AS r(id, seq) WHERE ` + params
	}
	cases := []struct {
		name string
		sql  string
		want []int64 // nil: not done
	}{
		{"in order", answer(`SELECT id, n * 10 FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n) ORDER BY n`), []int64{10, 20, 30}},
		{"reversed", answer(`SELECT id, n FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n) ORDER BY n DESC`), nil},
		{"one missing", answer(`SELECT id, n FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n) WHERE n < 3`), nil},
		{"one more", answer(`SELECT id, n FROM unnest($1::text[] || '{d}') WITH ORDINALITY AS u(id, n)`), nil},
		{"no row", answer(`SELECT id, n FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n) WHERE false`), nil},
		{"other ids", answer(`SELECT upper(id), n FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n)`), nil},
		{"seq of another type", answer(`SELECT id, n::int FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n)`), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := newSaveBatch("SaveMessages", batch)
			if err != nil {
				t.Fatal(err)
			}
			defer b.release()
			w := b.params()
			defer w.release()
			w.text("t")
			w.text("r")
			b.rest(w)
			var res saveResult
			done, err := b.saveNewRows(bg(), s, c.sql, w, &res)
			if err != nil {
				t.Fatal(err)
			}
			if done != (c.want != nil) || !slices.Equal(res.seqs, c.want) {
				t.Fatalf("done %v with seqs %v, want seqs %v", done, res.seqs, c.want)
			}
		})
	}
}
