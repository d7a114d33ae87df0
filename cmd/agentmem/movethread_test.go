package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
)

// vectorThreads returns the threads that have vector records under a
// resource in the local index file at path.
func vectorThreads(t *testing.T, path, resource string) map[string]int {
	t.Helper()
	vs, err := local.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Close()
	qv, err := local.NewHashEmbedder(384).Embed(bg, []string{"hotel in Lisbon"})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := vs.Query(bg, vector.IndexName(384), vector.Query{Vector: qv[0], TopK: 1000, Filter: vector.Filter{ResourceID: resource}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, h := range hits {
		out[h.Meta.ThreadID]++
	}
	return out
}

// TestMoveThreadCommand: move-thread moves named threads, or every thread of
// --from, with their messages (and with --vector their vectors) to --to,
// leaving resource working memory where it was; it needs --write and --to.
func TestMoveThreadCommand(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		vec := filepath.Join(t.TempDir(), "memory.vec")
		b.agentmem(t, "", "--write", "--vector", vec, "reindex").ok(t)
		if got := vectorThreads(t, vec, "ada"); got["trip"] == 0 || got["food"] == 0 {
			t.Fatalf("indexed threads of ada: %v", got)
		}

		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"move-thread", "trip", "--to", "zoe"}, "--write"},
			{[]string{"--write", "move-thread", "trip"}, "--to RESOURCE is required"},
			{[]string{"--write", "move-thread", "--to", "zoe"}, "give THREAD ids or --from"},
			{[]string{"--write", "move-thread", "trip", "nope", "--to", "zoe"}, "not found"},
		} {
			r := b.agentmem(t, "", c.args...)
			if r.code == 0 || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("%v: exit %d, stderr %q; want an error with %q", c.args, r.code, r.stderr, c.want)
			}
		}
		if th, _ := b.store.GetThread(bg, "trip"); th.ResourceID != "ada" {
			t.Fatalf("a refused command moved trip to %s", th.ResourceID)
		}

		r := b.agentmem(t, "", "--write", "move-thread", "trip", "--to", "zoe").ok(t)
		if !strings.Contains(r.stdout, "moved 1 threads (5 messages) to zoe") || !strings.Contains(r.stdout, "were not moved") {
			t.Fatalf("move-thread output: %s", r.stdout)
		}
		r = b.agentmem(t, "", "--write", "--vector", vec, "move-thread", "--from", "ada", "--to", "zoe").ok(t)
		// trip's unfinished move from ada is finished too.
		if !strings.Contains(r.stdout, "moved 1 threads (7 messages) to zoe; 1 already there") || !strings.Contains(r.stdout, "finished 1 unfinished moves") {
			t.Fatalf("move-thread --from output: %s", r.stdout)
		}
		// Run again with the thread already there: nothing is left to do.
		r = b.agentmem(t, "", "--write", "--vector", vec, "move-thread", "trip", "--to", "zoe").ok(t)
		if !strings.Contains(r.stdout, "moved 0 threads (5 messages) to zoe; 1 already there") || strings.Contains(r.stdout, "finished") {
			t.Fatalf("move-thread again: %s", r.stdout)
		}

		for id, owner := range map[string]string{"trip": "zoe", "food": "zoe", "notes": "bob"} {
			th, err := b.store.GetThread(bg, id)
			if err != nil || th.ResourceID != owner {
				t.Fatalf("thread %s: %+v, %v; want owner %s", id, th, err, owner)
			}
			page, err := b.store.ListMessages(bg, store.MessageQuery{ThreadID: id, PerPage: store.PerPageAll})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range page.Messages {
				if m.ResourceID != owner {
					t.Fatalf("message %s of %s, want %s", m.ID, m.ResourceID, owner)
				}
			}
		}
		if got := vectorThreads(t, vec, "ada"); len(got) != 0 {
			t.Fatalf("vector records left under ada: %v", got)
		}
		if got := vectorThreads(t, vec, "zoe"); got["trip"] == 0 || got["food"] == 0 {
			t.Fatalf("vector records under zoe: %v", got)
		}
		wm, err := b.store.GetWorkingMemory(bg, core.ScopeResource, "ada")
		if err != nil || !strings.Contains(wm.Data, "Ada") {
			t.Fatalf("ada's working memory: %+v, %v", wm, err)
		}
		if wm, _ := b.store.GetWorkingMemory(bg, core.ScopeResource, "zoe"); wm.Version != 0 {
			t.Fatalf("zoe got working memory: %+v", wm)
		}
	})
}

