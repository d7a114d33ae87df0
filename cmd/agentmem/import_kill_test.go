package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	msqlite "modernc.org/sqlite"

	"github.com/agentmem/agentmem/internal/killtest"
)

// Environment of the import process killed before one of its commits.
const (
	importKillEnvDB    = "AGENTMEM_IMPORT_KILL_DB"
	importKillEnvSrc   = "AGENTMEM_IMPORT_KILL_SRC"
	importKillEnvAt    = "AGENTMEM_IMPORT_KILL_AT"
	importKillEnvState = "AGENTMEM_IMPORT_KILL_STATE"
)

// importKillArgs import a file in batches of two messages with one worker,
// so that every thread takes several commits, always in the same order.
func importKillArgs(db, file string) []string {
	return []string{"--db", db, "--write", "import", "--batch", "2", file}
}

// commitWatch counts the transactions committed to one SQLite file by this
// process and, set to, stops the process for good before commit stopAt:
// the parent kills it there, with stopAt-1 commits durable.
type commitWatch struct {
	mu     sync.Mutex
	path   string
	n      int
	stopAt int
}

var (
	commits     = &commitWatch{}
	commitsOnce sync.Once
)

// watchCommits starts counting the commits to path (from 0).
func watchCommits(path string, stopAt int) *commitWatch {
	commitsOnce.Do(func() {
		msqlite.RegisterConnectionHook(func(conn msqlite.ExecQuerierContext, dsn string) error {
			if h, ok := conn.(msqlite.HookRegisterer); ok {
				h.RegisterCommitHook(func() int32 { commits.commit(dsn); return 0 })
			}
			return nil
		})
	})
	commits.mu.Lock()
	defer commits.mu.Unlock()
	commits.path, commits.n, commits.stopAt = path, 0, stopAt
	return commits
}

func (w *commitWatch) commit(dsn string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.path == "" || !strings.Contains(dsn, w.path) {
		return
	}
	if w.n++; w.n == w.stopAt {
		fmt.Printf("AT commit %d\n", w.n)
		select {} // the parent kills the process here
	}
}

func (w *commitWatch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// TestImportKillChild is the import process the kill test starts. Run
// directly, it does nothing.
func TestImportKillChild(t *testing.T) {
	db := os.Getenv(importKillEnvDB)
	if db == "" {
		return
	}
	at, _ := strconv.Atoi(os.Getenv(importKillEnvAt))
	os.Setenv("AGENTMEM_STATE_DIR", os.Getenv(importKillEnvState))
	watchCommits(db, at)
	r := runCmd(t, "", importKillArgs(db, os.Getenv(importKillEnvSrc))...)
	fmt.Printf("DONE after %d commits: exit %d %s\n", commits.count(), r.code, r.stderr)
	os.Exit(3)
}

// An import killed before any of its commits loses nothing once run again:
// the same command finishes it, and the database then exports exactly what
// the source did (threads, messages, working memory, observations, trim
// boundaries), nothing twice.
func TestImportSurvivesKill(t *testing.T) {
	t.Setenv("AGENTMEM_IMPORT_WORKERS", "1")
	src := sqliteBackend(t)
	seed(t, src.store)
	want := src.agentmem(t, "", "export").ok(t).stdout
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "count.db")
	w := watchCommits(db, 0)
	runCmd(t, "", importKillArgs(db, file)...).ok(t)
	n := w.count()
	watchCommits("", 0)
	if n < 3 {
		t.Fatalf("the import made %d commits", n)
	}
	for at := 1; at <= n; at++ {
		t.Run(fmt.Sprintf("commit%d", at), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "memory.db")
			killImport(t, db, file, at)
			runCmd(t, "", importKillArgs(db, file)...).ok(t)
			if got := runCmd(t, "", "--db", db, "export").ok(t).stdout; got != want {
				t.Fatalf("killed before commit %d and run again, the import exports:\n%s\n---\nwant:\n%s", at, got, want)
			}
		})
	}
}

// killImport runs the import in a child process until it reaches commit at
// and kills it there.
func killImport(t *testing.T, db, file string, at int) {
	t.Helper()
	killtest.At(t, "TestImportKillChild", func(line string) bool { return strings.HasPrefix(line, "AT commit ") },
		importKillEnvDB+"="+db, importKillEnvSrc+"="+file,
		importKillEnvAt+"="+strconv.Itoa(at), importKillEnvState+"="+os.Getenv("AGENTMEM_STATE_DIR"))
}
