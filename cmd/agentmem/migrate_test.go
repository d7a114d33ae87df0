package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory/alloydb"
	lcsqlite3 "github.com/tmc/langchaingo/memory/sqlite3"
	"github.com/tmc/langchaingo/util/alloydbutil"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/internal/testenv"
	lcsqlite "github.com/agentmem/agentmem/langchaingo/sqlite3"
)

// langchaingoConversation is what the upstream histories are given: a
// system prompt (never stored by agentmem) and two turns.
var langchaingoConversation = []llms.ChatMessage{
	llms.SystemChatMessage{Content: "You are a helpful assistant."},
	llms.HumanChatMessage{Content: "My cat is called Miso."},
	llms.AIChatMessage{Content: "Nice to meet Miso!"},
	llms.HumanChatMessage{Content: "What is my cat called?"},
	llms.AIChatMessage{Content: "Your cat is called Miso."},
}

// TestMigrateLangchaingoSQLite migrates a file written by langchaingo
// v0.1.14's own memory/sqlite3 history (two sessions).
func TestMigrateLangchaingoSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "langchaingo.db")
	db, err := sql.Open("sqlite3", path) // upstream's driver, github.com/mattn/go-sqlite3
	if err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{"alice-chat", "bob-chat"} {
		h := lcsqlite3.NewSqliteChatMessageHistory(lcsqlite3.WithDB(db), lcsqlite3.WithSession(session), lcsqlite3.WithContext(bg))
		for _, m := range langchaingoConversation { // upstream's sqlite3 history has no AddMessages
			if err := h.AddMessage(bg, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		args := []string{"--write", "import", "--from", "langchaingo-sqlite3", path}
		r := b.agentmem(t, "", args...).ok(t)
		golden(t, "migrate-langchaingo-sqlite3.txt", strings.ReplaceAll(r.stdout, path, "FILE"))
		checkLangchaingoThread(t, b, "alice-chat", "default")
		once := b.agentmem(t, "", "export").ok(t).stdout
		b.agentmem(t, "", args...).ok(t)
		if twice := b.agentmem(t, "", "export").ok(t).stdout; twice != once {
			t.Fatal("second migration changed memory")
		}
	})
}

// checkLangchaingoThread checks a migrated session: four messages (the
// system prompt skipped) in order, with roles and stored token counts.
func checkLangchaingoThread(t *testing.T, b backend, thread, resource string) {
	t.Helper()
	th, err := b.store.GetThread(bg, thread)
	if err != nil || th.ResourceID != resource {
		t.Fatalf("thread %s: %+v, %v", thread, th, err)
	}
	page, err := b.store.ListMessages(bg, store.MessageQuery{ThreadID: thread, PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range page.Messages {
		if m.Tokens == 0 || m.TokenEncoding == "" {
			t.Errorf("message %s has no stored token count", m.ID)
		}
		got = append(got, fmt.Sprintf("%s: %s", m.Role, m.Text()))
	}
	want := "user: My cat is called Miso.|assistant: Nice to meet Miso!|user: What is my cat called?|assistant: Your cat is called Miso."
	if strings.Join(got, "|") != want {
		t.Fatalf("messages of %s:\n%s\nwant\n%s", thread, strings.Join(got, "|"), want)
	}
}

// TestMigrateLangchaingoPostgres migrates langchaingo v0.1.14's PostgreSQL
// chat history (memory/alloydb on a plain server through WithPool).
func TestMigrateLangchaingoPostgres(t *testing.T) {
	dsn := testenv.Postgres(t)
	pool, err := pgxpool.New(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	schema := fmt.Sprintf("lc_%d", rand.Int64())
	if _, err := pool.Exec(bg, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	})
	engine, err := alloydbutil.NewPostgresEngine(bg, alloydbutil.WithPool(pool))
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.InitChatHistoryTable(bg, "chat_history", alloydbutil.WithSchemaName(schema)); err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{"alice-chat", "bob-chat"} {
		h, err := alloydb.NewChatMessageHistory(bg, engine, "chat_history", session, alloydb.WithSchemaName(schema))
		if err != nil {
			t.Fatal(err)
		}
		if err := h.AddMessages(bg, langchaingoConversation); err != nil {
			t.Fatal(err)
		}
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		args := []string{"--write", "import", "--from", "langchaingo-postgres", dsn, "--schema", schema, "--table", "chat_history", "--resource", "team"}
		r := b.agentmem(t, "", args...).ok(t)
		if !strings.Contains(r.stdout, "imported 2 threads, 8 messages") || !strings.Contains(r.stdout, "skipped 2: system messages") {
			t.Fatalf("summary:\n%s", r.stdout)
		}
		checkLangchaingoThread(t, b, "bob-chat", "team")
		once := b.agentmem(t, "", "export").ok(t).stdout
		b.agentmem(t, "", args...).ok(t)
		if twice := b.agentmem(t, "", "export").ok(t).stdout; twice != once {
			t.Fatal("second migration changed memory")
		}
		if r := b.agentmem(t, "", "--write", "import", "--from", "langchaingo-postgres", dsn, "--schema", schema); r.code != 2 || !strings.Contains(r.stderr, "--table") {
			t.Errorf("without --table: %+v", r)
		}
	})
}

// TestMigrateMastra migrates testdata/mastra/mastra.db, written by Mastra's
// own @mastra/memory over @mastra/libsql (see testdata/mastra/write-fixture.mjs).
func TestMigrateMastra(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		file := mastraFixture(t)
		r := b.agentmem(t, "", "--write", "import", "--from", "mastra", file).ok(t)
		golden(t, "migrate-mastra.txt", strings.ReplaceAll(r.stdout, file, "FILE"))
		golden(t, "migrate-mastra-show.txt", b.agentmem(t, "", "show", "trip").ok(t).stdout)
		golden(t, "migrate-mastra-wm.txt", b.agentmem(t, "", "wm", "get", "--thread", "notes").ok(t).stdout)
		msgs, err := b.store.GetMessages(bg, []string{"trip-2"})
		if err != nil || len(msgs) != 1 {
			t.Fatal(msgs, err)
		}
		var types []string
		for _, p := range msgs[0].Content.Parts {
			types = append(types, p.Type)
		}
		if got := strings.Join(types, ","); got != "step-start,reasoning,tool-invocation,text,source" {
			t.Errorf("parts of trip-2: %s", got)
		}
		once := b.agentmem(t, "", "export").ok(t).stdout
		b.agentmem(t, "", "--write", "import", "--from", "mastra", file).ok(t)
		if twice := b.agentmem(t, "", "export").ok(t).stdout; twice != once {
			t.Fatal("second migration changed memory")
		}
	})
}

