package vectortest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/agentmem/agentmem/core/vector"
)

// RunIsolation writes identical texts (and thread ids) to two resources and
// runs n random queries (default 200) over every supported mode, with and
// without a thread filter, failing on any hit of the other resource or thread.
func RunIsolation(h *H, n int) {
	h.T.Helper()
	if n <= 0 {
		n = 200
	}
	resources := []string{"alice", "bob"}
	var vocab []string
	for _, r := range resources {
		var recs []vector.Record
		for i := range 3 * len(Corpus) {
			text := fmt.Sprintf("%s (note %d)", Corpus[i%len(Corpus)], i/len(Corpus))
			recs = append(recs, Rec(fmt.Sprintf("%s-m%d", r, i), fmt.Sprintf("t%d", i%3), r, text))
		}
		h.Upsert(recs...)
	}
	for _, c := range Corpus {
		vocab = append(vocab, strings.Fields(c)...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	total := 0
	for i := range n {
		words := make([]string, 1+rng.IntN(4))
		for j := range words {
			words[j] = vocab[rng.IntN(len(vocab))]
		}
		res := resources[rng.IntN(2)]
		q := vector.Query{
			Text: strings.Join(words, " "), TopK: 1 + rng.IntN(12), Mode: h.Modes[rng.IntN(len(h.Modes))],
			Alpha: float64(rng.IntN(5)) / 4, Filter: vector.Filter{ResourceID: res},
		}
		if rng.IntN(2) == 0 {
			q.Filter.ThreadID = fmt.Sprintf("t%d", rng.IntN(3))
		}
		hits := h.Query(q)
		total += len(hits)
		for _, hit := range hits {
			if hit.Meta.ResourceID != res || !strings.HasPrefix(hit.ID, res+"-") ||
				(q.Filter.ThreadID != "" && hit.Meta.ThreadID != q.Filter.ThreadID) {
				h.T.Fatalf("query %d %+v leaked hit %s (%+v)", i, q, hit.ID, hit.Meta)
			}
		}
	}
	if total == 0 {
		h.T.Fatalf("%d isolation queries returned nothing at all", n)
	}
}
