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
