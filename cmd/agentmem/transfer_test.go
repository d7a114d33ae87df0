package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

// TestRoundTripSQLitePostgres: SQLite → JSONL → PostgreSQL → JSONL gives the
// same bytes, and so does PostgreSQL → JSONL → SQLite → JSONL.
func TestRoundTripSQLitePostgres(t *testing.T) {
	lite, pg := sqliteBackend(t), postgresBackend(t)
	seed(t, lite.store)
	first := lite.agentmem(t, "", "export").ok(t).stdout
	golden(t, "export.jsonl", first)
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(file, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	pg.agentmem(t, "", "--write", "import", file).ok(t)
	second := pg.agentmem(t, "", "export").ok(t).stdout
	if second != first {
		t.Fatalf("SQLite → JSONL → PostgreSQL → JSONL differs:\n%s\n---\n%s", first, second)
	}
	back := sqliteBackend(t)
	back.agentmem(t, second, "--write", "import", "-").ok(t)
	if third := back.agentmem(t, "", "export").ok(t).stdout; third != first {
		t.Fatalf("PostgreSQL → JSONL → SQLite → JSONL differs:\n%s\n---\n%s", first, third)
	}
}

// TestImportIdempotent: importing the same file twice changes nothing, and
// the summary is the golden one.
func TestImportIdempotent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		src := sqliteBackend(t)
		seed(t, src.store)
		file := filepath.Join(t.TempDir(), "export.jsonl")
		src.agentmem(t, "", "export", "-o", file).ok(t)
		golden(t, "import.txt", strings.ReplaceAll(b.agentmem(t, "", "--write", "import", file).ok(t).stdout, file, "FILE"))
		once := b.agentmem(t, "", "export").ok(t).stdout
		b.agentmem(t, "", "--write", "import", file).ok(t)
		if twice := b.agentmem(t, "", "export").ok(t).stdout; twice != once {
			t.Fatalf("second import changed memory:\n%s\n---\n%s", once, twice)
		}
		doc := jsonDoc(t, b.agentmem(t, "", "--json", "--write", "import", file).ok(t))
		shape(t, "import", doc, map[string]string{"source": "string", "records": "number", "threads": "number", "messages": "number", "saved": "number", "dropped": "number", "skipped": "object"})
		if doc["saved"] != 8.0 || doc["threads"] != 3.0 {
			t.Errorf("import summary %v", doc)
		}
	})
}

func TestExportSelection(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		golden(t, "export-thread.jsonl", b.agentmem(t, "", "export", "--thread", "notes").ok(t).stdout)
		res := b.agentmem(t, "", "export", "--resource", "bob").ok(t).stdout
		if !strings.Contains(res, `"id":"notes"`) || strings.Contains(res, `"ada"`) {
			t.Errorf("export --resource bob:\n%s", res)
		}
		if r := b.agentmem(t, "", "export", "--thread", "nope"); r.code != 1 || !strings.Contains(r.stderr, "not found") {
			t.Errorf("export unknown thread: %+v", r)
		}
	})
}

// TestImportCorruptLine: a bad line anywhere fails with its line number and
// nothing is written.
func TestImportCorruptLine(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		src := sqliteBackend(t)
		seed(t, src.store)
		lines := strings.SplitAfter(src.agentmem(t, "", "export").ok(t).stdout, "\n")
		cases := []struct {
			name, want string
			edit       func([]string) []string
		}{
			{"truncated JSON", "line 9: not valid JSON", func(l []string) []string { l[8] = l[8][:20] + "\n"; return l }},
			{"unknown kind", `line 4: unknown kind "mesage"`, func(l []string) []string {
				l[3] = strings.Replace(l[3], `"kind":"message"`, `"kind":"mesage"`, 1)
				return l
			}},
			{"message before its thread", `line 11: thread "food" is not the thread of the preceding thread line`, func(l []string) []string {
				return append(append(append([]string{}, l[:10]...), l[11], l[10]), l[12:]...)
			}},
			{"no header", "line 1: not an agentmem export", func(l []string) []string { return l[1:] }},
			{"system role", `line 5: message "trip-2": role "system" cannot be stored`, func(l []string) []string {
				l[4] = strings.Replace(l[4], `"role":"assistant"`, `"role":"system"`, 1)
				return l
			}},
		}
		for _, c := range cases {
			file := filepath.Join(t.TempDir(), "bad.jsonl")
			if err := os.WriteFile(file, []byte(strings.Join(c.edit(append([]string{}, lines...)), "")), 0o644); err != nil {
				t.Fatal(err)
			}
			r := b.agentmem(t, "", "--write", "import", file)
			if r.code != 1 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%s: exit %d, stderr %q; want %q", c.name, r.code, r.stderr, c.want)
			}
			if th, err := b.store.ListThreads(bg, store.ThreadQuery{}); err != nil || th.Total != 0 {
				t.Fatalf("%s: %d threads written, err %v; want nothing", c.name, th.Total, err)
			}
		}
	})
}

