package vector

// Semantic recall's over-fetch, decided here once. A recall configured to
// keep TopK messages (SemanticRecall.TopK, Retrieval.TopK) asks the vector
// store for Candidates(TopK) hits, which reach the driver as Query.TopK:
// memory drops hits after the search (the metadata filter checked again on
// the stored message, whose metadata the vector's copy can lag;
// near-duplicates; messages deleted since they were indexed; a date range
// the store does not filter), and what is left must still fill TopK. A
// hybrid query of Query.TopK hits then fuses the best Fused(Query.TopK) of
// each ranking (vector and BM25), as Weaviate does; its drivers (local,
// pgvector) fuse the same depth, so that the three rank alike.

// Candidates returns how many hits a recall that keeps topK asks the vector
// store for: three times topK, at least five more than topK (small TopK
// lose a larger share to duplicates).
func Candidates(topK int) int { return max(3*topK, topK+5) }

// MaxCandidates bounds FilteredCandidates.
const MaxCandidates = 200

// FilteredCandidates is Candidates for a recall narrowed after the search
// by a condition the vector store does not hold (a date range): 10 × topK,
// at least 50 and at most MaxCandidates, since such a condition can drop
// most hits.
func FilteredCandidates(topK int) int { return min(max(10*topK, 50), MaxCandidates) }

// FusionDepth is how many hits of each ranking a hybrid query fuses:
// Weaviate's QUERY_HYBRID_MAXIMUM_RESULTS. Fusing a fixed depth, not the
// hits asked for, keeps the min-max normalisation of each ranking (see
// RelativeScore) independent of TopK.
const FusionDepth = 100

// Fused returns how many hits of each ranking a hybrid query for topK hits
// fuses: FusionDepth, or topK when larger.
func Fused(topK int) int { return max(FusionDepth, topK) }
