package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
)

// TestQuickstartSearchRanking: after the quickstart, the README's search
// "peanut allergy" (hybrid, as `agentmem search` runs it) ranks the user's
// own message about the allergy above the message that holds no query word
// of its own ("Can you tell me a long story…", which matches only through
// the context it is indexed with): in a handful of candidates the weakest
// keyword match must not score as no match.
func TestQuickstartSearchRanking(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := run(ctx, dir, false, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(dir, "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	vs, err := local.Open(filepath.Join(dir, "memory.vectors"))
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Close()
	emb := local.NewHashEmbedder(384)
	mem, err := core.New(core.Options{Store: db})
	if err != nil {
		t.Fatal(err)
	}
	const text = "peanut allergy"
	hits, err := vs.Query(ctx, vector.IndexName(emb.Dimension()), vector.Query{Text: text, Keywords: mem.Analyzer().Analyze(text),
		Vector: emb.EmbedOne(text), TopK: 4, Mode: vector.SearchHybrid, Alpha: core.DefaultHybridAlpha, Filter: vector.Filter{ResourceID: resourceID}})
	if err != nil {
		t.Fatal(err)
	}
	all, err := mem.Recall(ctx, core.RecallQuery{ThreadID: threadID, ResourceID: resourceID, PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]core.Message{}
	for _, m := range all.Messages {
		byID[m.ID] = m
	}
	rank := map[string]int{}
	var order []string
	for i, h := range hits {
		line := summary(byID[h.Meta.MessageID])
		order = append(order, line)
		switch {
		case strings.Contains(line, "allergic to peanuts"):
			rank["allergic"] = i + 1
		case strings.Contains(line, "long story"):
			rank["story"] = i + 1
		}
	}
	if rank["allergic"] == 0 || rank["story"] != 0 && rank["story"] < rank["allergic"] {
		t.Errorf("search %q ranks %q: want the user's allergy message above the long-story question", text, order)
	}
}
