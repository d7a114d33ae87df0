package weaviate_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/core/vector/weaviate"
)

// Filters on metadata properties another tenant's records added to the
// class while this tenant was retired match as they do on an active one:
// none of its records for the new keys, all of them for a negation.
func TestMetadataFilterAfterPropertyAddedWhileRetired(t *testing.T) {
	host, grpc := server(t)
	s := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc, TenantIdle: manual})
	h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
	mine := vectortest.Rec("m1", "t", "ada", vectortest.Corpus[0])
	mine.Meta.Metadata = map[string]any{"k": "v"}
	h.Upsert(mine)
	time.Sleep(10 * time.Millisecond)
	if res, err := s.SweepIdle(context.Background()); err != nil || res.Retired != 1 {
		t.Fatalf("SweepIdle = %+v, %v", res, err)
	}
	theirs := vectortest.Rec("o1", "t9", "bob", vectortest.Corpus[1])
	theirs.Meta.Metadata = map[string]any{"only": "x", "count": 3, "at": "2024-01-01T10:00:00Z"}
	h.Upsert(theirs)
	for _, c := range []struct {
		filter map[string]any
		want   int
	}{
		{map[string]any{"only": "x"}, 0},
		{map[string]any{"at": map[string]any{"$gt": "2023-01-01T00:00:00Z"}}, 0},
		{map[string]any{"only": map[string]any{"$ne": "x"}}, 1},
		{map[string]any{"$or": []any{map[string]any{"count": 3}, map[string]any{"k": "v"}}}, 1},
	} {
		f, err := message.ParseFilter(c.filter)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := h.QueryErr(vector.Query{Text: vectortest.Corpus[0], TopK: 10, Filter: vector.Filter{ResourceID: "ada", Metadata: f}})
		if err != nil || len(hits) != c.want {
			t.Errorf("%v: %d hits, %v; want %d", c.filter, len(hits), err, c.want)
		}
	}
}
