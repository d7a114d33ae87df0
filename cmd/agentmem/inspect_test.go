package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/testenv"
)

// TestInspectGolden runs the read-only commands on the seeded memory of each
// backend; both backends must print exactly the same text.
func TestInspectGolden(t *testing.T) {
	cases := []struct {
		golden string
		args   []string
	}{
		{"threads.txt", []string{"threads"}},
		{"threads-resource.txt", []string{"threads", "--resource", "ada", "--sort", "updatedAt", "--asc", "--per-page", "1"}},
		{"show-trip.txt", []string{"show", "trip"}},
		{"show-notes.txt", []string{"show", "notes"}},
		{"prompt-trip.txt", []string{"prompt", "trip", "--working-memory", "--max-tokens", "330", "--input", "And the weather in June?", "--system", "You are a travel agent."}},
		{"stats.txt", []string{"stats"}},
		{"wm-get-ada.txt", []string{"working-memory", "get", "--resource", "ada"}},
		{"wm-get-empty.txt", []string{"wm", "get", "--thread", "food"}},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		for _, c := range cases {
			golden(t, c.golden, b.agentmem(t, "", c.args...).ok(t).stdout)
		}
	})
}

// TestInspectJSON checks the shape of every read-only command's --json output.
func TestInspectJSON(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		doc := jsonDoc(t, b.agentmem(t, "", "--json", "threads").ok(t))
		shape(t, "threads", doc, map[string]string{"threads": "array", "total": "number", "page": "number", "perPage": "number", "hasMore": "bool"})
		th := doc["threads"].([]any)
		if len(th) != 3 {
			t.Fatalf("threads: %d, want 3", len(th))
		}
		shape(t, "threads[0]", th[0].(map[string]any), map[string]string{"id": "string", "resourceId": "string", "title": "string", "createdAt": "string", "updatedAt": "string", "messages": "number"})

		doc = jsonDoc(t, b.agentmem(t, "", "--json", "show", "trip").ok(t))
		shape(t, "show", doc, map[string]string{"thread": "object", "messages": "array", "workingMemory": "object", "observations": "array"})
		msgs := doc["messages"].([]any)
		if len(msgs) != 5 {
			t.Fatalf("show: %d messages, want 5", len(msgs))
		}
		m0 := msgs[0].(map[string]any)
		shape(t, "show.messages[0]", m0, map[string]string{"id": "string", "role": "string", "createdAt": "string", "content": "object", "tokens": "number", "trimmed": "bool"})
		if m0["trimmed"] != true || msgs[1].(map[string]any)["trimmed"] != false {
			t.Errorf("boundary: trimmed flags %v, %v; want true, false", m0["trimmed"], msgs[1].(map[string]any)["trimmed"])
		}
		obs := doc["observations"].([]any)
		if len(obs) != 1 {
			t.Fatalf("show: %d observation records, want 1", len(obs))
		}
		shape(t, "show.observations[0]", obs[0].(map[string]any), map[string]string{"key": "string", "observations": "string", "generation": "number", "lastObservedAt": "string"})

		doc = jsonDoc(t, b.agentmem(t, "", "--json", "prompt", "trip", "--input", "hello").ok(t))
		shape(t, "prompt", doc, map[string]string{"threadId": "string", "resourceId": "string", "messages": "array", "totalTokens": "number", "trimmed": "number", "encoding": "string"})
		pm := doc["messages"].([]any)
		last := pm[len(pm)-1].(map[string]any)
		shape(t, "prompt.messages[-1]", last, map[string]string{"source": "string", "tokens": "number", "role": "string", "content": "object"})
		if last["source"] != "input" {
			t.Errorf("last prompt message source %v, want input", last["source"])
		}

		doc = jsonDoc(t, b.agentmem(t, "", "--json", "stats").ok(t))
		shape(t, "stats", doc, map[string]string{"threads": "number", "resources": "number", "messages": "number", "tokens": "number", "tokenEncodings": "object", "unindexed": "number", "index": "null"})
		if doc["messages"] != 8.0 || doc["threads"] != 3.0 || doc["resources"] != 2.0 {
			t.Errorf("stats = %v", doc)
		}

		doc = jsonDoc(t, b.agentmem(t, "", "--json", "working-memory", "get", "--thread", "notes").ok(t))
		shape(t, "working-memory get", doc, map[string]string{"scope": "string", "id": "string", "data": "string", "version": "number"})
		if doc["data"] != "- prefers trains\n" {
			t.Errorf("working memory = %q", doc["data"])
		}
	})
}

