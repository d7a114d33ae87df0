package main

import (
	"strings"
	"testing"
)

// TestMaintainWeaviateTenants retires the tenant of a reindexed resource and
// searches it again: the search reactivates it.
func TestMaintainWeaviateTenants(t *testing.T) {
	vector := weaviateAddr(t, "")
	b := sqliteBackend(t)
	seed(t, b.store)
	b.flags = append(b.flags, "--vector", vector)
	b.agentmem(t, "", "--write", "reindex", "ada").ok(t)
	defer b.agentmem(t, "", "--write", "delete-thread", "--resource", "ada")

	if r := b.agentmem(t, "", "maintain", "weaviate-tenants"); r.code == 0 {
		t.Fatalf("without --write: %+v", r)
	}
	if r := b.agentmem(t, "", "--write", "maintain", "weaviate-tenants", "--status", "FROZEN"); r.code != 2 || !strings.Contains(r.stderr, "--status") {
		t.Fatalf("--status FROZEN: %+v", r)
	}
	if r := b.agentmem(t, "", "--write", "maintain", "weaviate-tenants", "--idle", "-1s"); r.code != 2 {
		t.Fatalf("--idle -1s: %+v", r)
	}
	// Written just now: an idle time of an hour keeps it.
	doc := jsonDoc(t, b.agentmem(t, "", "--write", "--json", "maintain", "weaviate-tenants", "--idle", "1h").ok(t))
	if c := doc["classes"].([]any); len(c) != 1 || c[0].(map[string]any)["retired"] != 0.0 || c[0].(map[string]any)["busy"] != 1.0 {
		t.Fatalf("--idle 1h: %v", doc)
	}
	r := b.agentmem(t, "", "--write", "maintain", "weaviate-tenants", "--idle", "0").ok(t)
	if !strings.Contains(r.stdout, "1 active tenants, 1 set INACTIVE") {
		t.Fatalf("--idle 0: %s", r.stdout)
	}
	doc = jsonDoc(t, b.agentmem(t, "", "--json", "search", "ada", "sister Zanzibarina Reykjavik", "--top-k", "1", "--mode", "vector").ok(t))
	if hits := doc["hits"].([]any); len(hits) != 1 || hits[0].(map[string]any)["messageId"] != "trip-3" {
		t.Fatalf("search of the retired resource: %v", hits)
	}
	r = b.agentmem(t, "", "--write", "maintain", "weaviate-tenants", "--idle", "0").ok(t)
	if !strings.Contains(r.stdout, "1 active tenants, 1 set INACTIVE") {
		t.Fatalf("the search did not reactivate the tenant: %s", r.stdout)
	}
}
