package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// Invalid history config is a typed error naming the option.
func TestConfigValidation(t *testing.T) {
	bad := []struct {
		cfg  core.Config
		want string
	}{
		{core.Config{LastMessages: core.LastN(-1)}, "lastMessages must be a finite non-negative integer"},
		{core.Config{MessageHistory: &core.MessageHistory{MaxTokens: -1}}, "messageHistory.maxTokens"},
		{core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 5, AtMaxRemoveTokens: core.Int(6)}}, "messageHistory.atMaxRemoveTokens"},
		{core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 5, AtMaxRemoveTokens: core.Int(-1)}}, "messageHistory.atMaxRemoveTokens"},
		{core.Config{SemanticRecall: &core.SemanticRecall{Scope: "galaxy"}}, "semanticRecall.scope"},
	}
	for _, b := range bad {
		_, err := core.New(core.Options{Store: memstore.New(), Config: b.cfg, Vector: nil})
		if !errors.Is(err, core.ErrInvalidConfig) && !errors.Is(err, core.ErrNoVectorStore) {
			t.Fatalf("%+v: err %v", b.cfg, err)
		}
		if errors.Is(err, core.ErrInvalidConfig) && !strings.Contains(err.Error(), b.want) {
			t.Fatalf("%+v: %v does not mention %q", b.cfg, err, b.want)
		}
	}
	_, err := core.New(core.Options{Config: core.Config{SemanticRecall: &core.SemanticRecall{}}})
	if !errors.Is(err, core.ErrNoVectorStore) {
		t.Fatalf("semantic recall without vector store: %v", err)
	}
}

func TestNoStorage(t *testing.T) {
	m, err := core.New(core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Recall(ctx, core.RecallQuery{ThreadID: "t"})
	if !errors.Is(err, core.ErrNoStorage) || !strings.Contains(err.Error(), "Memory requires a storage provider to function") {
		t.Fatalf("err = %v", err)
	}
	_, err = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r"})
	if !errors.Is(err, core.ErrNoStorage) {
		t.Fatalf("Begin err = %v", err)
	}
}

// The four lastMessages states and their validation.
func TestLastMessagesStates(t *testing.T) {
	s := memstore.New()
	var msgs []core.Message
	for i := 0; i < 15; i++ {
		msgs = append(msgs, userAt(string(rune('a'+i)), "t", "r", "m", T(i)))
	}
	seed(t, s, "t", "r", msgs...)
	cases := []struct {
		name string
		cfg  core.Config
		want int
	}{
		{"default 10", core.Config{}, 10},
		{"LastN(4)", core.Config{LastMessages: core.LastN(4)}, 4},
		{"all", core.Config{LastMessages: core.AllMessages}, 15},
		{"none", core.Config{LastMessages: core.NoHistory}, 0},
		{"LastN(0)", core.Config{LastMessages: core.LastN(0)}, 0},
		{"tokens only: no count cap", core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 100000}}, 15},
		{"tokens + explicit 10", core.Config{LastMessages: core.LastN(10), MessageHistory: &core.MessageHistory{MaxTokens: 100000}}, 10},
		{"maxTokens 0 disables", core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 0}}, 0},
	}
	for _, c := range cases {
		m := newMem(t, s, c.cfg)
		res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", ResourceID: "r"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Messages) != c.want {
			t.Fatalf("%s: %d messages, want %d", c.name, len(res.Messages), c.want)
		}
		if c.want > 0 && res.Messages[len(res.Messages)-1].ID != "o" {
			t.Fatalf("%s: newest message missing", c.name)
		}
	}
	// Instance-wide explicit 10 stays 10 when a call adds a token budget.
	m := newMem(t, s, core.Config{LastMessages: core.LastN(10)})
	res, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "t", Config: &core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 100000}}})
	if len(res.Messages) != 10 {
		t.Fatalf("explicit instance lastMessages lost: %d", len(res.Messages))
	}
	// A per-call token budget over the default drops the 10-message cap.
	m = newMem(t, s, core.Config{})
	res, _ = m.Recall(ctx, core.RecallQuery{ThreadID: "t", Config: &core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 100000}}})
	if len(res.Messages) != 15 {
		t.Fatalf("default window not dropped: %d", len(res.Messages))
	}
}

// RetainFullInput resolves per call over the instance setting.
func TestRetainFullInputResolution(t *testing.T) {
	for _, c := range []struct {
		instance, call *bool
		want           int // messages stored from an echo of [q, a, q2] on a non-empty thread
	}{
		{nil, nil, 1}, {core.Bool(true), nil, 3}, {nil, core.Bool(true), 3}, {core.Bool(true), core.Bool(false), 1},
	} {
		s := memstore.New()
		seed(t, s, "t", "r", userAt("seed", "t", "r", "earlier", T(0)))
		m := newMem(t, s, core.Config{RetainFullInput: c.instance})
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Config: &core.Config{RetainFullInput: c.call},
			Input: []core.Message{core.NewMessage(core.RoleUser, "q"), core.NewMessage(core.RoleAssistant, "a"), core.NewMessage(core.RoleUser, "q2")}})
		if err != nil {
			t.Fatal(err)
		}
		if err := turn.Commit(ctx, nil); err != nil {
			t.Fatal(err)
		}
		res, _ := m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
		if got := len(res.Messages) - 1; got != c.want {
			t.Fatalf("instance %v call %v: stored %d, want %d", c.instance, c.call, got, c.want)
		}
	}
}

// A per-call SemanticRecall changes only the fields it sets.
func TestSemanticRecallMergesFields(t *testing.T) {
	base := core.Config{SemanticRecall: &core.SemanticRecall{Scope: core.ScopeThread, TopK: 7}}
	got := base.Merge(&core.Config{SemanticRecall: &core.SemanticRecall{TopK: 2}})
	if got.SemanticRecall.Scope != core.ScopeThread || got.SemanticRecall.TopK != 2 {
		t.Fatalf("merged = %+v", got.SemanticRecall)
	}
	off := base.Merge(&core.Config{SemanticRecall: &core.SemanticRecall{Disabled: true}})
	if !off.SemanticRecall.Disabled || base.SemanticRecall.Disabled {
		t.Fatalf("disable per call = %+v, base changed = %v", off.SemanticRecall, base.SemanticRecall.Disabled)
	}
}
