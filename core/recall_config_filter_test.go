package core_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/testenv"
)

// filterSecrets are the texts that the configured filter
// {"visibility":"public"} (or another resource) keeps out of every recall.
var filterSecrets = []string{"4711", "0815", "9999"}

// filteredMemory stores, for resource "r", public messages in threads "a"
// (English) and "b" (German, a day earlier), and in thread "v" a private
// message and one without visibility; resource "x" has a public one. All
// are about a bank PIN. Recall is filtered to {"visibility":"public"} and
// offers the recall tool.
func filteredMemory(t *testing.T, s store.Store, vs vector.Store) *core.Memory {
	t.Helper()
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 100000},
		SemanticRecall: &core.SemanticRecall{TopK: 5, MessageRange: &core.MessageRange{}, Retrieval: &core.Retrieval{},
			Filter: mustParse(t, map[string]any{"visibility": "public"})}}
	m, err := core.New(core.Options{Store: s, Vector: vs, Embedder: local.NewHashEmbedder(64), Config: cfg, Tokenizer: testenv.ByteTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []struct{ id, res string }{{"a", "r"}, {"b", "r"}, {"v", "r"}, {"xo", "x"}} {
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: th.id, ResourceID: th.res}); err != nil {
			t.Fatal(err)
		}
	}
	public := func(lang string) map[string]any { return map[string]any{"visibility": "public", "lang": lang} }
	for _, msg := range []core.Message{
		withMeta(userAt("pub-en", "a", "r", "my bank PIN letter from Sparkasse arrived", T(0)), public("en")),
		withMeta(userAt("pub-de", "b", "r", "my bank PIN Brief kam an, bank PIN", T(-86400)), public("de")),
		withMeta(userAt("priv", "v", "r", "my bank PIN is 4711", T(10)), map[string]any{"visibility": "private"}),
		userAt("none", "v", "r", "my old bank PIN was 0815", T(20)),
		withMeta(userAt("other", "xo", "x", "my bank PIN is 9999", T(30)), public("en")),
	} {
		if _, err := m.SaveMessages(ctx, []core.Message{msg}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// noSecret fails the test when text holds a message the filter excludes.
func noSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range filterSecrets {
		if strings.Contains(text, s) {
			t.Errorf("%s returned a message its filter excludes (%s): %q", what, s, text)
		}
	}
}

// The configured SemanticRecall.Filter holds on every path that searches
// messages: the recall tool in each of its modes (also under a per-call
// config that sets no filter of its own), Recall paged and token-budgeted,
// and a turn's semantic recall. The private message never comes back.
func TestConfiguredFilterHoldsOnEveryRecallPath(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := filteredMemory(t, s, local.New())
		for _, cfg := range []*core.Config{nil, {SemanticRecall: &core.SemanticRecall{TopK: 10}}} {
			tools, err := m.Tools(ctx, "a", "r", cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkToolFiltered(t, recallTool(t, tools))
		}
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "a", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "what is my bank PIN?")}})
		if err != nil || turn.RecallErr() != nil {
			t.Fatal(err, turn.RecallErr())
		}
		prompt := joinTexts(turn.Messages())
		if noSecret(t, "Begin", prompt); !strings.Contains(prompt, "Brief kam an") {
			t.Errorf("Begin recalled no public message of thread b: %q", prompt)
		}
		checkToolFiltered(t, recallTool(t, turn.Tools()))
		for name, q := range map[string]core.RecallQuery{
			"budgeted": {ThreadID: "a", ResourceID: "r", VectorSearch: "my bank PIN"},
			"paged":    {ThreadID: "a", ResourceID: "r", VectorSearch: "my bank PIN", PerPage: 10},
		} {
			res, err := m.Recall(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			same(t, name+" recall", ids(res.Messages), []string{"pub-de", "pub-en"})
		}
	})
}

// checkToolFiltered calls the recall tool in each of its modes and checks
// that it finds public messages and never a filtered one.
func checkToolFiltered(t *testing.T, tl core.Tool) {
	t.Helper()
	for _, c := range []struct {
		args string
		want string // a public message the call must find; "" when none matches
	}{
		{`{"query":"my bank PIN"}`, "pub-en"},
		{`{"query":"my bank PIN","mode":"semantic"}`, "pub-en"},
		{`{"query":"my bank PIN","mode":"hybrid"}`, "pub-en"},
		{`{"query":"my bank PIN","threadId":"b"}`, "pub-de"},
		{`{"query":"my bank PIN","threadId":"v"}`, ""},
		{`{"query":"my bank PIN","from":"2026-10-30"}`, "pub-en"},
		{`{"query":"my bank PIN","to":"2026-10-30"}`, "pub-de"},
		{`{"query":"my bank PIN","from":"2026-10-29","to":"2026-11-30","mode":"semantic"}`, "pub-en"},
	} {
		out := callRecall(t, tl, c.args)
		noSecret(t, "recall tool "+c.args, out.Messages)
		if strings.Contains(out.Messages, "[id priv]") || strings.Contains(out.Messages, "[id none]") {
			t.Errorf("%s: filtered message by id: %q", c.args, out.Messages)
		}
		if out.Error != "" || (c.want == "") != (out.Found == 0) || !strings.Contains(out.Messages, "[id "+c.want+"]") && c.want != "" {
			t.Errorf("%s: %+v, want %q found", c.args, out, c.want)
		}
	}
}

