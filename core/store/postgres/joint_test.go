package postgres

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

func TestJointSQLFailsInsteadOfInsertingNothing(t *testing.T) {
	for name, sql := range map[string]string{"one": saveOneMessageSQL, "many": saveNewMessagesSQL} {
		j := jointSQL(sql)
		if strings.Count(j, "LEFT JOIN thr ON true") != 1 || strings.Contains(j, "FROM thr") {
			t.Errorf("%s: joint variant not made:\n%s", name, j)
		}
	}
}

// A joint save writes the messages and the statements after them in one
// round trip, or nothing, in every exec mode and through PgBouncer.
func TestSaveMessagesWith(t *testing.T) {
	modes := []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) { testSaveMessagesWith(t, testDSN(t), mode) })
	}
	t.Run("pgbouncer", func(t *testing.T) { testSaveMessagesWith(t, pgBouncerDSN(t), pgx.QueryExecModeExec) })
}

func testSaveMessagesWith(t *testing.T, dsn string, mode pgx.QueryExecMode) {
	s, c := tracedStoreOn(t, dsn, mode)
	side := s.q.messages[:strings.LastIndexByte(s.q.messages, '.')] + ".side"
	if _, err := s.pool.Exec(bg(), "CREATE TABLE "+side+" (id text PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	for _, th := range []store.Thread{{ID: "t", ResourceID: "r"}, {ID: "u", ResourceID: "other"}} {
		th.CreatedAt, th.UpdatedAt = now(), now()
		if _, err := s.SaveThread(bg(), th); err != nil {
			t.Fatal(err)
		}
	}
	msgs := func(k, n int, thread, resource string) []message.Message {
		var out []message.Message
		for i := 0; i < n; i++ {
			m := message.NewMessage(message.RoleUser, "hello")
			m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = fmt.Sprintf("m%d-%d", k, i), thread, resource, now()
			out = append(out, m)
		}
		return out
	}
	mark := func(id string) []store.Statement {
		return []store.Statement{{SQL: "INSERT INTO " + side + " (id) VALUES ($1)", Args: []any{id}}}
	}
	stored := func(ids ...string) (msgs, sides int) {
		t.Helper()
		if err := s.pool.QueryRow(bg(), "SELECT (SELECT count(*) FROM "+s.q.messages+" WHERE id = ANY($1)), (SELECT count(*) FROM "+side+" WHERE id = ANY($1))", ids).
			Scan(&msgs, &sides); err != nil {
			t.Fatal(err)
		}
		return msgs, sides
	}

	for k, n := range []int{1, 3} { // saveOneMessageSQL's and saveNewMessagesSQL's variants
		for round := 0; round < 3; round++ { // the first prepares the statements
			batch := msgs(10*k+round, n, "t", "r")
			c.reset()
			saved, err := s.SaveMessagesWith(bg(), batch, mark(batch[0].ID))
			if err != nil {
				t.Fatal(err)
			}
			if round > 0 && c.writes.Load() != 1 {
				t.Fatalf("%d messages: %d round trips, want 1", n, c.writes.Load())
			}
			for i := range saved {
				if saved[i].ID != batch[i].ID || saved[i].Seq == 0 || !saved[i].CreatedAt.Equal(batch[i].CreatedAt) {
					t.Fatalf("saved %+v", saved[i])
				}
			}
			if m, side := stored(batch[0].ID); m != 1 || side != 1 {
				t.Fatalf("stored %d messages, %d side rows; want 1 and 1", m, side)
			}
		}
	}

	refused := map[string][]message.Message{
		"thread of another resource": msgs(100, 2, "u", "r"),
		"missing thread":             msgs(101, 1, "nope", "r"),
		"stored id":                  append(msgs(102, 1, "t", "r"), msgs(10, 1, "t", "r")...),
	}
	for name, batch := range refused {
		if _, err := s.SaveMessagesWith(bg(), batch, mark(batch[0].ID)); err == nil {
			t.Fatalf("%s: saved", name)
		}
		if _, side := stored(batch[0].ID); side != 0 {
			t.Fatalf("%s: the statement after the refused messages was committed", name)
		}
	}
	if m, _ := stored("m100-0", "m100-1", "m101-0", "m102-0"); m != 0 {
		t.Fatalf("%d refused messages stored", m)
	}

	// A failing statement after the messages undoes them.
	batch := msgs(200, 2, "t", "r")
	if _, err := s.SaveMessagesWith(bg(), batch, mark("m10-0")); err == nil {
		t.Fatal("a duplicate side row was inserted")
	}
	if m, _ := stored("m200-0", "m200-1"); m != 0 {
		t.Fatalf("%d messages stored with a failed statement after them", m)
	}

	unsupported := map[string][]message.Message{
		"two threads":  append(msgs(300, 1, "t", "r"), msgs(301, 1, "u", "other")...),
		"repeated ids": append(msgs(302, 1, "t", "r"), msgs(302, 1, "t", "r")...),
		"read before":  func() []message.Message { b := msgs(303, 2, "t", "r"); b[1].Seq = 7; return b }(),
	}
	for name, batch := range unsupported {
		if _, err := s.SaveMessagesWith(bg(), batch, nil); !errors.Is(err, memerr.ErrUnsupported) {
			t.Fatalf("%s: %v, want ErrUnsupported", name, err)
		}
	}
}