// searchThreads runs search --json for a resource and returns the threads of
// its hits; a hit must come with its own message in its range.
func searchThreads(t *testing.T, b backend, resource string, flags ...string) map[string]int {
	t.Helper()
	args := append(append([]string{}, flags...), "--json", "search", resource, "hotel in Lisbon, sister Zanzibarina", "--top-k", "10")
	var out struct {
		Hits []struct {
			MessageID string         `json:"messageId"`
			ThreadID  string         `json:"threadId"`
			Range     []core.Message `json:"range"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(b.agentmem(t, "", args...).ok(t).stdout), &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, h := range out.Hits {
		if !slices.ContainsFunc(h.Range, func(m core.Message) bool { return m.ID == h.MessageID && m.ResourceID == resource }) {
			t.Fatalf("search %s: hit %s of thread %s without its message under %s: %+v", resource, h.MessageID, h.ThreadID, resource, h.Range)
		}
		got[h.ThreadID]++
	}
	return got
}

// Without --vector, move-thread moves the vectors in the index beside a
// SQLite database, the one search finds: afterwards the old resource finds
// nothing of the thread and the new one finds it.
func TestMoveThreadCommandMovesTheIndexBesideTheDatabase(t *testing.T) {
	b := sqliteBackend(t)
	seed(t, b.store)
	beside := strings.TrimSuffix(b.flags[1], ".db") + ".vectors"
	b.agentmem(t, "", "--write", "--vector", beside, "reindex").ok(t)
	if got := searchThreads(t, b, "ada"); got["trip"] == 0 {
		t.Fatalf("before the move ada finds %v", got)
	}
	r := b.agentmem(t, "", "--write", "move-thread", "trip", "--to", "zoe").ok(t)
	if !strings.Contains(r.stdout, "moved 1 threads (5 messages) to zoe") || strings.Contains(r.stdout, "not moved") {
		t.Fatalf("move-thread output: %s", r.stdout)
	}
	if got := searchThreads(t, b, "ada"); got["trip"] != 0 {
		t.Fatalf("after the move ada still finds trip: %v", got)
	}
	if got := searchThreads(t, b, "zoe"); got["trip"] == 0 {
		t.Fatalf("after the move zoe finds %v", got)
	}
	if got := vectorThreads(t, beside, "ada"); got["trip"] != 0 {
		t.Fatalf("vector records of trip left under ada: %v", got)
	}
}

// A move without a vector store stays unfinished: search never returns the
// moved messages for the old resource meanwhile (their vectors are still
// there), and a run with the vector store, with --from as the first time,
// finishes those moves and reports them.
func TestMoveThreadCommandFinishesUnfinishedMoves(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		vec := filepath.Join(t.TempDir(), "elsewhere.vec") // not beside the database
		b.agentmem(t, "", "--write", "--vector", vec, "reindex").ok(t)
		r := b.agentmem(t, "", "--write", "move-thread", "--from", "ada", "--to", "zoe").ok(t)
		if !strings.Contains(r.stdout, "moved 2 threads") || !strings.Contains(r.stdout, "vectors of 2 threads were not moved") {
			t.Fatalf("move-thread without a vector store: %s", r.stdout)
		}
		if got := vectorThreads(t, vec, "ada"); got["trip"] == 0 {
			t.Fatalf("the stale records are gone already: %v", got)
		}
		if got := searchThreads(t, b, "ada", "--vector", vec); len(got) != 0 {
			t.Fatalf("search of ada returns moved threads: %v", got)
		}
		r = b.agentmem(t, "", "--write", "--vector", vec, "move-thread", "--from", "ada", "--to", "zoe").ok(t)
		if !strings.Contains(r.stdout, "moved 0 threads") || !strings.Contains(r.stdout, "finished 2 unfinished moves") {
			t.Fatalf("rerun with the vector store: %s", r.stdout)
		}
		if got := vectorThreads(t, vec, "ada"); len(got) != 0 {
			t.Fatalf("vector records left under ada: %v", got)
		}
		if got := searchThreads(t, b, "zoe", "--vector", vec); got["trip"] == 0 {
			t.Fatalf("zoe finds %v", got)
		}
		for _, id := range []string{"trip", "food"} {
			if th, err := b.store.GetThread(bg, id); err != nil || len(core.PendingMoveSources(th)) != 0 {
				t.Fatalf("thread %s: %+v, %v", id, th.Metadata, err)
			}
		}
	})
}
