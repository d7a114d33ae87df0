package vectortest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
)

// Corpus is a set of texts on distinct topics; Queries[i] is a lexical
// paraphrase whose obvious best match is Corpus[i].
var (
	Corpus = []string{
		"The postgres database migration failed with a deadlock on the orders table",
		"My invoice shows a double charge for the premium billing plan this month",
		"Deploy the kubernetes cluster to production tonight after the canary passes",
		"Book a flight to Lisbon and a hotel room near the beach for the holiday",
		"Bake sourdough bread with a long cold fermentation and a hot dutch oven",
		"The tabby cat sleeps on the warm windowsill every sunny afternoon",
	}
	Queries = []string{
		"database migration deadlock",
		"double charge on my invoice",
		"kubernetes production deploy",
		"flight and hotel in Lisbon",
		"sourdough bread fermentation",
		"cat sleeping on the windowsill",
	}
)

// seed writes Corpus as messages m0..m5 of thread t1 (even) and t2 (odd) of resource r.
func seed(h *H, resource string) {
	h.T.Helper()
	var recs []vector.Record
	for i, text := range Corpus {
		recs = append(recs, Rec(fmt.Sprintf("%s-m%d", resource, i), fmt.Sprintf("t%d", i%2+1), resource, text))
	}
	h.Upsert(recs...)
}

func want(h *H, what string, got, exp any) {
	h.T.Helper()
	if fmt.Sprint(got) != fmt.Sprint(exp) {
		h.T.Fatalf("%s: got %v, want %v", what, got, exp)
	}
}

func testEnsureIndex(h *H) {
	dim := 0
	if !h.S.SelfEmbedding() {
		dim = len(h.embed("x")[0])
	}
	for range 2 {
		if err := h.S.EnsureIndex(h.Ctx, vector.IndexSpec{Name: h.Index, Dimension: dim}); err != nil {
			h.T.Fatalf("EnsureIndex again: %v", err)
		}
	}
	seed(h, "r")
	if err := h.S.EnsureIndex(h.Ctx, vector.IndexSpec{Name: h.Index, Dimension: dim}); err != nil {
		h.T.Fatalf("EnsureIndex on a filled index: %v", err)
	}
	want(h, "records survive EnsureIndex", len(h.Query(vector.Query{Text: Queries[0], TopK: 100, Filter: vector.Filter{ResourceID: "r"}})), len(Corpus))
}

func testUpsertQuery(h *H) {
	seed(h, "r")
	for i, q := range Queries {
		hits := h.Query(vector.Query{Text: q, TopK: 3, Filter: vector.Filter{ResourceID: "r"}})
		if len(hits) == 0 || hits[0].ID != fmt.Sprintf("r-m%d#0", i) {
			h.T.Fatalf("query %q: got %v, want r-m%d#0 first", q, IDs(hits), i)
		}
		for j := 1; j < len(hits); j++ {
			if hits[j].Score > hits[j-1].Score {
				h.T.Fatalf("query %q: hits not sorted by score: %+v", q, hits)
			}
		}
	}
}

