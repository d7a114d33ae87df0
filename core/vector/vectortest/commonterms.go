package vectortest

import (
	"fmt"

	"github.com/agentmem/agentmem/core/vector"
)

// testCommonTerms: a hybrid query's keyword side leaves out a term most of
// the resource's records hold (vector.KeywordTerms), so a query of that
// term alone ranks by vector; a rare term beside it still finds its record;
// keyword search (SearchBM25, hybrid alpha 0) keeps every term. Writes and
// deletes move a term across the cutoff at once.
func testCommonTerms(h *H) {
	if !h.Supports(vector.SearchHybrid) || !h.Supports(vector.SearchBM25) {
		h.T.Skip("store does not support hybrid and bm25")
	}
	var recs []vector.Record
	for i := range 6 {
		recs = append(recs, Rec(fmt.Sprint("w", i), "t", "r", fmt.Sprintf("sunny weather today number%d", i)))
	}
	recs = append(recs, Rec("z", "t", "r", "zebra crossing downtown"), Rec("o", "t", "r", "quiet evening alone"))
	h.Upsert(recs...)
	// The vector side (the query text's embedding) points at "o"; the
	// keywords are searched by the keyword side only.
	q := func(keywords, mode string, alpha float64) []string {
		return IDs(h.Query(vector.Query{Text: "quiet evening alone", Keywords: keywords, TopK: 1, Mode: mode, Alpha: alpha,
			Filter: vector.Filter{ResourceID: "r"}}))
	}
	want(h, "hybrid, a term in 6 of 8 records", q("weather", vector.SearchHybrid, 0.2), []string{"o#0"})
	want(h, "hybrid, a rare term beside the common one", q("weather zebra", vector.SearchHybrid, 0.2), []string{"z#0"})
	if got := q("weather", vector.SearchBM25, 0); len(got) != 1 || got[0][0] != 'w' {
		h.T.Fatalf("bm25 of the common term: %v, want a w record", got)
	}
	if got := q("weather", vector.SearchHybrid, 0); len(got) != 1 || got[0][0] != 'w' {
		h.T.Fatalf("hybrid alpha 0 of the common term: %v, want a w record", got)
	}
	var more []vector.Record
	for i := range 10 {
		more = append(more, Rec(fmt.Sprint("s", i), "t2", "r", fmt.Sprintf("zebra stripes number%d", i)))
	}
	h.Upsert(more...)
	want(h, "hybrid, zebra in 11 of 18 records", q("zebra", vector.SearchHybrid, 0.2), []string{"o#0"})
	h.Delete(vector.Filter{ResourceID: "r", ThreadID: "t2"})
	want(h, "hybrid, zebra in 1 of 8 records again", q("zebra", vector.SearchHybrid, 0.2), []string{"z#0"})
}
