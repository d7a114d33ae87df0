package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/importer"
	"github.com/agentmem/agentmem/core/store"
)

// TestImportResumes interrupts an import (as Ctrl-C does, by cancelling its
// context) once the first resource's threads are fully imported, then runs
// the same command again: it resumes after the checkpoint and the result
// equals an uninterrupted import.
func TestImportResumes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		src := sqliteBackend(t)
		seed(t, src.store)
		want := src.agentmem(t, "", "export").ok(t).stdout
		file := filepath.Join(t.TempDir(), "export.jsonl")
		if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		interruptImport(t, b, file)
		if _, err := b.store.GetThread(bg, "notes"); err == nil {
			t.Fatal("the thread after the interruption was imported")
		}
		r := b.agentmem(t, "", "--write", "import", file).ok(t)
		if !strings.Contains(r.stdout, "imported 1 threads, 1 messages") || !strings.Contains(r.stdout, "resumed after line 14 of an interrupted run") {
			t.Fatalf("second run did not resume:\n%s", r.stdout)
		}
		if got := b.agentmem(t, "", "export").ok(t).stdout; got != want {
			t.Fatalf("resumed import differs:\n%s\n---\n%s", got, want)
		}
	})
}

// interruptImport runs the import of file and cancels it when the import
// pass (after the check) reaches thread notes (line 15), once threads trip and food (lines 3-13,
// food closed by line 14) are finished.
func interruptImport(t *testing.T, b backend, file string) {
	t.Helper()
	a := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	a.flags = globalFlags{db: b.flags[1], pgSchema: "public", write: true}
	if len(b.flags) > 2 {
		a.flags.pgSchema = b.flags[3]
	}
	c, err := connect(bg, a.flags)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	jsonl, cleanup, err := importer.JSONL(file, a.stdin)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	sp, err := importer.NewSpool()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	p, err := importer.Check(ctx, jsonl, c.Store, sp)
	if err != nil {
		t.Fatal(err)
	}
	finished := false
	replay := sp.Replay(jsonl)
	interrupting := *replay
	interrupting.Each = func(ctx context.Context, fn func(int, export.Record) error, skip func(string)) error {
		return replay.Each(ctx, func(n int, r export.Record) error {
			if n == 15 {
				finished = threadFinished(b.store, "trip", at(0).Add(time.Hour)) && threadFinished(b.store, "food", at(100).Add(time.Hour))
				cancel()
				return ctx.Err()
			}
			return fn(n, r)
		}, skip)
	}
	err = a.importChecked(ctx, c, &interrupting, p, false, 2)
	if !finished {
		t.Fatal("threads trip and food were not finished before the interruption")
	}
	if !importer.Interrupted(err) || !strings.Contains(err.Error(), "run the same command to resume") {
		t.Fatalf("interrupted import: %v", err)
	}
}

// threadFinished waits until the importer restored the thread's UpdatedAt,
// its last step.
func threadFinished(s *store.Checked, id string, updated time.Time) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if th, err := s.GetThread(bg, id); err == nil && th.UpdatedAt.Equal(updated) {
			return true
		}
	}
	return false
}
