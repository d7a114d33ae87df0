package core_test

import (
	"bytes"
	"cmp"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/testenv"
)

// skippedWarnings returns the message ids of the skipped-part warnings in a
// JSON log.
func skippedWarnings(t *testing.T, log *bytes.Buffer) []string {
	t.Helper()
	return skippedWarningsIn(t, log, map[string]string{})
}

// skippedWarningsIn is skippedWarnings for messages of several threads:
// threadOf maps a message id to its thread ("t" when missing).
func skippedWarningsIn(t *testing.T, log *bytes.Buffer, threadOf map[string]string) []string {
	t.Helper()
	var out []string
	dec := json.NewDecoder(bytes.NewReader(log.Bytes()))
	for dec.More() {
		var rec struct {
			Level     string   `json:"level"`
			Msg       string   `json:"msg"`
			MessageID string   `json:"messageId"`
			ThreadID  string   `json:"threadId"`
			Skipped   []string `json:"skipped"`
		}
		if err := dec.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		if rec.MessageID == "" {
			continue
		}
		thread := cmp.Or(threadOf[rec.MessageID], "t")
		if rec.Level != "WARN" || rec.ThreadID != thread || !slices.Equal(rec.Skipped, []string{"parts[0]: null"}) {
			t.Fatalf("warning %+v: want level WARN, thread %s and the null part", rec, thread)
		}
		out = append(out, rec.MessageID)
	}
	return out
}

// TestSkippedPartsWarnOncePerMessage: a stored message another client wrote
// with a null part is read (without it) on every turn, and the Memory's
// logger warns about it once, naming the message, its thread and the part,
// not again on the next turn or on Recall.
func TestSkippedPartsWarnOncePerMessage(t *testing.T) {
	for name, cfg := range map[string]core.Config{
		"lastMessages": {},
		"token budget": {MessageHistory: &core.MessageHistory{MaxTokens: 4000}},
	} {
		t.Run(name, func(t *testing.T) {
			for _, b := range rawBackends(t) {
				t.Run(b.name, func(t *testing.T) { skippedWarnOnce(t, cfg, b) })
			}
		})
	}
}

// rawBackend is a store plus a way to rewrite a stored row's content behind
// its back, as another client would.
type rawBackend struct {
	name       string
	open       func(t *testing.T) store.Store
	setContent func(t *testing.T, s store.Store, id, content string)
}

// rawBackends returns SQLite and, with AGENTMEM_PG_DSN, PostgreSQL.
func rawBackends(t *testing.T) []rawBackend {
	paths, schemas := map[store.Store]string{}, map[store.Store]string{}
	out := []rawBackend{{
		name: "sqlite",
		open: func(t *testing.T) store.Store {
			path := filepath.Join(t.TempDir(), "memory.db")
			s, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			paths[s] = path
			return s
		},
		setContent: func(t *testing.T, s store.Store, id, content string) {
			db, err := sql.Open("sqlite", paths[s])
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.ExecContext(ctx, `UPDATE messages SET content = ? WHERE id = ?`, content, id); err != nil {
				t.Fatal(err)
			}
		},
	}}
	dsn := testenv.OptionalPostgres(t)
	if dsn == "" {
		return out
	}
	return append(out, rawBackend{
		name: "postgres",
		open: func(t *testing.T) store.Store {
			schema := fmt.Sprintf("skipped_%d", rand.Int64())
			s, err := postgres.Open(ctx, dsn, postgres.WithSchema(schema))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_, _ = s.Pool().Exec(ctx, `DROP SCHEMA "`+schema+`" CASCADE`)
				_ = s.Close()
			})
			schemas[s] = schema
			return s
		},
		setContent: func(t *testing.T, s store.Store, id, content string) {
			if _, err := s.(*postgres.Store).Pool().Exec(ctx, `UPDATE "`+schemas[s]+`".agentmem_messages SET content = $1::jsonb WHERE id = $2`, content, id); err != nil {
				t.Fatal(err)
			}
		},
	})
}

