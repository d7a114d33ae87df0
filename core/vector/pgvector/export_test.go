package pgvector

import (
	"context"

	"github.com/agentmem/agentmem/core/vector"
)

// QueryBySides answers a hybrid query with one statement per side and the
// fusion in Go (the reference of the one-statement hybrid); q is checked by
// the caller.
func (s *Store) QueryBySides(ctx context.Context, index string, q vector.Query) ([]vector.Hit, error) {
	m, err := s.meta(ctx, "Query", index, q.Filter.ResourceID)
	if err != nil {
		return nil, err
	}
	res, err := s.hybridSides(ctx, m, q, q.TopK)
	if err != nil {
		return nil, err
	}
	sortHits(res)
	var hits []vector.Hit
	for _, r := range res[:min(q.TopK, len(res))] {
		hits = append(hits, r.Hit)
	}
	return hits, nil
}
