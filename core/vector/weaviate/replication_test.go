package weaviate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/core/vector/weaviate"
)

func TestReplicationBadConfig(t *testing.T) {
	for _, cfg := range []weaviate.Config{
		{ReplicationFactor: -1},
		{Consistency: "TWO"},
		{Consistency: "quorum2"},
		{AsyncReplication: true},
		{ReplicationFactor: 1, AsyncReplication: true},
	} {
		cfg.Host = "127.0.0.1:1" // never reached: the settings are checked first
		_, err := weaviate.New(context.Background(), cfg)
		if !errors.Is(err, memerr.ErrInvalidConfig) {
			t.Errorf("New(%+v) = %v, want ErrInvalidConfig", cfg, err)
		}
	}
}

// TestConsistencyOnOneNode runs the conformance cases on one node with every
// consistency level: a class of one replica answers every level, and its
// GraphQL queries go without the argument the server would reject.
func TestConsistencyOnOneNode(t *testing.T) {
	host, grpc := server(t)
	for _, level := range []string{weaviate.ConsistencyOne, "quorum", weaviate.ConsistencyAll} {
		t.Run(level, func(t *testing.T) {
			s := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc, Consistency: level})
			h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
			h.Upsert(vectortest.Rec("m1", "t1", "ada", vectortest.Corpus[0]), vectortest.Rec("m2", "t2", "ada", vectortest.Corpus[1]))
			if got := ids(h, "ada"); len(got) != 2 {
				t.Fatalf("hits %v", got)
			}
			for _, mode := range []string{vector.SearchBM25, vector.SearchHybrid} {
				q := vector.Query{Mode: mode, Text: vectortest.Corpus[0], TopK: 5, Filter: vector.Filter{ResourceID: "ada"}, Alpha: 0.5}
				if hits := h.Query(q); len(hits) == 0 {
					t.Fatalf("%s: no hits", mode)
				}
			}
			if err := s.Delete(context.Background(), h.Index, vector.Filter{ResourceID: "ada", ThreadID: "t1"}); err != nil {
				t.Fatal(err)
			}
			if got := ids(h, "ada"); len(got) != 1 || !got["m2#0"] {
				t.Fatalf("after deleting t1: %v", got)
			}
		})
	}
}