func testUpsertReplaces(h *H) {
	seed(h, "r")
	// m0 now talks about bread, in thread t9.
	rec := Rec("r-m0", "t9", "r", "Rye bread and sourdough starter feeding schedule")
	h.Upsert(rec)
	hits := h.Query(vector.Query{Text: "sourdough starter", TopK: 100, Filter: vector.Filter{ResourceID: "r"}})
	want(h, "records after replace", len(hits), len(Corpus))
	ids := IDs(hits)
	sort.Strings(ids)
	want(h, "no duplicate ids", len(slices.Compact(ids)), len(Corpus))
	for _, hit := range hits {
		if hit.ID == "r-m0#0" && hit.Meta.ThreadID != "t9" {
			h.T.Fatalf("replaced record kept old meta: %+v", hit.Meta)
		}
	}
	top := h.Query(vector.Query{Text: Queries[0], TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
	if len(top) == 1 && top[0].ID == "r-m0#0" {
		h.T.Fatalf("old text of the replaced record still matches best")
	}
}

func testReupsertChunks(h *H) {
	recs := []vector.Record{
		Rec("long", "t1", "r", "first half about database migrations and deadlocks"),
		Rec("long", "t1", "r", "second half about the billing invoice and charges"),
		Rec("short", "t1", "r", "a short note about the cat"),
	}
	recs[1].ID = "long#1"
	for range 3 {
		h.Upsert(recs...)
	}
	hits := h.Query(vector.Query{Text: "invoice", TopK: 100, Filter: vector.Filter{ResourceID: "r"}})
	ids := IDs(hits)
	sort.Strings(ids)
	want(h, "ids after re-upserts", ids, []string{"long#0", "long#1", "short#0"})
	top := h.Query(vector.Query{Text: "billing invoice charges", TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
	want(h, "chunk #1 found", IDs(top), []string{"long#1"})
}

func testTopK(h *H) {
	seed(h, "r")
	for _, k := range []int{1, 3, len(Corpus), 100} {
		hits := h.Query(vector.Query{Text: Queries[2], TopK: k, Filter: vector.Filter{ResourceID: "r"}})
		want(h, fmt.Sprintf("hits for TopK %d", k), len(hits), min(k, len(Corpus)))
	}
}

func testMinScore(h *H) {
	seed(h, "r")
	f := vector.Filter{ResourceID: "r"}
	all := h.Query(vector.Query{Text: Queries[4], TopK: 100, Filter: f})
	if len(all) < 2 || all[0].Score <= all[1].Score {
		h.T.Fatalf("need two distinct scores: %+v", all)
	}
	mid := (all[0].Score + all[1].Score) / 2
	hits := h.Query(vector.Query{Text: Queries[4], TopK: 100, MinScore: mid, Filter: f})
	want(h, "hits above the midpoint", IDs(hits), IDs(all[:1]))
	for _, hit := range h.Query(vector.Query{Text: Queries[4], TopK: 100, MinScore: all[2].Score, Filter: f}) {
		if hit.Score < all[2].Score {
			h.T.Fatalf("hit below MinScore: %+v", hit)
		}
	}
	want(h, "hits above 1.5", len(h.Query(vector.Query{Text: Queries[4], TopK: 100, MinScore: 1.5, Filter: f})), 0)
}

func testMeta(h *H) {
	at := time.Date(2024, 2, 29, 23, 59, 58, 123456789, time.FixedZone("X", 5*3600+1800))
	rec := vector.Record{ID: "mm#0", Text: Corpus[3], Meta: vector.Meta{
		MessageID: "mm", ThreadID: "thread/ü 1", ResourceID: "user@example.com/ü:1", Role: message.RoleAssistant, CreatedAt: at}}
	h.Upsert(rec)
	for _, mode := range h.Modes {
		hits := h.Query(vector.Query{Text: Queries[3], TopK: 1, Mode: mode, Alpha: 0.5, Filter: vector.Filter{ResourceID: rec.Meta.ResourceID}})
		if len(hits) != 1 {
			h.T.Fatalf("%s: got %d hits", mode, len(hits))
		}
		m := hits[0].Meta
		if hits[0].ID != rec.ID || m.MessageID != "mm" || m.ThreadID != rec.Meta.ThreadID ||
			m.ResourceID != rec.Meta.ResourceID || m.Role != message.RoleAssistant || m.CreatedAt.UnixMilli() != at.UnixMilli() {
			h.T.Fatalf("%s: meta %+v (id %s), want %+v", mode, m, hits[0].ID, rec.Meta)
		}
	}
}

func testThreadFilter(h *H) {
	seed(h, "r")
	for i, q := range Queries {
		for _, mode := range h.Modes {
			hits := h.Query(vector.Query{Text: q, TopK: 100, Mode: mode, Alpha: 0.5, Filter: vector.Filter{ResourceID: "r", ThreadID: "t2"}})
			for _, hit := range hits {
				if hit.Meta.ThreadID != "t2" {
					h.T.Fatalf("%s %q: hit of thread %s", mode, q, hit.Meta.ThreadID)
				}
			}
			if i%2 == 1 && (len(hits) == 0 || hits[0].ID != fmt.Sprintf("r-m%d#0", i)) {
				h.T.Fatalf("%s %q: got %v, want r-m%d#0 first", mode, q, IDs(hits), i)
			}
		}
	}
}

func testEmptyResource(h *H) {
	seed(h, "r")
	for _, mode := range h.Modes {
		hits, err := h.QueryErr(vector.Query{Text: Queries[0], TopK: 5, Mode: mode, Alpha: 0.5, Filter: vector.Filter{ResourceID: "nobody"}})
		if err != nil || len(hits) != 0 {
			h.T.Fatalf("%s on an unknown resource: %v, %v", mode, hits, err)
		}
	}
	h.Delete(vector.Filter{ResourceID: "nobody"})
	h.Delete(vector.Filter{ResourceID: "nobody", ThreadID: "t1"})
	h.Delete(vector.Filter{ResourceID: "r", MessageIDs: []string{"unknown"}})
}

func testResourceRequired(h *H) {
	if _, err := h.QueryErr(vector.Query{Text: "x", TopK: 1}); err == nil {
		h.T.Fatal("Query without ResourceID succeeded")
	}
	if err := h.S.Delete(h.Ctx, h.Index, vector.Filter{ThreadID: "t1"}); err == nil {
		h.T.Fatal("Delete without ResourceID succeeded")
	}
	if err := h.S.Upsert(h.Ctx, h.Index, h.Prepare([]vector.Record{Rec("m", "t", "", "x")})); err == nil {
		h.T.Fatal("Upsert without ResourceID succeeded")
	}
}

// testBadInput: every driver refuses the same bad input with the same typed
// error (vector.Checked), and writes nothing.
func testBadInput(h *H) {
	h.Upsert(Rec("m1", "t1", "r1", "alpha beta"))
	r := vector.Filter{ResourceID: "r1"}
	queries := map[string]vector.Query{
		"unknown mode":     {Text: "alpha", Mode: "fuzzy", TopK: 1, Filter: r},
		"alpha over 1":     {Text: "alpha", Mode: vector.SearchHybrid, Alpha: 1.5, TopK: 1, Filter: r},
		"alpha below 0":    {Text: "alpha", Mode: vector.SearchHybrid, Alpha: -0.5, TopK: 1, Filter: r},
		"invalid metadata": {Text: "alpha", TopK: 1, Filter: vector.Filter{ResourceID: "r1", Metadata: message.Filter{Op: "nope"}}},
	}
	if !h.S.SelfEmbedding() {
		queries["no vector"] = vector.Query{Text: "alpha", Vector: []float32{}, TopK: 1, Filter: r}
		queries["NaN vector"] = vector.Query{Text: "alpha", Vector: nanVector(h), TopK: 1, Filter: r}
		queries["short vector"] = vector.Query{Text: "alpha", Vector: []float32{1}, TopK: 1, Filter: r}
	}
	for name, q := range queries {
		if _, err := h.S.Query(h.Ctx, h.Index, q); !isTyped(err) {
			h.T.Errorf("Query with %s: %v, want a *memerr.Error", name, err)
		}
	}
	good := h.Prepare([]vector.Record{Rec("m2", "t1", "r1", "alpha gamma")})[0]
	recs := map[string]vector.Record{"no id": good}
	noID := recs["no id"]
	noID.ID = ""
	recs["no id"] = noID
	if !h.S.SelfEmbedding() {
		for name, v := range map[string][]float32{"no vector": nil, "NaN vector": nanVector(h), "short vector": {1}} {
			rec := good
			rec.Vector = v
			recs[name] = rec
		}
	}
	for name, rec := range recs {
		if err := h.S.Upsert(h.Ctx, h.Index, []vector.Record{good, rec}); !isTyped(err) {
			h.T.Errorf("Upsert of a record with %s: %v, want a *memerr.Error", name, err)
		}
	}
	if err := h.S.EnsureIndex(h.Ctx, vector.IndexSpec{Name: ""}); !isTyped(err) {
		h.T.Errorf("EnsureIndex without a name: %v, want a *memerr.Error", err)
	}
	if got := IDs(h.Query(vector.Query{Text: "alpha", TopK: 5, Filter: r})); len(got) != 1 {
		h.T.Errorf("after refused writes the resource holds %v, want [m1#0]", got)
	}
}

// nanVector is a query vector of the index's dimension holding a NaN.
func nanVector(h *H) []float32 {
	v := slices.Clone(h.embed("alpha")[0])
	v[0] = float32(math.NaN())
	return v
}

// isTyped reports whether err is an agentmem *memerr.Error.
func isTyped(err error) bool {
	var e *memerr.Error
	return errors.As(err, &e)
}