// TestImportRefusesTakeover: a thread or message id owned by another
// resource in the target fails the check before anything is written.
func TestImportRefusesTakeover(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		src := sqliteBackend(t)
		seed(t, src.store)
		file := filepath.Join(t.TempDir(), "export.jsonl")
		src.agentmem(t, "", "export", "-o", file).ok(t)
		if _, err := b.store.SaveThread(bg, core.Thread{ID: "food", ResourceID: "mallory"}); err != nil {
			t.Fatal(err)
		}
		r := b.agentmem(t, "", "--write", "import", file)
		if r.code != 1 || !strings.Contains(r.stderr, `thread "food" belongs to resource "mallory" in the target`) {
			t.Fatalf("import over another resource's thread: %+v", r)
		}
		if _, err := b.store.GetThread(bg, "trip"); !errors.Is(err, core.ErrThreadNotFound) {
			t.Fatalf("thread trip was written before the check failed: %v", err)
		}
	})
}

// TestImportRefusesMessageTakeover: a message id owned by another resource
// in the target fails the check with its line, before anything is written,
// even when a corrupt line follows it (ids are checked in pages in the
// background while reading goes on: the earlier problem is the one
// reported).
func TestImportRefusesMessageTakeover(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		if _, err := b.store.SaveThread(bg, core.Thread{ID: "theirs", ResourceID: "mallory"}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.store.SaveMessages(bg, []core.Message{takeoverMessage(7, "theirs", "mallory")}); err != nil {
			t.Fatal(err)
		}
		var file strings.Builder
		for _, r := range []export.Record{{Kind: export.KindHeader, Version: export.FormatVersion},
			{Kind: export.KindThread, Thread: &core.Thread{ID: "mine", ResourceID: "ada", CreatedAt: time.Unix(0, 0).UTC()}}} {
			line, err := export.Encode(r)
			if err != nil {
				t.Fatal(err)
			}
			file.WriteString(string(line) + "\n")
		}
		for i := range 2 * export.PageSize {
			m := takeoverMessage(i, "mine", "ada")
			line, err := export.Encode(export.Record{Kind: export.KindMessage, Message: &m})
			if err != nil {
				t.Fatal(err)
			}
			file.WriteString(string(line) + "\n")
		}
		file.WriteString("{corrupt\n")
		r := b.agentmem(t, file.String(), "--write", "import", "-")
		if r.code != 1 || !strings.Contains(r.stderr, `line 10: message "m-7" belongs to resource "mallory" in the target, not "ada"`) {
			t.Fatalf("import over another resource's message: %+v", r)
		}
		if _, err := b.store.GetThread(bg, "mine"); !errors.Is(err, core.ErrThreadNotFound) {
			t.Fatalf("thread mine was written before the check failed: %v", err)
		}
	})
}

func takeoverMessage(i int, thread, resource string) core.Message {
	m := core.NewMessage(core.RoleUser, fmt.Sprintf("text %d", i))
	m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = fmt.Sprintf("m-%d", i), thread, resource, time.Unix(int64(i), 0).UTC()
	return m
}

// TestWriteNeedsFlag: every write command refuses without --write, with
// exit code 2 and the AGENTMEM_READ_ONLY code, and changes nothing.
func TestWriteNeedsFlag(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		before := b.agentmem(t, "", "export").ok(t).stdout
		file := filepath.Join(t.TempDir(), "x.jsonl")
		if err := os.WriteFile(file, []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"import", file},
			{"working-memory", "set", "--resource", "ada", "new"},
			{"delete-thread", "trip"},
			{"reindex"},
		} {
			r := b.agentmem(t, "", append([]string{"--json"}, args...)...)
			if r.code != 2 || !strings.Contains(r.stderr, `"code": "AGENTMEM_READ_ONLY"`) {
				t.Errorf("%v: exit %d, stderr %s", args, r.code, r.stderr)
			}
		}
		if after := b.agentmem(t, "", "export").ok(t).stdout; after != before {
			t.Fatal("a refused write changed memory")
		}
	})
}