// TestMigrateMastraPostgres migrates the same memory written by Mastra's
// @mastra/pg (testdata/mastra/mastra-pg.sql, see regen-pg.sh): everything but
// the thread timestamps (the time each fixture was written) must equal the
// LibSQL migration.
func TestMigrateMastraPostgres(t *testing.T) {
	dsn := testenv.Postgres(t)
	pool, err := pgxpool.New(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	schema := fmt.Sprintf("mastra_%d", rand.Int64())
	dump, err := os.ReadFile(filepath.Join("testdata", "mastra", "mastra-pg.sql"))
	if err != nil {
		t.Fatal(err)
	}
	quoted := pgx.Identifier{schema}.Sanitize()
	if _, err := pool.Exec(bg, "CREATE SCHEMA "+quoted+";\n"+strings.ReplaceAll(string(dump), "__SCHEMA__", quoted)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pool.Exec(context.Background(), "DROP SCHEMA "+quoted+" CASCADE") })

	lite := sqliteBackend(t)
	lite.agentmem(t, "", "--write", "import", "--from", "mastra", mastraFixture(t)).ok(t)
	want := withoutThreadLines(lite.agentmem(t, "", "export").ok(t).stdout)
	forEachBackend(t, func(t *testing.T, b backend) {
		r := b.agentmem(t, "", "--write", "import", "--from", "mastra", dsn, "--schema", schema).ok(t)
		if !strings.Contains(r.stdout, "imported 3 threads, 7 messages") || !strings.Contains(r.stdout, "skipped nothing") {
			t.Fatalf("summary:\n%s", r.stdout)
		}
		if got := withoutThreadLines(b.agentmem(t, "", "export").ok(t).stdout); got != want {
			t.Fatalf("PostgreSQL migration differs from the LibSQL one:\n%s\n---\n%s", got, want)
		}
	})
}

// mastraFixture copies testdata/mastra/mastra.db to a temporary directory:
// reading a WAL-mode database creates files next to it.
func mastraFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mastra", "mastra.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mastra.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// withoutThreadLines drops the thread lines of an export.
func withoutThreadLines(export string) string {
	var keep []string
	for _, l := range strings.SplitAfter(export, "\n") {
		if !strings.HasPrefix(l, `{"kind":"thread"`) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// TestMigrateLangchaingoSQLiteThenAdapter migrates upstream's table into
// agentmem's tables of the same file, then opens the session with the
// langchaingo/sqlite3 mirror: it sees the migrated conversation and does not
// import the session a second time.
func TestMigrateLangchaingoSQLiteThenAdapter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	h := lcsqlite3.NewSqliteChatMessageHistory(lcsqlite3.WithDB(db), lcsqlite3.WithSession("alice-chat"), lcsqlite3.WithContext(bg))
	for _, m := range langchaingoConversation {
		if err := h.AddMessage(bg, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	runCmd(t, "", "--db", path, "--write", "import", "--from", "langchaingo-sqlite3", path).ok(t)
	mirror := lcsqlite.NewSqliteChatMessageHistory(lcsqlite.WithDBAddress(path), lcsqlite.WithSession("alice-chat"))
	msgs, err := mirror.Messages(bg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.GetType())+": "+m.GetContent())
	}
	want := "human: My cat is called Miso.|ai: Nice to meet Miso!|human: What is my cat called?|ai: Your cat is called Miso."
	if strings.Join(got, "|") != want {
		t.Fatalf("the mirror sees\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	r := runCmd(t, "", "--db", path, "--json", "stats").ok(t)
	if doc := jsonDoc(t, r); doc["messages"] != 4.0 {
		t.Fatalf("after the mirror's first use: %v messages, want 4 (no second import)", doc["messages"])
	}
}