// TestPromptIsReadOnly: prompt trims with a budget but never moves the
// persisted boundary or saves the input.
func TestPromptIsReadOnly(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		before := b.agentmem(t, "", "export").ok(t).stdout
		r := b.agentmem(t, "", "prompt", "trip", "--max-tokens", "60", "--input", "a new question").ok(t)
		if !strings.Contains(r.stdout, "trimmed by the budget") {
			t.Fatalf("prompt output: %s", r.stdout)
		}
		if after := b.agentmem(t, "", "export").ok(t).stdout; after != before {
			t.Fatalf("prompt changed memory:\n%s\n---\n%s", before, after)
		}
	})
}

// TestSearchAndReindex indexes the seeded memory into a local index with the
// hash embedder and searches it.
func TestSearchAndReindex(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		vec := filepath.Join(t.TempDir(), "memory.vectors")
		b.flags = append(b.flags, "--vector", vec)
		if r := b.agentmem(t, "", "reindex"); r.code != 2 || !strings.Contains(r.stderr, "--write") {
			t.Fatalf("reindex without --write: %+v", r)
		}
		golden(t, "reindex.txt", b.agentmem(t, "", "--write", "reindex").ok(t).stdout)
		r := b.agentmem(t, "", "search", "ada", "sister Zanzibarina Reykjavik", "--top-k", "2", "--before", "0").ok(t)
		golden(t, "search.txt", r.stdout)
		doc := jsonDoc(t, b.agentmem(t, "", "--json", "search", "ada", "Zanzibarina", "--top-k", "1").ok(t))
		hits := doc["hits"].([]any)
		if len(hits) != 1 {
			t.Fatalf("hits = %v", hits)
		}
		shape(t, "search.hits[0]", hits[0].(map[string]any), map[string]string{"score": "number", "messageId": "string", "threadId": "string", "range": "array"})
		if id := hits[0].(map[string]any)["messageId"]; id != "trip-3" && id != "trip-4" {
			t.Errorf("best hit %v, want a message naming Zanzibarina", id)
		}
		if r := b.agentmem(t, "", "search", "bob", "Zanzibarina").ok(t); strings.Contains(r.stdout, "Zanzibarina") {
			t.Errorf("search leaked another resource's messages:\n%s", r.stdout)
		}
		for filter, n := range map[string]int{`{"topic":{"$exists":true}}`: 0, `{"topic":{"$exists":false}}`: 2} {
			doc := jsonDoc(t, b.agentmem(t, "", "--json", "search", "ada", "Zanzibarina", "--top-k", "2", "--filter", filter).ok(t))
			if hits, _ := doc["hits"].([]any); len(hits) != n {
				t.Errorf("--filter %s: %d hits, want %d", filter, len(hits), n)
			}
		}
		if r := b.agentmem(t, "", "search", "ada", "x", "--filter", `{"a":{"$regex":"x"}}`); r.code != 2 || !strings.Contains(r.stderr, "$regex") {
			t.Errorf("invalid --filter: %+v", r)
		}
		golden(t, "stats-vector.txt", b.agentmem(t, "", "stats").ok(t).stdout)
	})
}

