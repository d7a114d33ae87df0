package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestFailedImportCreatesNoFile: an import that fails before writing (a
// missing source, a truncated JSONL line, a file that is not Mastra's) leaves
// no new database file, -wal or -shm behind.
func TestFailedImportCreatesNoFile(t *testing.T) {
	src := t.TempDir()
	truncated := filepath.Join(src, "truncated.jsonl")
	if err := os.WriteFile(truncated, []byte(`{"kind":"thread","thread":{"id":"t","resourceId":"r"`), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(src, "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing source", []string{filepath.Join(src, "none.jsonl")}, "no such file"},
		{"truncated JSONL", []string{truncated}, "line 1"},
		{"not Mastra", []string{"--from", "mastra", other}, "not a Mastra memory database: it has no table mastra_messages, mastra_resources, mastra_threads"},
	} {
		dir := t.TempDir()
		target := filepath.Join(dir, "memory.db")
		r := runCmd(t, "", append([]string{"--db", target, "--write", "import"}, c.args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want a failure saying %q", c.name, r.code, r.stderr, c.want)
		}
		if names := dirEntries(t, dir); len(names) != 0 {
			t.Errorf("%s: the failed import left %v", c.name, names)
		}
	}
	if names := dirEntries(t, src); !slices.Equal(names, []string{"other.db", "truncated.jsonl"}) {
		t.Errorf("reading the sources left %v beside them", names)
	}
}

// TestFailedImportKeepsExistingDB: a failed import into an existing database
// leaves that database in place.
func TestFailedImportKeepsExistingDB(t *testing.T) {
	b := sqliteBackend(t)
	seed(t, b.store)
	r := b.agentmem(t, "", "--write", "import", filepath.Join(t.TempDir(), "none.jsonl"))
	if r.code == 0 {
		t.Fatalf("import of a missing file succeeded: %+v", r)
	}
	b.agentmem(t, "", "show", "trip").ok(t)
}

// TestMigrateLeavesNoFilesBesideSource: migrating from langchaingo's SQLite
// file reads it without creating -wal or -shm files beside it, and names why
// a custom-role message is skipped.
func TestMigrateLeavesNoFilesBesideSource(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "chat.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE langchaingo_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL,
		content TEXT NOT NULL, type TEXT NOT NULL, created DATETIME DEFAULT CURRENT_TIMESTAMP);
		INSERT INTO langchaingo_messages (session, content, type) VALUES ('s', 'hello', 'human'), ('s', 'aside', 'generic'), ('s', 'hi', 'ai')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	target := filepath.Join(t.TempDir(), "memory.db")
	r := runCmd(t, "", "--db", target, "--write", "import", "--from", "langchaingo-sqlite3", path).ok(t)
	if !strings.Contains(r.stdout, `skipped 1: messages of type "generic" (a custom role`) || strings.Contains(r.stdout, "tool call") {
		t.Errorf("skip reason for a generic message:\n%s", r.stdout)
	}
	if names := dirEntries(t, dir); !slices.Equal(names, []string{"chat.db"}) {
		t.Errorf("the source's directory holds %v after the migration", names)
	}
}

// TestSearchFindsVectorsBesideDB: after a program keeps memory.db and
// memory.vectors side by side (as the quickstart does), search needs no
// --vector.
func TestSearchFindsVectorsBesideDB(t *testing.T) {
	b := sqliteBackend(t)
	seed(t, b.store)
	db := b.flags[1]
	vec := strings.TrimSuffix(db, ".db") + ".vectors"
	b.agentmem(t, "", "--write", "--vector", vec, "reindex").ok(t)
	r := b.agentmem(t, "", "search", "ada", "sister Zanzibarina Reykjavik", "--top-k", "1").ok(t)
	if !strings.Contains(r.stdout, "Zanzibarina") {
		t.Errorf("search without --vector:\n%s", r.stdout)
	}
	if err := os.Remove(vec); err != nil {
		t.Fatal(err)
	}
	if r := b.agentmem(t, "", "search", "ada", "Zanzibarina"); r.code != 1 || !strings.Contains(r.stderr, "vector store") {
		t.Errorf("search with no index beside the database: %+v", r)
	}
}