// A caller's own conditions narrow semantic matches further: Recall's
// Metadata and Range are AND-ed with the configured filter, and a per-call
// filter replaces the configured one (the config merge rule). History is
// off: only the semantic matches are checked.
func TestRecallFilterCombinesCallerAndConfig(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := filteredMemory(t, s, local.New())
		start := T(-10)
		for _, c := range []struct {
			name string
			q    core.RecallQuery
			sr   *core.SemanticRecall
			want []string
		}{
			{"caller metadata", core.RecallQuery{Metadata: mustParse(t, map[string]any{"lang": "en"})}, nil, []string{"pub-en"}},
			{"caller range", core.RecallQuery{Range: store.DateRange{Start: &start}}, nil, []string{"pub-en"}},
			{"per-call filter", core.RecallQuery{}, &core.SemanticRecall{Filter: mustParse(t, map[string]any{"lang": "de"})}, []string{"pub-de"}},
		} {
			q := c.q
			q.ThreadID, q.ResourceID, q.VectorSearch = "v", "r", "my bank PIN"
			q.Config = &core.Config{LastMessages: core.NoHistory, SemanticRecall: c.sr}
			res, err := m.Recall(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			same(t, c.name, ids(res.Messages), c.want)
		}
	})
}

// metadataLosingVectors keeps records without their metadata, as indexes
// written before the metadata was stored with each vector hold them.
type metadataLosingVectors struct{ *local.Store }

func (v metadataLosingVectors) Upsert(ctx context.Context, index string, recs []vector.Record) error {
	for i := range recs {
		recs[i].Meta.Metadata = nil
	}
	return v.Store.Upsert(ctx, index, recs)
}

// A vector whose copy of the metadata lags its message cannot bring back a
// message the filter excludes: hits are checked on the stored message.
func TestRecallFilterChecksTheStoredMessage(t *testing.T) {
	m := filteredMemory(t, memstore.New(), metadataLosingVectors{local.New()})
	over := &core.Config{LastMessages: core.NoHistory, SemanticRecall: &core.SemanticRecall{
		Filter: mustParse(t, map[string]any{"visibility": map[string]any{"$ne": "private"}})}}
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "a", ResourceID: "r", VectorSearch: "my bank PIN", Config: over})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "not private", ids(res.Messages), []string{"pub-de", "pub-en", "none"})
}

// The context read around a semantic match (MessageRange) is recall too:
// a filtered message next to a match in its thread stays out, in a turn
// and in Recall, paged and token-budgeted, while the match comes back.
func TestRecallFilterHoldsForContext(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := filteredMemory(t, s, local.New())
		near := withMeta(userAt("pub-v", "v", "r", "my bank PIN reminder came by post", T(15)), map[string]any{"visibility": "public"})
		if _, err := m.SaveMessages(ctx, []core.Message{near}, nil); err != nil {
			t.Fatal(err)
		}
		over := &core.Config{SemanticRecall: &core.SemanticRecall{MessageRange: &core.MessageRange{Before: 2, After: 2}}}
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "a", ResourceID: "r", Config: over,
			Input: []core.Message{core.NewMessage(core.RoleUser, "the bank PIN reminder by post?")}})
		if err != nil || turn.RecallErr() != nil {
			t.Fatal(err, turn.RecallErr())
		}
		prompt := joinTexts(turn.Messages())
		if noSecret(t, "Begin with context", prompt); !strings.Contains(prompt, "reminder came by post") {
			t.Errorf("Begin did not recall the public match next to the private message: %q", prompt)
		}
		for name, q := range map[string]core.RecallQuery{
			"budgeted": {ThreadID: "a", ResourceID: "r", VectorSearch: "bank PIN reminder by post", Config: over},
			"paged":    {ThreadID: "a", ResourceID: "r", VectorSearch: "bank PIN reminder by post", PerPage: 10, Config: over},
		} {
			res, err := m.Recall(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if noSecret(t, name+" recall with context", joinTexts(res.Messages)); !slices.Contains(ids(res.Messages), "pub-v") {
				t.Errorf("%s recall: %v, want pub-v among them", name, ids(res.Messages))
			}
		}
	})
}

// joinTexts is the texts of msgs, a line each.
func joinTexts(msgs []core.Message) string {
	var b strings.Builder
	for _, msg := range msgs {
		b.WriteString(msg.Text() + "\n")
	}
	return b.String()
}
