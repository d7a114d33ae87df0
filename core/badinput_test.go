package core_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/internal/testenv"
)

// The bad-input table: every public entry point of Memory (and Turn.Commit,
// the working-memory tool) × every class of bad value, on memstore, SQLite
// and PostgreSQL. Each call must return a *core.Error with the expected code
// (the same on every store), never panic, and change nothing stored.

// badCase is one generated call and the code it must fail with.
type badCase struct {
	name string
	want core.Code
	call func(m *core.Memory) error
}

// badID is a class of bad id; empty and blank ids get the id's own "missing"
// code, the others CodeInvalidArgument.
type badID struct {
	class string
	v     string
	blank bool
}

var badIDs = []badID{
	{"empty", "", true}, {"blank", " \t", true}, {"NUL", "a\x00b", false},
	{"invalid UTF-8", "a\xffb", false}, {"too long", strings.Repeat("x", 1025), false},
}

// idCode is the code a bad id gets: missing for an empty or blank one.
func idCode(b badID, missing core.Code) core.Code {
	if b.blank {
		return missing
	}
	return core.CodeInvalidArgument
}

var badTexts = []struct {
	class string
	v     string
	want  core.Code
}{
	{"NUL", "a\x00b", core.CodeInvalidArgument},
	{"invalid UTF-8", "a\xffb", core.CodeInvalidArgument},
	{"over the cap", strings.Repeat("x", 40<<10), core.CodeTooLarge},
}

func deepMeta(depth int) map[string]any {
	var v any = "leaf"
	for i := 1; i < depth; i++ {
		v = map[string]any{"k": v}
	}
	return map[string]any{"k": v}
}

var badMetadata = []struct {
	class string
	v     map[string]any
}{
	{"invalid UTF-8 value", map[string]any{"k": "\xff"}},
	{"invalid UTF-8 key", map[string]any{"\xff": "v"}},
	{"NUL key", map[string]any{"a\x00": "v"}},
	{"NUL value", map[string]any{"k": "a\x00"}},
	{"NaN", map[string]any{"k": math.NaN()}},
	{"infinite", map[string]any{"k": math.Inf(1)}},
	{"nested 101 deep", deepMeta(101)},
	{"nested 10001 deep", deepMeta(10001)},
	{"not JSON", map[string]any{"k": func() {}}},
}

// badMessages are messages every message-taking entry point refuses.
var badMessages = []struct {
	class string
	mut   func(*core.Message)
	want  core.Code
}{
	{"unknown role", func(m *core.Message) { m.Role = "robot" }, core.CodeInvalidMessage},
	{"part without type", func(m *core.Message) { m.Content.Parts[0].Type = "" }, core.CodeInvalidMessage},
	{"NUL text", func(m *core.Message) { m.Content.Parts[0].Text = "a\x00" }, core.CodeInvalidMessage},
	{"invalid UTF-8 text", func(m *core.Message) { m.Content.Parts[0].Text = "\xff" }, core.CodeInvalidMessage},
	{"NUL type", func(m *core.Message) { m.Type = "\x00" }, core.CodeInvalidMessage},
	{"invalid UTF-8 type", func(m *core.Message) { m.Type = "\xff" }, core.CodeInvalidMessage},
	{"NUL metadata key", func(m *core.Message) { m.Content.Metadata = map[string]any{"\x00": 1} }, core.CodeInvalidMessage},
	{"deep metadata", func(m *core.Message) { m.Content.Metadata = deepMeta(10001) }, core.CodeInvalidMessage},
	{"invalid tool args", func(m *core.Message) {
		m.Content.Parts = []core.Part{{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
			State: message.ToolStateCall, ToolCallID: "c", ToolName: "f", Args: json.RawMessage(`{"a":`)}}}
	}, core.CodeInvalidMessage},
	{"NUL id", func(m *core.Message) { m.ID = "a\x00" }, core.CodeInvalidArgument},
	{"over the size cap", func(m *core.Message) { m.Content.Parts[0].Text = strings.Repeat("x", 70<<10) }, core.CodeMessageTooLarge},
}

