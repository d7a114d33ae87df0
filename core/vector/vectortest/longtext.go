package vectortest

import (
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/core/vector"
)

// LongText returns a text of more than 1 MiB (words distinct words after
// lead): more than a PostgreSQL tsvector holds (1 MiB of lexemes and
// positions, positions up to 16,383).
func LongText(lead string, words int) string {
	var b strings.Builder
	b.WriteString(lead)
	for i := range words {
		fmt.Fprintf(&b, " w%07d", i)
	}
	return b.String()
}

// testLongText: a record of more than 1 MiB of text is written with the
// records beside it (a store may index only part of its keywords, never
// fail), and found by keyword and by vector.
func testLongText(h *H) {
	long := Rec("r-long", "t1", "r", LongText("zanzibarina lighthouse", 140_000))
	if len(long.Text) <= 1<<20 {
		h.T.Fatalf("the long text has only %d bytes", len(long.Text))
	}
	other := Rec("r-m0", "t1", "r", Corpus[0])
	h.Upsert(long, other)
	want(h, "records written", remaining(h, "r"), []string{"r-long#0", "r-m0#0"})
	if h.Supports(vector.SearchBM25) {
		hits := h.Query(vector.Query{Text: "zanzibarina", TopK: 2, Mode: vector.SearchBM25, Filter: vector.Filter{ResourceID: "r"}})
		want(h, "bm25 hits of a word of the long text", IDs(hits), []string{"r-long#0"})
	}
	hits := h.Query(vector.Query{Text: long.Text, TopK: 1, Filter: vector.Filter{ResourceID: "r"}})
	want(h, "vector hit of the long text", IDs(hits), []string{"r-long#0"})
}
