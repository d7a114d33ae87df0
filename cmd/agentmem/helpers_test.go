package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

var bg = context.Background()

// TestMain keeps resume checkpoints in a temporary directory.
func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "agentmem-state-*")
	if err != nil {
		panic(err)
	}
	os.Setenv("AGENTMEM_STATE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// backend is a database the command runs against: its --db and --pg-schema
// flags, and a Store on it for seeding and checking.
type backend struct {
	name  string
	flags []string
	store *store.Checked
}

// sqliteBackend is a fresh SQLite file.
func sqliteBackend(t *testing.T) backend {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.db")
	s, err := sqlite.Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return backend{name: "sqlite", flags: []string{"--db", path}, store: store.Check(s)}
}

// postgresBackend is a fresh schema on the test server. Without
// AGENTMEM_PG_DSN it is skipped under plain go test and fails under
// scripts/test (AGENTMEM_REQUIRE_SERVERS=1).
func postgresBackend(t *testing.T) backend {
	t.Helper()
	dsn := testenv.Postgres(t)
	schema := fmt.Sprintf("cli_%d", rand.Int64())
	s, err := postgres.Open(bg, dsn, postgres.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = s.Pool().Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
		s.Close()
	})
	return backend{name: "postgres", flags: []string{"--db", dsn, "--pg-schema", schema}, store: store.Check(s)}
}

// forEachBackend runs fn as a subtest per backend.
func forEachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, sqliteBackend(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, postgresBackend(t)) })
}

// result is the outcome of one command line.
type result struct {
	stdout, stderr string
	code           int
}

// agentmem runs the command in-process with the backend's flags first.
func (b backend) agentmem(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runCmd(t, stdin, append(append([]string{}, b.flags...), args...)...)
}

func runCmd(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(bg, args, strings.NewReader(stdin), &out, &errb)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// ok fails the test unless the command succeeded.
func (r result) ok(t *testing.T) result {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	return r
}

// golden compares got with testdata/golden/name (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// jsonDoc decodes a command's JSON output.
func jsonDoc(t *testing.T, r result) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("output is not a JSON object: %v\n%s", err, r.stdout)
	}
	return doc
}

// shape checks that doc has every key of want with a value of the given JSON
// kind: "string", "number", "bool", "array", "object" or "null|object".
func shape(t *testing.T, where string, doc map[string]any, want map[string]string) {
	t.Helper()
	for k, kind := range want {
		v, ok := doc[k]
		if !ok {
			t.Errorf("%s: missing key %q", where, k)
			continue
		}
		if got := jsonKind(v); !strings.Contains(kind, got) {
			t.Errorf("%s: %q is %s, want %s", where, k, got, kind)
		}
	}
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// at is a fixed test time: 2025-03-01 10:00 UTC plus s seconds.
func at(s int) time.Time {
	return time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(s) * time.Second)
}

// seed writes a small memory through the Store and Memory APIs: two
// resources, three threads, text, reasoning, tool calls and results, a
// persisted boundary, working memory in both scopes and observations with an
// archived generation.
func seed(t *testing.T, s *store.Checked) {
	t.Helper()
	mem, err := core.New(core.Options{Store: s.Unwrap()})
	if err != nil {
		t.Fatal(err)
	}
	threads := []core.Thread{
		{ID: "trip", ResourceID: "ada", Title: "Trip to Lisbon", Metadata: map[string]any{"channel": "web"}, CreatedAt: at(0)},
		{ID: "food", ResourceID: "ada", Title: "Dinner ideas", CreatedAt: at(100)},
		{ID: "notes", ResourceID: "bob", Title: "", CreatedAt: at(200)},
	}
	for _, th := range threads {
		if _, err := s.SaveThread(bg, th); err != nil {
			t.Fatal(err)
		}
	}
	msg := func(id, thread, res string, role core.Role, sec int, parts ...core.Part) core.Message {
		return core.Message{ID: id, ThreadID: thread, ResourceID: res, Role: role, CreatedAt: at(sec), Content: core.Content{Format: 2, Parts: parts}}
	}
	tool := core.Part{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: "call-1", ToolName: "searchHotels",
		Args: json.RawMessage(`{"to":"2025-05-05","city":"Lisbon"}`), Result: json.RawMessage(`{"hotels":[{"price":120,"name":"Casa Azul"}]}`)}}
	msgs := []core.Message{
		msg("trip-1", "trip", "ada", core.RoleUser, 1, core.TextPart("Find me a hotel in Lisbon for May 3-5.")),
		msg("trip-2", "trip", "ada", core.RoleAssistant, 2, core.Part{Type: core.PartReasoning, Reasoning: "Search hotels first."}, tool, core.TextPart("Casa Azul has a room for 120 EUR a night.")),
		msg("trip-3", "trip", "ada", core.RoleUser, 3, core.TextPart("Book it, and remind me that my sister Zanzibarina lives in Reykjavik.")),
		msg("trip-4", "trip", "ada", core.RoleAssistant, 3, core.TextPart("Booked. I will remember Zanzibarina in Reykjavik.")),
		msg("trip-5", "trip", "ada", core.RoleUser, 4, core.TextPart("What is the weather in Lisbon in May?")),
		msg("food-1", "food", "ada", core.RoleUser, 101, core.TextPart("Something vegetarian tonight?")),
		msg("food-2", "food", "ada", core.RoleAssistant, 102, core.TextPart("Try a mushroom risotto.")),
		msg("notes-1", "notes", "bob", core.RoleUser, 201, core.TextPart("I prefer trains over planes.")),
	}
	if _, err := mem.SaveMessages(bg, msgs, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AdvanceBoundary(bg, "trip", "ada", store.Boundary{CreatedAt: at(1), MessageIDs: []string{"trip-1"}, MaxTokens: 200, AtMaxRemoveTokens: 50}); err != nil {
		t.Fatal(err)
	}
	mustPutWM(t, s, core.ScopeResource, "ada", "# About the user\n- **Name**: Ada\n- **Location**: Porto\n")
	mustPutWM(t, s, core.ScopeThread, "notes", "- prefers trains\n")
	key := store.ObservationKey(core.ScopeThread, "trip", "ada")
	rec, err := s.PutObservations(bg, store.ObservationRecord{Key: key, Observations: "* (10:00) Ada wants a hotel in Lisbon", ObservationTokens: 9, LastObservedAt: at(2), ObservedMessageIDs: []string{"trip-1", "trip-2"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutObservations(bg, store.ObservationRecord{Key: key, Observations: "* Ada booked Casa Azul in Lisbon", ObservationTokens: 8, Generation: 1, LastObservedAt: at(3)}, rec.Version); err != nil {
		t.Fatal(err)
	}
	for _, th := range threads { // saving messages bumped UpdatedAt; fix it for golden output
		th.UpdatedAt = th.CreatedAt.Add(time.Hour)
		if _, err := s.SaveThread(bg, th); err != nil {
			t.Fatal(err)
		}
	}
}

func mustPutWM(t *testing.T, s *store.Checked, scope core.Scope, id, data string) {
	t.Helper()
	if _, err := s.PutWorkingMemory(bg, scope, id, data, 0); err != nil {
		t.Fatal(err)
	}
}
