package vector

// CommonTermShare is the share of the searched records above which a query
// term is common and left out of a hybrid query's keyword side (a document
// frequency cutoff, like Lucene's CommonTermsQuery): a term in more than half
// of n records has a BM25 idf below ln 2 ≈ 0.69 (the Robertson–Spärck Jones
// weight without Lucene's 1+ would be negative), against 5–10 for a rare term,
// so it barely moves the ranking, while its posting list is the longest to
// read. Measured on the LoCoMo dev split (BENCHMARKS.md, "Common terms in
// hybrid recall"): evidence recall is unchanged down to a share of 0.6 and
// loses 0.002–0.005 at 0.5, more below.
const CommonTermShare = 0.5

// KeywordTerms returns the terms a hybrid query's keyword side searches:
// those of terms (a query's distinct analyzed terms, of any representation)
// that occur in at most CommonTermShare of the n searched records, df(t)
// being the number of records holding t (both may come from a sample of the
// records); the order of terms is kept. An empty result means every term is
// common: a hybrid query then searches by vector only, as for a query without
// keywords. The rule applies where the query has a vector side to fall back
// on: explicit keyword search (SearchBM25) and hybrid with alpha 0 search
// every term, as who asks for keyword search gets it.
func KeywordTerms[T any](terms []T, df func(T) int, n int) []T {
	kept := make([]T, 0, len(terms))
	for _, t := range terms {
		if float64(df(t)) <= CommonTermShare*float64(n) {
			kept = append(kept, t)
		}
	}
	return kept
}
