package vectortest

import (
	"fmt"
	"sort"

	"github.com/agentmem/agentmem/core/vector"
)

func remaining(h *H, resource string) []string {
	h.T.Helper()
	ids := IDs(h.Query(vector.Query{Text: Queries[0], TopK: 100, Filter: vector.Filter{ResourceID: resource}}))
	sort.Strings(ids)
	return ids
}

func testDeleteByThread(h *H) {
	seed(h, "r")
	seed(h, "q")
	h.Delete(vector.Filter{ResourceID: "r", ThreadID: "t1"})
	want(h, "r after deleting t1", remaining(h, "r"), []string{"r-m1#0", "r-m3#0", "r-m5#0"})
	want(h, "q untouched", len(remaining(h, "q")), len(Corpus))
	h.Delete(vector.Filter{ResourceID: "q", ThreadID: "t1", MessageIDs: []string{"q-m0", "q-m1"}})
	want(h, "q after thread+ids", len(remaining(h, "q")), len(Corpus)-1)
}

func testDeleteByMessageIDs(h *H) {
	seed(h, "r")
	long := Rec("r-long", "t1", "r", "chunk zero")
	long2 := Rec("r-long", "t1", "r", "chunk one")
	long2.ID = "r-long#1"
	h.Upsert(long, long2)
	h.Delete(vector.Filter{ResourceID: "r", MessageIDs: []string{"r-long", "r-m2", "missing"}})
	want(h, "r after deleting ids", remaining(h, "r"), []string{"r-m0#0", "r-m1#0", "r-m3#0", "r-m4#0", "r-m5#0"})
	h.Delete(vector.Filter{ResourceID: "other", MessageIDs: []string{"r-m0"}})
	want(h, "ids of another resource are not deleted", len(remaining(h, "r")), 5)
}

func testDeleteByResource(h *H) {
	seed(h, "r")
	seed(h, "q")
	h.Delete(vector.Filter{ResourceID: "r"})
	want(h, "r after delete", len(remaining(h, "r")), 0)
	want(h, "q untouched", len(remaining(h, "q")), len(Corpus))
	seed(h, "r")
	want(h, "r written again", len(remaining(h, "r")), len(Corpus))
}

func testBM25(h *H) {
	if !h.Supports(vector.SearchBM25) {
		h.T.Skip("store does not support bm25")
	}
	seed(h, "r")
	for i, q := range Queries {
		hits := h.Query(vector.Query{Text: q, TopK: 3, Mode: vector.SearchBM25, Filter: vector.Filter{ResourceID: "r"}})
		if len(hits) == 0 || hits[0].ID != fmt.Sprintf("r-m%d#0", i) || hits[0].Score <= 0 {
			h.T.Fatalf("bm25 %q: got %+v, want r-m%d#0 first", q, hits, i)
		}
	}
	hits := h.Query(vector.Query{Text: "xylophone zeppelin", TopK: 3, Mode: vector.SearchBM25, Filter: vector.Filter{ResourceID: "r"}})
	want(h, "bm25 hits without shared terms", len(hits), 0)
}

func testHybrid(h *H) {
	if !h.Supports(vector.SearchHybrid) {
		h.T.Skip("store does not support hybrid")
	}
	seed(h, "r")
	for _, alpha := range []float64{0, 0.25, 0.5, 0.75, 1} {
		for i, q := range Queries {
			hits := h.Query(vector.Query{Text: q, TopK: 3, Mode: vector.SearchHybrid, Alpha: alpha, Filter: vector.Filter{ResourceID: "r"}})
			if len(hits) == 0 || hits[0].ID != fmt.Sprintf("r-m%d#0", i) {
				h.T.Fatalf("hybrid alpha %v %q: got %v, want r-m%d#0 first", alpha, q, IDs(hits), i)
			}
			for _, hit := range hits {
				if hit.Score < 0 || hit.Score > 1+1e-6 {
					h.T.Fatalf("hybrid score outside [0,1]: %+v", hit)
				}
			}
		}
	}
}