func skippedWarnOnce(t *testing.T, cfg core.Config, b rawBackend) {
	s := b.open(t)
	seed(t, s, "t", "r",
		userAt("m1", "t", "r", "first", T(1)),
		userAt("m2", "t", "r", "second", T(2)),
		userAt("m3", "t", "r", "third", T(3)))
	for _, id := range []string{"m1", "m3"} {
		b.setContent(t, s, id, `{"format":2,"parts":[null,{"type":"text","text":"kept `+id+`"}]}`)
	}

	var log bytes.Buffer
	m, err := core.New(core.Options{Store: s, Tokenizer: testenv.ByteTokenizer{}, Logger: slog.New(slog.NewJSONHandler(&log, nil)),
		Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for turn := range 2 {
		tr, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
			Input:  []core.Message{userAt("", "t", "r", "next", T(10+turn))},
			Config: &core.Config{ReadOnly: core.Bool(true)}})
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, msg := range tr.Messages() {
			texts = append(texts, msg.Text())
		}
		if !slices.Contains(texts, "kept m1") || !slices.Contains(texts, "kept m3") {
			t.Fatalf("turn %d prompt %q: want the readable parts of m1 and m3", turn, texts)
		}
	}
	if got := skippedWarnings(t, &log); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"m1", "m3"}) {
		t.Fatalf("warnings after two turns for %q, want one each for m1 and m3\n%s", got, log.String())
	}
	if _, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll}); err != nil {
		t.Fatal(err)
	}
	if got := skippedWarnings(t, &log); len(got) != 2 {
		t.Fatalf("Recall warned again: %q", got)
	}

	// Another Memory over the same store reports for itself.
	log2 := &bytes.Buffer{}
	m2, err := core.New(core.Options{Store: s, Tokenizer: testenv.ByteTokenizer{}, Logger: slog.New(slog.NewJSONHandler(log2, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll}); err != nil {
		t.Fatal(err)
	}
	if got := skippedWarnings(t, log2); len(got) != 2 {
		t.Fatalf("second Memory warned for %q, want m1 and m3", got)
	}
}

// TestSkippedPartsWarnOncePerRecalledMessage: stored messages with a null
// part that reach the prompt only as semantic-recall hits (an old message
// of this thread beyond the history window, one of another thread) are
// used without the part and warned about once each, whether recalled by a
// turn, by Recall or by the recall tool.
func TestSkippedPartsWarnOncePerRecalledMessage(t *testing.T) {
	for _, b := range rawBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			s := b.open(t)
			seed(t, s, "t", "r",
				userAt("m1", "t", "r", "my parcel goes to Oslo", T(1)),
				userAt("m2", "t", "r", "lovely weather today", T(2)),
				userAt("m3", "t", "r", "shall we bake bread", T(3)),
				userAt("m4", "t", "r", "yes with rye flour", T(4)))
			seed(t, s, "o", "r", userAt("o1", "o", "r", "the parcel number is 4711", T(5)))
			var log bytes.Buffer
			vs := local.New()
			m, err := core.New(core.Options{Store: s, Tokenizer: testenv.ByteTokenizer{}, Logger: slog.New(slog.NewJSONHandler(&log, nil)),
				Vector: vs, Embedder: local.NewHashEmbedder(64),
				Config: core.Config{LastMessages: core.LastN(2), SemanticRecall: &core.SemanticRecall{TopK: 2, MessageRange: &core.MessageRange{},
					Retrieval: &core.Retrieval{}}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.ReindexResource(ctx, "r"); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"m1", "o1"} {
				b.setContent(t, s, id, `{"format":2,"parts":[null,{"type":"text","text":"kept `+id+` parcel"}]}`)
			}
			threads := map[string]string{"o1": "o"}
			want := []string{"m1", "o1"}

			for turn := range 2 {
				tr, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
					Input:  []core.Message{userAt("", "t", "r", "where is my parcel", T(10+turn))},
					Config: &core.Config{ReadOnly: core.Bool(true)}})
				if err != nil {
					t.Fatal(err)
				}
				var prompt strings.Builder
				for _, msg := range tr.Messages() {
					prompt.WriteString(msg.Text() + "\n")
				}
				if !strings.Contains(prompt.String(), "kept m1 parcel") || !strings.Contains(prompt.String(), "kept o1 parcel") ||
					strings.Contains(prompt.String(), "my parcel goes to Oslo") {
					t.Fatalf("turn %d prompt %q: want the readable parts of the recalled m1 and o1", turn, prompt.String())
				}
			}
			if got := skippedWarningsIn(t, &log, threads); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
				t.Fatalf("warnings after two turns for %q, want one each for m1 and o1\n%s", got, log.String())
			}

			res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: "where is my parcel"})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(ids(res.Messages), "m1") || !slices.Contains(ids(res.Messages), "o1") {
				t.Fatalf("Recall = %v, want the hits m1 and o1", ids(res.Messages))
			}
			tools, err := m.Tools(ctx, "t", "r", nil)
			if err != nil {
				t.Fatal(err)
			}
			out := callRecall(t, recallTool(t, tools), `{"query":"where is my parcel"}`)
			if !strings.Contains(out.Messages, "kept m1 parcel") || !strings.Contains(out.Messages, "kept o1 parcel") {
				t.Fatalf("recall tool result %+v: want the readable parts of m1 and o1", out)
			}
			if got := skippedWarningsIn(t, &log, threads); len(got) != 2 {
				t.Fatalf("Recall or the recall tool warned again: %q", got)
			}

			// Another Memory warns for itself, here from the recall tool alone.
			log2 := &bytes.Buffer{}
			m2, err := core.New(core.Options{Store: s, Tokenizer: testenv.ByteTokenizer{}, Logger: slog.New(slog.NewJSONHandler(log2, nil)),
				Vector: vs, Embedder: local.NewHashEmbedder(64),
				Config: core.Config{SemanticRecall: &core.SemanticRecall{Retrieval: &core.Retrieval{}}}})
			if err != nil {
				t.Fatal(err)
			}
			tools2, err := m2.Tools(ctx, "t", "r", nil)
			if err != nil {
				t.Fatal(err)
			}
			callRecall(t, recallTool(t, tools2), `{"query":"where is my parcel"}`)
			callRecall(t, recallTool(t, tools2), `{"query":"parcel"}`)
			if got := skippedWarningsIn(t, log2, threads); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
				t.Fatalf("the recall tool of another Memory warned for %q, want m1 and o1 once each", got)
			}
		})
	}
}