func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := runCmd(t, "", "completion", shell).ok(t)
		if !strings.Contains(r.stdout, "agentmem") {
			t.Errorf("completion %s: %.200s", shell, r.stdout)
		}
	}
}

func TestHelpTeaches(t *testing.T) {
	r := runCmd(t, "", "--help").ok(t)
	for _, want := range []string{"Inspect:", "Maintain (need --write):", "Export, import and migrate:", "--db", "AGENTMEM_DB", "--write", "--json"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

// TestSearchWeaviate reindexes into a real Weaviate (vectors from the hash
// embedder, one tenant per resource) and searches it.
func TestSearchWeaviate(t *testing.T) {
	vector := weaviateAddr(t, "")
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		b.flags = append(b.flags, "--vector", vector)
		if r := b.agentmem(t, "", "--write", "reindex", "ada").ok(t); !strings.Contains(r.stdout, "reindexed 2 threads (7 messages) into memory_messages_384") {
			t.Fatalf("reindex: %s", r.stdout)
		}
		doc := jsonDoc(t, b.agentmem(t, "", "--json", "search", "ada", "sister Zanzibarina Reykjavik", "--top-k", "1").ok(t))
		hits := doc["hits"].([]any)
		if len(hits) != 1 {
			t.Fatalf("hits %v, want one", hits)
		}
		if id := hits[0].(map[string]any)["messageId"]; id != "trip-3" && id != "trip-4" {
			t.Fatalf("best hit %v, want a message naming Zanzibarina", id)
		}
		if r := b.agentmem(t, "", "search", "bob", "trains").ok(t); r.stdout != "no hits\n" {
			t.Errorf("resource bob was not indexed, yet search found: %s", r.stdout)
		}
		b.agentmem(t, "", "--write", "delete-thread", "--resource", "ada").ok(t)
	})
}

// TestSearchWeaviateSelfEmbedding: with ?vectorizer= Weaviate embeds the
// texts itself (the test server's text2vec-transformers module), no embedder
// runs here, and an explicit --embedder is refused as a contradiction.
func TestSearchWeaviateSelfEmbedding(t *testing.T) {
	vector := weaviateAddr(t, "&vectorizer=text2vec-transformers")
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		b.flags = append(b.flags, "--vector", vector)
		if r := b.agentmem(t, "", "--write", "reindex", "ada").ok(t); !strings.Contains(r.stdout, "reindexed 2 threads (7 messages) into memory_messages") {
			t.Fatalf("reindex: %s", r.stdout)
		}
		doc := jsonDoc(t, b.agentmem(t, "", "--json", "stats").ok(t))
		if ix := doc["index"].(map[string]any); ix["selfEmbedding"] != true {
			t.Errorf("stats index %v", ix)
		}
		doc = jsonDoc(t, b.agentmem(t, "", "--json", "search", "ada", "sister Zanzibarina Reykjavik", "--top-k", "1").ok(t))
		hits := doc["hits"].([]any)
		if len(hits) != 1 {
			t.Fatalf("hits %v, want one", hits)
		}
		if id := hits[0].(map[string]any)["messageId"]; id != "trip-3" && id != "trip-4" {
			t.Fatalf("best hit %v, want a message naming Zanzibarina", id)
		}
		if r := b.agentmem(t, "", "--embedder", "http://127.0.0.1:1/v1", "search", "ada", "x"); r.code != 2 || !strings.Contains(r.stderr, "drop --embedder") {
			t.Errorf("an embedder beside a vectorizer: %+v", r)
		}
		b.agentmem(t, "", "--write", "delete-thread", "--resource", "ada").ok(t)
	})
}

// weaviateAddr is the --vector address of the test server with a fresh class
// prefix and the extra query parameters.
func weaviateAddr(t *testing.T, extra string) string {
	host, grpc := testenv.Weaviate(t)
	return fmt.Sprintf("http://%s?grpc=%s&prefix=Cli%d%s", host, grpc, rand.Int64N(1<<40), extra)
}
