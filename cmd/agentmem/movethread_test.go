package main

import (
	"path/filepath"
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
		if !strings.Contains(r.stdout, "moved 1 threads (5 messages) to zoe") || !strings.Contains(r.stdout, "vectors were not moved") {
			t.Fatalf("move-thread output: %s", r.stdout)
		}
		r = b.agentmem(t, "", "--write", "--vector", vec, "move-thread", "--from", "ada", "--to", "zoe").ok(t)
		if !strings.Contains(r.stdout, "moved 1 threads (2 messages) to zoe") {
			t.Fatalf("move-thread --from output: %s", r.stdout)
		}
		// Run again with the thread already there: it repairs trip's vectors.
		b.agentmem(t, "", "--write", "--vector", vec, "move-thread", "trip", "--to", "zoe").ok(t)

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