func goodMsg() core.Message {
	m := core.NewMessage(core.RoleUser, "hello")
	m.ThreadID, m.ResourceID = "t", "r"
	return m
}

var noVector = &core.Config{SemanticRecall: &core.SemanticRecall{}}

// badCases generates the table.
func badCases(t *testing.T) []badCase {
	var cs []badCase
	add := func(name string, want core.Code, call func(m *core.Memory) error) {
		cs = append(cs, badCase{name, want, call})
	}
	// Every entry point with a nil and with a canceled context.
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		class string
		ctx   context.Context
		want  core.Code
	}{{"nil context", nil, core.CodeInvalidArgument}, {"canceled context", canceled, core.CodeCanceled}} {
		for name, call := range entryPoints(c.ctx) {
			add(name+"/"+c.class, c.want, call)
		}
	}
	// Ids.
	for _, b := range badIDs {
		thr, res := idCode(b, core.CodeMissingThreadID), idCode(b, core.CodeMissingResourceID)
		add("GetThread/threadId "+b.class, thr, func(m *core.Memory) error { _, err := m.GetThread(ctx, b.v, ""); return err })
		add("UpdateThread/threadId "+b.class, thr, func(m *core.Memory) error {
			_, err := m.UpdateThread(ctx, b.v, core.ThreadUpdate{})
			return err
		})
		add("DeleteThread/threadId "+b.class, thr, func(m *core.Memory) error { return m.DeleteThread(ctx, b.v) })
		add("CreateThread/resourceId "+b.class, res, func(m *core.Memory) error {
			_, err := m.CreateThread(ctx, core.ThreadInput{ID: "new", ResourceID: b.v})
			return err
		})
		add("Begin/threadId "+b.class, thr, func(m *core.Memory) error {
			_, err := m.Begin(ctx, core.TurnRequest{ThreadID: b.v, ResourceID: "r"})
			return err
		})
		add("Begin/resourceId "+b.class, res, func(m *core.Memory) error {
			_, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: b.v})
			return err
		})
		add("Recall/threadId "+b.class, thr, func(m *core.Memory) error {
			_, err := m.Recall(ctx, core.RecallQuery{ThreadID: b.v})
			return err
		})
		add("CloneThread/sourceThreadId "+b.class, thr, func(m *core.Memory) error {
			_, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: b.v, NewThreadID: "new"})
			return err
		})
		add("SaveMessages/threadId "+b.class, thr, func(m *core.Memory) error {
			msg := goodMsg()
			msg.ThreadID = b.v
			_, err := m.SaveMessages(ctx, []core.Message{msg}, nil)
			return err
		})
		add("Reindex/threadId "+b.class, thr, func(m *core.Memory) error { return m.Reindex(ctx, b.v) })
		add("ReindexResource/resourceId "+b.class, res, func(m *core.Memory) error { return m.ReindexResource(ctx, b.v) })
		if b.blank {
			continue // "" means "any" or "generate" in the calls below
		}
		add("GetThread/resourceId "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error { _, err := m.GetThread(ctx, "t", b.v); return err })
		add("ListThreads/resourceId "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, err := m.ListThreads(ctx, store.ThreadQuery{ResourceID: b.v})
			return err
		})
		add("CreateThread/id "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, err := m.CreateThread(ctx, core.ThreadInput{ID: b.v, ResourceID: "r"})
			return err
		})
		add("CloneThread/newThreadId "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "t", NewThreadID: b.v})
			return err
		})
		add("CloneThread/resourceId "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "t", NewThreadID: "new", ResourceID: b.v})
			return err
		})
		add("Recall/resourceId "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: b.v})
			return err
		})
		add("DeleteMessages/id "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error { return m.DeleteMessages(ctx, []string{"m1", b.v}) })
		add("UpdateMessages/id "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, err := m.UpdateMessages(ctx, []core.MessageUpdate{{ID: b.v}})
			return err
		})
		add("GetWorkingMemory/resourceId "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, err := m.GetWorkingMemory(ctx, "t", b.v, nil)
			return err
		})
		add("UpdateWorkingMemory/resourceId "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			return m.UpdateWorkingMemory(ctx, "t", b.v, "x", nil)
		})
		add("Unindexed/resourceId "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error { _, err := m.Unindexed(ctx, b.v); return err })
	}
	// Free text: titles and working memory.
	for _, b := range badTexts {
		add("CreateThread/title "+b.class, b.want, func(m *core.Memory) error {
			_, err := m.CreateThread(ctx, core.ThreadInput{ID: "new", ResourceID: "r", Title: b.v})
			return err
		})
		add("UpdateThread/title "+b.class, b.want, func(m *core.Memory) error {
			_, err := m.UpdateThread(ctx, "t", core.ThreadUpdate{Title: &b.v})
			return err
		})
		add("CloneThread/title "+b.class, b.want, func(m *core.Memory) error {
			_, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "t", NewThreadID: "new", Title: &b.v})
			return err
		})
		add("UpdateWorkingMemory/data "+b.class, b.want, func(m *core.Memory) error {
			return m.UpdateWorkingMemory(ctx, "t", "r", b.v, nil)
		})
	}
	// Metadata of threads and messages.
	for _, b := range badMetadata {
		add("CreateThread/metadata "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, err := m.CreateThread(ctx, core.ThreadInput{ID: "new", ResourceID: "r", Metadata: b.v})
			return err
		})
		add("UpdateThread/metadata "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, err := m.UpdateThread(ctx, "t", core.ThreadUpdate{Metadata: b.v})
			return err
		})
		add("CloneThread/metadata "+b.class, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "t", NewThreadID: "new", Metadata: b.v})
			return err
		})
		add("SaveMessages/metadata "+b.class, core.CodeInvalidMessage, func(m *core.Memory) error {
			msg := goodMsg()
			msg.Content.Metadata = b.v
			_, err := m.SaveMessages(ctx, []core.Message{msg}, nil)
			return err
		})
		add("UpdateMessages/metadata "+b.class, core.CodeInvalidMessage, func(m *core.Memory) error {
			_, err := m.UpdateMessages(ctx, []core.MessageUpdate{{ID: "m1", Content: &core.ContentUpdate{Metadata: b.v}}})
			return err
		})
	}
	// Messages, wherever they enter.
	for _, b := range badMessages {
		msg := func() core.Message { m := goodMsg(); b.mut(&m); return m }
		add("SaveMessages/"+b.class, b.want, func(m *core.Memory) error {
			_, err := m.SaveMessages(ctx, []core.Message{goodMsg(), msg()}, nil)
			return err
		})
		add("Begin/input "+b.class, b.want, func(m *core.Memory) error {
			_, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{msg()}})
			return err
		})
		add("Begin/context "+b.class, b.want, func(m *core.Memory) error {
			_, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Context: []core.Message{msg()}})
			return err
		})
		add("Commit/response "+b.class, b.want, func(m *core.Memory) error {
			turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r"})
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			return turn.Commit(ctx, []core.Message{msg()})
		})
	}
	for _, field := range []string{"threadId", "resourceId"} {
		other := func() core.Message {
			m := goodMsg()
			if field == "threadId" {
				m.ThreadID = "other"
			} else {
				m.ResourceID = "other"
			}
			return m
		}
		add("Begin/input of another "+field, core.CodeInvalidArgument, func(m *core.Memory) error {
			_, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{other()}})
			return err
		})
		add("Commit/response of another "+field, core.CodeInvalidArgument, func(m *core.Memory) error {
			turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r"})
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			return turn.Commit(ctx, []core.Message{other()})
		})
	}
	// Paging and per-call configuration.
	for _, q := range []store.ThreadQuery{{Page: -1}, {PerPage: -2}, {OrderBy: "title"}, {Metadata: map[string]any{"k": "\x00"}}} {
		add(fmt.Sprintf("ListThreads/%+v", q), core.CodeInvalidArgument, func(m *core.Memory) error { _, err := m.ListThreads(ctx, q); return err })
	}
	for _, q := range []core.RecallQuery{{Page: -1}, {PerPage: -2}, {Direction: "up"}} {
		q.ThreadID = "t"
		add(fmt.Sprintf("Recall/%+v", q), core.CodeInvalidArgument, func(m *core.Memory) error { _, err := m.Recall(ctx, q); return err })
	}
	for name, call := range configEntryPoints(noVector) {
		add(name+"/per-call recall without a vector store", core.CodeNoVectorStore, call)
	}
	for name, call := range configEntryPoints(&core.Config{LastMessages: core.LastN(-1)}) {
		add(name+"/per-call LastN(-1)", core.CodeInvalidConfig, call)
	}
	add("Commit/nil turn", core.CodeInvalidArgument, func(*core.Memory) error { return (*core.Turn)(nil).Commit(ctx, nil) })
	return cs
}

