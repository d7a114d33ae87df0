package pgvector_test

import (
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

func TestConformance(t *testing.T) {
	testPool(t)
	vectortest.Run(t, func(t *testing.T) vector.Store { return openFresh(t, pgvector.Config{}) }, local.NewHashEmbedder(0))
}

// TestConformanceApproximate searches every resource through the
// approximate index, however small.
func TestConformanceApproximate(t *testing.T) {
	testPool(t)
	vectortest.Run(t, func(t *testing.T) vector.Store { return openFresh(t, pgvector.Config{ExactBelow: -1}) }, local.NewHashEmbedder(0))
}

// TestConformanceIndexConfigs runs the suite for every index type and metric.
func TestConformanceIndexConfigs(t *testing.T) {
	testPool(t)
	for _, typ := range []string{pgvector.TypeHNSW, pgvector.TypeIVFFlat, pgvector.TypeFlat} {
		for _, metric := range []string{pgvector.MetricCosine, pgvector.MetricDotProduct, pgvector.MetricEuclidean} {
			t.Run(typ+"/"+metric, func(t *testing.T) {
				cfg := vector.IndexConfig{Type: typ, Metric: metric}
				cfg.IVFFlat.Lists = 1
				vectortest.Run(t, func(t *testing.T) vector.Store {
					return configured{openFresh(t, pgvector.Config{ExactBelow: -1}), cfg}
				}, local.NewHashEmbedder(64), vectortest.RunOptions{IsolationQueries: 50})
			})
		}
	}
}

// TestConformanceHalfvec runs the suite on 3,072 dimensions, stored and
// indexed as halfvec.
func TestConformanceHalfvec(t *testing.T) {
	testPool(t)
	vectortest.Run(t, func(t *testing.T) vector.Store { return openFresh(t, pgvector.Config{ExactBelow: -1}) },
		local.NewHashEmbedder(3072), vectortest.RunOptions{IsolationQueries: 50})
	s := openFresh(t, pgvector.Config{})
	if err := s.EnsureIndex(bg(), vector.IndexSpec{Name: "big", Dimension: 3072}); err != nil {
		t.Fatal(err)
	}
	var typ string
	if err := testPool(t).QueryRow(bg(), fmt.Sprintf(`SELECT format_type(atttypid, atttypmod) || ' ' || (SELECT amname FROM pg_am a JOIN pg_class c ON c.relam = a.oid WHERE c.oid = to_regclass('%s.vectors_big_ann'))
FROM pg_attribute WHERE attrelid = to_regclass('%s.vectors_big') AND attname = 'embedding'`, `"`+s.Schema()+`"`, `"`+s.Schema()+`"`)).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	if typ != "halfvec(3072) hnsw" {
		t.Fatalf("3072 dimensions stored as %q, want halfvec(3072) with an hnsw index", typ)
	}
}