func TestWorkingMemorySet(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		golden(t, "wm-set.txt", b.agentmem(t, "", "--write", "working-memory", "set", "--resource", "ada", "# Ada\n- lives in Porto").ok(t).stdout)
		b.agentmem(t, "- from stdin\n", "--write", "wm", "set", "--thread", "food", "-").ok(t)
		if got := b.agentmem(t, "", "wm", "get", "--thread", "food").ok(t).stdout; got != "- from stdin\n" {
			t.Errorf("thread working memory = %q", got)
		}
		if r := b.agentmem(t, "", "--write", "wm", "set", "--thread", "nope", "x"); r.code != 1 || !strings.Contains(r.stderr, "not found") {
			t.Errorf("set on unknown thread: %+v", r)
		}
		if r := b.agentmem(t, "", "wm", "get"); r.code != 2 {
			t.Errorf("get without a target: %+v", r)
		}
	})
}

func TestDeleteThread(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		if r := b.agentmem(t, "", "--write", "delete-thread", "food", "nope"); r.code != 1 || !strings.Contains(r.stderr, "not found") {
			t.Fatalf("delete with an unknown thread: %+v", r)
		}
		if _, err := b.store.GetThread(bg, "food"); err != nil {
			t.Fatalf("food was deleted although nope does not exist: %v", err)
		}
		golden(t, "delete-thread.txt", b.agentmem(t, "", "--write", "delete-thread", "food").ok(t).stdout)
		b.agentmem(t, "", "--write", "delete-thread", "--resource", "ada").ok(t)
		golden(t, "threads-after-delete.txt", b.agentmem(t, "", "threads").ok(t).stdout)
	})
}

// TestBadConnection: a wrong DSN, a missing SQLite file and an unknown
// thread fail with exit 1 and a typed code.
func TestBadConnection(t *testing.T) {
	r := runCmd(t, "", "--json", "--db", "postgres://nobody@127.0.0.1:1/none?connect_timeout=2", "threads")
	if r.code != 1 || !strings.Contains(r.stderr, `"code": "MEMORY_STORAGE_FAILED"`) {
		t.Errorf("wrong DSN: %+v", r)
	}
	missing := filepath.Join(t.TempDir(), "none.db")
	r = runCmd(t, "", "--db", missing, "threads")
	if r.code != 1 || !strings.Contains(r.stderr, "no SQLite database") {
		t.Errorf("missing file: %+v", r)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a read command created %s", missing)
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		r := b.agentmem(t, "", "--json", "show", "nope")
		if r.code != 1 || !strings.Contains(r.stderr, `"code": "MEMORY_THREAD_NOT_FOUND"`) {
			t.Errorf("unknown thread: %+v", r)
		}
		if r := b.agentmem(t, "", "prompt", "nope"); r.code != 1 {
			t.Errorf("prompt unknown thread: %+v", r)
		}
		if r := b.agentmem(t, "", "threads", "--sort", "size"); r.code != 1 || !strings.Contains(r.stderr, "size") {
			t.Errorf("bad --sort: %+v", r)
		}
		if r := b.agentmem(t, "", "search", "ada", "x"); r.code != 1 || !strings.Contains(r.stderr, "vector store") {
			t.Errorf("search without --vector: %+v", r)
		}
		if r := b.agentmem(t, "", "show"); r.code != 2 {
			t.Errorf("show without THREAD: %+v", r)
		}
	})
}

// TestImportIndexesWithVector: import given --vector indexes what it saves,
// so search finds the imported messages without a reindex.
func TestImportIndexesWithVector(t *testing.T) {
	src := sqliteBackend(t)
	seed(t, src.store)
	file := filepath.Join(t.TempDir(), "export.jsonl")
	src.agentmem(t, "", "export", "-o", file).ok(t)
	b := sqliteBackend(t)
	b.flags = append(b.flags, "--vector", filepath.Join(t.TempDir(), "memory.vectors"))
	if r := b.agentmem(t, "", "--write", "import", file).ok(t); !strings.Contains(r.stdout, "indexed for semantic recall in --vector") {
		t.Errorf("import with --vector: %s", r.stdout)
	}
	doc := jsonDoc(t, b.agentmem(t, "", "--json", "search", "ada", "sister Zanzibarina Reykjavik", "--top-k", "1").ok(t))
	if hits := doc["hits"].([]any); len(hits) != 1 {
		t.Fatalf("search after an import with --vector: hits %v", hits)
	}
}
