package migrate

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/importer"
	"github.com/agentmem/agentmem/core"
	lcmem "github.com/agentmem/agentmem/langchaingo"
)

var bg = context.Background()

// read collects a source's records and skip reasons.
func read(t *testing.T, src *importer.Source) ([]export.Record, map[string]int) {
	t.Helper()
	var recs []export.Record
	skipped := map[string]int{}
	err := src.Each(bg, func(n int, r export.Record) error {
		if n != len(recs)+1 {
			t.Fatalf("record %d at position %d", len(recs)+1, n)
		}
		recs = append(recs, r)
		return nil
	}, func(reason string) { skipped[reason]++ })
	if err != nil {
		t.Fatal(err)
	}
	return recs, skipped
}

// TestLangchaingoSQLite reads a table in langchaingo's sqlite3 layout: one
// thread per session under the adapters' resource, messages with the
// mirrors' ids in row order, system messages skipped.
func TestLangchaingoSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE langchaingo_messages (id INTEGER PRIMARY KEY, session TEXT, content TEXT, type TEXT, created DATETIME)`,
		`INSERT INTO langchaingo_messages (session, content, type, created) VALUES
			('s1', 'be brief', 'system', '2025-01-02 03:04:05'),
			('s1', 'hello', 'human', '2025-01-02 03:04:05'),
			('s1', 'hi', 'ai', '2025-01-02 03:04:05'),
			('s2', 'again', 'human', '2025-01-03 00:00:00')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	src, err := NewSource(FromLangchaingoSQLite, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs, skipped := read(t, src)
	var got []string
	for _, r := range recs {
		switch r.Kind {
		case export.KindThread:
			if r.Thread.ResourceID != lcmem.DefaultResourceID {
				t.Errorf("thread %s of resource %q", r.Thread.ID, r.Thread.ResourceID)
			}
			got = append(got, "thread "+r.Thread.ID)
		case export.KindMessage:
			got = append(got, string(r.Message.Role)+" "+r.Message.ID)
		}
	}
	want := "thread s1|user langchaingo_messages:s1:2|assistant langchaingo_messages:s1:3|thread s2|user langchaingo_messages:s2:4"
	if strings.Join(got, "|") != want {
		t.Fatalf("records\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if m1, m2 := recs[1].Message, recs[2].Message; !m2.CreatedAt.After(m1.CreatedAt) {
		t.Fatalf("rows of one timestamp keep no order: %v, %v", m1.CreatedAt, m2.CreatedAt)
	}
	if len(skipped) != 1 {
		t.Fatalf("skipped %v, want the system message", skipped)
	}
}

// TestMastra reads the fixture written by Mastra's own LibSQL store:
// resources before their threads, every message after its thread's line.
func TestMastra(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mastra", "mastra.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mastra.db") // reading a WAL database writes beside it
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(FromMastra, path, Options{Schema: "public"})
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := read(t, src)
	kinds := map[string]int{}
	var thread *core.Thread
	for _, r := range recs {
		kinds[r.Kind]++
		switch r.Kind {
		case export.KindThread:
			thread = r.Thread
		case export.KindMessage:
			if thread == nil || r.Message.ThreadID != thread.ID || r.Message.ResourceID != thread.ResourceID {
				t.Fatalf("message %s of thread %s after thread %v", r.Message.ID, r.Message.ThreadID, thread)
			}
			if r.Message.Content.Format != 2 {
				t.Fatalf("message %s in format %d", r.Message.ID, r.Message.Content.Format)
			}
		}
	}
	if kinds[export.KindThread] == 0 || kinds[export.KindMessage] == 0 {
		t.Fatalf("record kinds %v", kinds)
	}
}

// TestNewSourceUsage: an unknown source, a langchaingo PostgreSQL source
// without a DSN or a table, and a missing file are usage errors.
func TestNewSourceUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.db")
	for _, c := range []struct{ from, arg string }{
		{"redis", "x"},
		{FromLangchaingoPostgres, "chat.db"},
		{FromLangchaingoPostgres, "postgres://localhost/app"},
		{FromLangchaingoSQLite, missing},
	} {
		src, err := NewSource(c.from, c.arg, Options{})
		if err == nil {
			_, err = readErr(src)
		}
		var e *core.Error
		if !errors.As(err, &e) || e.Code != clierr.CodeUsage {
			t.Errorf("--from %s %s: %v, want a usage error", c.from, c.arg, err)
		}
	}
}

// readErr runs the source and returns its error.
func readErr(src *importer.Source) (int, error) {
	n := 0
	err := src.Each(bg, func(int, export.Record) error { n++; return nil }, func(string) {})
	return n, err
}