// entryPoints calls every public entry point that takes a context with ctx
// and otherwise valid arguments.
func entryPoints(c context.Context) map[string]func(m *core.Memory) error {
	return map[string]func(m *core.Memory) error{
		"CreateThread": func(m *core.Memory) error {
			_, err := m.CreateThread(c, core.ThreadInput{ID: "new", ResourceID: "r"})
			return err
		},
		"GetThread":   func(m *core.Memory) error { _, err := m.GetThread(c, "t", "r"); return err },
		"ListThreads": func(m *core.Memory) error { _, err := m.ListThreads(c, store.ThreadQuery{}); return err },
		"UpdateThread": func(m *core.Memory) error {
			title := "changed"
			_, err := m.UpdateThread(c, "t", core.ThreadUpdate{Title: &title})
			return err
		},
		"DeleteThread": func(m *core.Memory) error { return m.DeleteThread(c, "t") },
		"SaveMessages": func(m *core.Memory) error {
			_, err := m.SaveMessages(c, []core.Message{goodMsg()}, nil)
			return err
		},
		"UpdateMessages": func(m *core.Memory) error {
			role := core.RoleAssistant
			_, err := m.UpdateMessages(c, []core.MessageUpdate{{ID: "m1", Role: &role}})
			return err
		},
		"DeleteMessages": func(m *core.Memory) error { return m.DeleteMessages(c, []string{"m1"}) },
		"Recall":         func(m *core.Memory) error { _, err := m.Recall(c, core.RecallQuery{ThreadID: "t"}); return err },
		"CloneThread": func(m *core.Memory) error {
			_, _, err := m.CloneThread(c, core.CloneOptions{SourceThreadID: "t", NewThreadID: "new"})
			return err
		},
		"GetWorkingMemory":    func(m *core.Memory) error { _, err := m.GetWorkingMemory(c, "t", "r", nil); return err },
		"UpdateWorkingMemory": func(m *core.Memory) error { return m.UpdateWorkingMemory(c, "t", "r", "x", nil) },
		"Begin": func(m *core.Memory) error {
			_, err := m.Begin(c, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{goodMsg()}})
			return err
		},
		"Commit": func(m *core.Memory) error {
			turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{goodMsg()}})
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			return turn.Commit(c, []core.Message{core.NewMessage(core.RoleAssistant, "answer")})
		},
		"Tool.Call": func(m *core.Memory) error {
			turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r"})
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			_, err = turn.Tools()[0].Call(c, json.RawMessage(`{"memory":"x"}`))
			return err
		},
		"Tools":           func(m *core.Memory) error { _, err := m.Tools(c, "t", "r", nil); return err },
		"Observations":    func(m *core.Memory) error { _, err := m.Observations(c, "t", "r", nil); return err },
		"Reindex":         func(m *core.Memory) error { return m.Reindex(c, "t") },
		"ReindexResource": func(m *core.Memory) error { return m.ReindexResource(c, "r") },
		"Unindexed":       func(m *core.Memory) error { _, err := m.Unindexed(c, "r"); return err },
	}
}

