package pgvector_test

import (
	"context"
	"math"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// TestLoCoMoRecall measures evidence recall on LoCoMo (see
// vectortest.EvalLoCoMo) with vectors from local.HashEmbedder: every mode
// (BM25, vector, hybrid at every alpha) within 0.01 of the local store with
// the same embedder and analyzer, and hybrid beating BM25.
func TestLoCoMoRecall(t *testing.T) {
	testPool(t)
	convs := vectortest.LoadLoCoMo(t)
	ref := vectortest.NewH(t, local.New(), local.NewHashEmbedder(0))
	vectortest.IndexLoCoMo(ref, convs)
	h := vectortest.NewH(t, openFresh(t, pgvector.Config{}), local.NewHashEmbedder(0))
	vectortest.IndexLoCoMo(h, convs)
	bm25, hybrid := vectortest.SweepLoCoMo(h, convs, "pgvector")
	type run struct {
		mode  string
		alpha float64
	}
	runs := []run{{vector.SearchBM25, 0}, {vector.SearchVector, 0}}
	for _, a := range vectortest.HybridAlphas {
		runs = append(runs, run{vector.SearchHybrid, a})
	}
	for _, r := range runs {
		want := vectortest.EvalLoCoMo(ref, convs, r.mode, r.alpha)
		got := vectortest.EvalLoCoMo(h, convs, r.mode, r.alpha)
		if math.Abs(got.Recall-want.Recall) > 0.01 {
			t.Errorf("%s alpha %.2f: recall %.3f, local %.3f", r.mode, r.alpha, got.Recall, want.Recall)
		}
	}
	if hybrid.Recall <= bm25.Recall {
		t.Errorf("hybrid (best alpha %.2f: %.3f) does not beat BM25 (%.3f)", hybrid.Alpha, hybrid.Recall, bm25.Recall)
	}
}

// TestLoCoMoRecallApproximate: through the approximate index (every
// resource searched by HNSW, ExactBelow -1), the one-statement hybrid,
// whose vector list is the 8·TopK nearest of a search as wide as a vector
// query's, recalls LoCoMo's evidence within 0.01 of the hybrid run one
// statement per side, whose list is the 100 nearest of a search twice as
// wide.
func TestLoCoMoRecallApproximate(t *testing.T) {
	testPool(t)
	convs := vectortest.LoadLoCoMo(t)
	s := openFresh(t, pgvector.Config{ExactBelow: -1})
	h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
	vectortest.IndexLoCoMo(h, convs)
	// Row estimates as autovacuum leaves them: the search widens with the
	// table's share of other resources.
	if _, err := testPool(t).Exec(bg(), `ANALYZE "`+s.Schema()+`".vectors_`+h.Index); err != nil {
		t.Fatal(err)
	}
	sides := vectortest.NewH(t, bySides{s}, local.NewHashEmbedder(0))
	sides.Index = h.Index
	for _, a := range []float64{0.2, 0.5} {
		got := vectortest.EvalLoCoMo(h, convs, vector.SearchHybrid, a)
		want := vectortest.EvalLoCoMo(sides, convs, vector.SearchHybrid, a)
		t.Logf("alpha %.1f: one statement %.4f, by sides %.4f", a, got.Recall, want.Recall)
		if math.Abs(got.Recall-want.Recall) > 0.01 {
			t.Errorf("alpha %.1f: recall %.3f, by sides %.3f", a, got.Recall, want.Recall)
		}
	}
}

// bySides answers hybrid queries one statement per side.
type bySides struct{ *pgvector.Store }

func (s bySides) Query(ctx context.Context, index string, q vector.Query) ([]vector.Hit, error) {
	if q.Mode != vector.SearchHybrid {
		return s.Store.Query(ctx, index, q)
	}
	return s.Store.QueryBySides(ctx, index, q)
}
