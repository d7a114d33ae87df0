package main

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/postgres"
)

// TestCompact: compact rewrites a row an earlier version stored as an
// object into the current shape, once; the message reads the same; it
// needs --write and a positive --batch, and changes nothing without them.
func TestCompact(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		if _, err := b.store.SaveThread(bg, core.Thread{ID: "old", ResourceID: "r", CreatedAt: at(0), UpdatedAt: at(0)}); err != nil {
			t.Fatal(err)
		}
		insertOldRow(t, b, `{"format":2,"parts":[{"text":"an old row","type":"text"}]}`)
		if r := b.agentmem(t, "", "compact"); r.code == 0 || !strings.Contains(r.stderr, "--write") {
			t.Fatalf("compact without --write: exit %d, %s", r.code, r.stderr)
		}
		if r := b.agentmem(t, "", "--write", "compact", "--batch", "-1"); r.code != 2 || !strings.Contains(r.stderr, "--batch") {
			t.Fatalf("compact --batch -1: exit %d, %s", r.code, r.stderr)
		}
		if r := b.agentmem(t, "", "--write", "compact").ok(t); r.stdout != "rewrote 1 messages in the current stored shape\n" {
			t.Fatalf("compact: %q", r.stdout)
		}
		doc := jsonDoc(t, b.agentmem(t, "", "--write", "--json", "compact").ok(t))
		if doc["rewritten"] != float64(0) {
			t.Fatalf("second compact: %v, want nothing left", doc)
		}
		got, err := b.store.GetMessages(bg, []string{"m-old"})
		if err != nil || len(got) != 1 || got[0].Text() != "an old row" || len(got[0].Content.Parts) != 1 {
			t.Fatalf("after compact: %+v, %v", got, err)
		}
	})
}

// insertOldRow writes message m-old of thread "old" with content as given,
// below the store, as an earlier version wrote it.
func insertOldRow(t *testing.T, b backend, content string) {
	t.Helper()
	if pg, ok := b.store.Unwrap().(*postgres.Store); ok {
		schema := pgx.Identifier{b.flags[3]}.Sanitize()
		if _, err := pg.Pool().Exec(bg, "INSERT INTO "+schema+".agentmem_messages (id, thread_id, resource_id, role, content, created_at) VALUES ('m-old', 'old', 'r', 'user', $1, $2)",
			content, at(1)); err != nil {
			t.Fatal(err)
		}
		return
	}
	db, err := sql.Open("sqlite", b.flags[1])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO messages (id, thread_id, resource_id, role, content, created_at) VALUES ('m-old', 'old', 'r', 'user', ?, ?)`,
		content, at(1).UnixMicro()); err != nil {
		t.Fatal(err)
	}
}