// configEntryPoints calls every entry point that takes a per-call Config.
func configEntryPoints(cfg *core.Config) map[string]func(m *core.Memory) error {
	return map[string]func(m *core.Memory) error{
		"SaveMessages": func(m *core.Memory) error {
			_, err := m.SaveMessages(ctx, []core.Message{goodMsg()}, cfg)
			return err
		},
		"Begin": func(m *core.Memory) error {
			_, err := m.Begin(ctx, core.TurnRequest{ThreadID: "new", ResourceID: "r", Input: []core.Message{goodMsg()}, Config: cfg})
			return err
		},
		"Recall": func(m *core.Memory) error {
			_, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", Config: cfg})
			return err
		},
		"GetWorkingMemory":    func(m *core.Memory) error { _, err := m.GetWorkingMemory(ctx, "t", "r", cfg); return err },
		"UpdateWorkingMemory": func(m *core.Memory) error { return m.UpdateWorkingMemory(ctx, "t", "r", "x", cfg) },
		"Tools":               func(m *core.Memory) error { _, err := m.Tools(ctx, "t", "r", cfg); return err },
	}
}

// snapshot is everything stored, for "changes nothing".
func snapshot(t *testing.T, s store.Store) string {
	t.Helper()
	var b strings.Builder
	p, err := s.ListThreads(ctx, store.ThreadQuery{PerPage: store.PerPageAll, OrderBy: "createdAt"})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	for _, th := range p.Threads {
		fmt.Fprintf(&b, "thread %q %q %q %v %v %v\n", th.ID, th.ResourceID, th.Title, th.Metadata, th.UpdatedAt, th.Boundary)
		mp, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: th.ID, PerPage: store.PerPageAll})
		if err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		for _, m := range mp.Messages {
			raw, _ := json.Marshal(m)
			fmt.Fprintf(&b, "  %s\n", raw)
		}
		wm, _ := s.GetWorkingMemory(ctx, core.ScopeThread, th.ID)
		fmt.Fprintf(&b, "  wm %+v\n", wm)
	}
	wm, _ := s.GetWorkingMemory(ctx, core.ScopeResource, "r")
	fmt.Fprintf(&b, "resource wm %+v\n", wm)
	return b.String()
}

