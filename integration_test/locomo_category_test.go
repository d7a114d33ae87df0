package integration_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// locomoCategories names LoCoMo's question categories.
var locomoCategories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// evalByCategory asks every question through Memory.Recall with the recall
// override over (nil: the instance config) and returns one scorer per
// question category and one over all questions.
func evalByCategory(t *testing.T, mem *core.Memory, convs []vectortest.LoCoMoConversation, over *core.SemanticRecall) (map[int]*vectortest.Scorer, vectortest.Scorer) {
	t.Helper()
	by := map[int]*vectortest.Scorer{}
	var all vectortest.Scorer
	for _, c := range convs {
		thread := locomoThread(c, c.Turns[len(c.Turns)-1].Session)
		for _, q := range c.Questions {
			res, err := mem.Recall(bg, core.RecallQuery{ThreadID: thread, ResourceID: c.SampleID, VectorSearch: q.Question,
				Config: &core.Config{LastMessages: core.NoHistory, SemanticRecall: over}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, m := range res.Messages {
				got[strings.TrimPrefix(m.ID, c.SampleID+"/")] = true
			}
			if by[q.Category] == nil {
				by[q.Category] = &vectortest.Scorer{}
			}
			by[q.Category].Add(q, got)
			all.Add(q, got)
		}
	}
	return by, all
}

// reportByCategory reports the overall result and one per category.
func reportByCategory(t *testing.T, store, name string, by map[int]*vectortest.Scorer, all vectortest.Scorer) {
	t.Helper()
	report(t, store, name, all.Result())
	for cat := 1; cat <= 4; cat++ {
		if sc := by[cat]; sc != nil {
			report(t, store, fmt.Sprintf("%s, category %d %s", name, cat, locomoCategories[cat]), sc.Result())
		}
	}
}

// TestLoCoMoByCategory reports LoCoMo dev recall through Memory.Recall per
// question category for the default config and for the diversity re-rank
// over a grid of lambdas, on the local store, and checks that lambda 1 is
// the relevance order (the default's result in every category).
func TestLoCoMoByCategory(t *testing.T) {
	convs := vectortest.LoadLoCoMo(t)
	mem := locomoMemory(t, local.New(), local.NewHashEmbedder(0), core.SemanticRecall{}, convs)
	by, all := evalByCategory(t, mem, convs, nil)
	reportByCategory(t, "local", "default", by, all)
	one, oneAll := evalByCategory(t, mem, convs, &core.SemanticRecall{Diversity: &core.Diversity{Lambda: core.Float(1)}})
	if oneAll.Result() != all.Result() {
		t.Errorf("diversity λ 1 recalls %+v, the default %+v", oneAll.Result(), all.Result())
	}
	for cat, sc := range by {
		if one[cat].Result() != sc.Result() {
			t.Errorf("category %d: diversity λ 1 recalls %+v, the default %+v", cat, one[cat].Result(), sc.Result())
		}
	}
	for _, lambda := range locomoLambdas {
		by, all := evalByCategory(t, mem, convs, &core.SemanticRecall{Diversity: &core.Diversity{Lambda: core.Float(lambda)}})
		reportByCategory(t, "local", fmt.Sprintf("diversity λ %.1f", lambda), by, all)
	}
}

// locomoLambdas is the MMR lambda grid reported.
var locomoLambdas = []float64{0.5, 0.6, 0.7, 0.8, 0.9}
