package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
)

// TestReindexResumes: a checkpoint left by an interrupted reindex (thread
// trip done) makes the next run skip that thread; --restart ignores it.
func TestReindexResumes(t *testing.T) {
	b := sqliteBackend(t)
	seed(t, b.store)
	vec := filepath.Join(t.TempDir(), "memory.vectors")
	cp, _, err := openCheckpoint(false, "reindex", b.flags[1], "public", vec, vector.IndexName(384), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.save(checkpointState{Threads: []string{"trip"}}); err != nil {
		t.Fatal(err)
	}
	b.flags = append(b.flags, "--vector", vec)
	r := b.agentmem(t, "", "--write", "reindex").ok(t)
	if !strings.Contains(r.stdout, "reindexed 2 threads (3 messages) into memory_messages_384; 1 already done earlier") {
		t.Fatalf("resumed reindex: %s", r.stdout)
	}
	if r := b.agentmem(t, "", "--write", "reindex").ok(t); !strings.Contains(r.stdout, "reindexed 3 threads (8 messages)") {
		t.Fatalf("a finished reindex left its checkpoint behind: %s", r.stdout)
	}
	if err := cp.save(checkpointState{Threads: []string{"trip"}}); err != nil {
		t.Fatal(err)
	}
	if r := b.agentmem(t, "", "--write", "reindex", "--restart").ok(t); !strings.Contains(r.stdout, "reindexed 3 threads") {
		t.Fatalf("--restart: %s", r.stdout)
	}
}

// TestReindexChangedEmbedder: after a change of embedder dimension, stats
// counts the messages indexed under the old one as unindexed and names the
// mismatch, search fails with it, and reindex moves them to the new index.
func TestReindexChangedEmbedder(t *testing.T) {
	url, _ := fakeEmbeddings(t) // dimension 64
	b := sqliteBackend(t)
	seed(t, b.store)
	b.flags = append(b.flags, "--vector", filepath.Join(t.TempDir(), "memory.vectors"))
	b.agentmem(t, "", "--write", "reindex").ok(t) // the hash embedder: 384
	b.flags = append(b.flags, "--embedder", url, "--embed-model", "test-model")

	stats := b.agentmem(t, "", "stats").ok(t).stdout
	for _, want := range []string{"unindexed     8", "mismatch", "memory_messages_384 (dimension 384)", "memory_messages_64"} {
		if !strings.Contains(stats, want) {
			t.Fatalf("stats after the change lacks %q:\n%s", want, stats)
		}
	}
	if r := b.agentmem(t, "", "search", "ada", "Zanzibarina"); r.code == 0 || !strings.Contains(r.stderr, "reindex") {
		t.Fatalf("search after the change: code %d, %s", r.code, r.stderr)
	}
	r := b.agentmem(t, "", "--write", "reindex").ok(t)
	if !strings.Contains(r.stdout, "into memory_messages_64") || !strings.Contains(r.stdout, "0 messages still unindexed") {
		t.Fatalf("reindex: %s", r.stdout)
	}
	if stats := b.agentmem(t, "", "stats").ok(t).stdout; strings.Contains(stats, "mismatch") || !strings.Contains(stats, "unindexed     0") {
		t.Fatalf("stats after the reindex:\n%s", stats)
	}
	b.agentmem(t, "", "search", "ada", "Zanzibarina").ok(t)
}