// badInputStores opens each backend; PostgreSQL needs AGENTMEM_PG_DSN.
func badInputStores(t *testing.T) map[string]func(t *testing.T) store.Store {
	return map[string]func(t *testing.T) store.Store{
		"memstore": func(*testing.T) store.Store { return memstore.New() },
		"sqlite": func(t *testing.T) store.Store {
			s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bad.db"))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"postgres": openTestPG,
	}
}

// openTestPG opens a PostgreSQL store in a fresh schema dropped at cleanup.
// Without a server it skips, or fails under testenv.RequireServers.
func openTestPG(t *testing.T) store.Store {
	dsn := testenv.Postgres(t)
	var rb [6]byte
	_, _ = rand.Read(rb[:])
	schema := "agentmem_core_" + hex.EncodeToString(rb[:])
	s, err := postgres.Open(ctx, dsn, postgres.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.Close()
		c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if pool, err := pgxpool.New(c, dsn); err == nil {
			_, _ = pool.Exec(c, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE`)
			pool.Close()
		}
	})
	return s
}

func TestBadInputTable(t *testing.T) {
	cases := badCases(t)
	outcomes := map[string]map[string]core.Code{}
	names := make([]string, 0, 3)
	for name := range badInputStores(t) {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		open := badInputStores(t)[name]
		t.Run(name, func(t *testing.T) {
			s := open(t)
			m, err := core.New(core.Options{Store: s, Tokenizer: testenv.ByteTokenizer{}, MaxMessageBytes: 64 << 10,
				Config: core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true, Scope: core.ScopeThread}}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r", Title: "kept"}); err != nil {
				t.Fatal(err)
			}
			seed := goodMsg()
			seed.ID, seed.CreatedAt = "m1", T(1)
			if _, err := m.SaveMessages(ctx, []core.Message{seed}, nil); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, s)
			got := map[string]core.Code{}
			for _, c := range cases {
				err := callNoPanic(t, c, m)
				var e *core.Error
				if !errors.As(err, &e) {
					t.Errorf("%s: error %v (%T) is not a *core.Error", c.name, err, err)
					continue
				}
				got[c.name] = e.Code
				if e.Code != c.want {
					t.Errorf("%s: code %s (%v), want %s", c.name, e.Code, err, c.want)
				}
				if after := snapshot(t, s); after != before {
					t.Fatalf("%s changed what is stored:\nbefore:\n%s\nafter:\n%s", c.name, before, after)
				}
			}
			outcomes[name] = got
			t.Logf("%d cases, all refused with their code, nothing changed", len(cases))
		})
	}
	for _, name := range names {
		if outcomes[name] != nil && outcomes["memstore"] != nil && !reflect.DeepEqual(outcomes[name], outcomes["memstore"]) {
			t.Errorf("%s and memstore answer differently", name)
		}
	}
}

func callNoPanic(t *testing.T, c badCase, m *core.Memory) (err error) {
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s panicked: %v", c.name, r)
		}
	}()
	return c.call(m)
}

// Every public entry point answers zero values and garbage with a typed error
// (or a harmless no-op), never a panic.
func TestZeroValuesNeverPanic(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true}})
	var typed *core.Error
	check := func(name string, err error) {
		t.Helper()
		if err != nil && !errors.As(err, &typed) {
			t.Fatalf("%s: untyped error %T: %v", name, err, err)
		}
	}
	_, err := m.Begin(ctx, core.TurnRequest{})
	if err == nil {
		t.Fatal("Begin with no ids succeeded")
	}
	check("Begin", err)
	_, err = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{{}}})
	if err == nil {
		t.Fatal("Begin with an empty message succeeded")
	}
	check("Begin(empty message)", err)
	_, err = m.SaveMessages(ctx, nil, nil)
	check("SaveMessages(nil)", err)
	_, err = m.SaveMessages(ctx, []core.Message{{}}, nil)
	check("SaveMessages(zero)", err)
	_, err = m.Recall(ctx, core.RecallQuery{})
	check("Recall", err)
	_, err = m.UpdateMessages(ctx, []core.MessageUpdate{{}})
	check("UpdateMessages", err)
	check("DeleteMessages", m.DeleteMessages(ctx, nil))
	_, err = m.CreateThread(ctx, core.ThreadInput{})
	check("CreateThread", err)
	_, err = m.GetThread(ctx, "", "")
	check("GetThread", err)
	_, err = m.UpdateThread(ctx, "", core.ThreadUpdate{})
	check("UpdateThread", err)
	check("DeleteThread", m.DeleteThread(ctx, ""))
	_, _, err = m.CloneThread(ctx, core.CloneOptions{})
	check("CloneThread", err)
	_, err = m.GetWorkingMemory(ctx, "", "", nil)
	check("GetWorkingMemory", err)
	check("UpdateWorkingMemory", m.UpdateWorkingMemory(ctx, "", "", "", nil))
	tools, err := m.Tools(ctx, "t", "r", nil)
	check("Tools", err)
	for _, tool := range tools {
		for _, args := range []string{"", "null", "[]", `{"memory":5}`, `{"memory":null}`, "\xff"} {
			_, err := tool.Call(ctx, []byte(args))
			check("tool "+args, err)
		}
	}
	check("Reindex", m.Reindex(ctx, ""))
	_, err = m.ListThreads(ctx, store.ThreadQuery{PerPage: -9})
	check("ListThreads", err)
}
