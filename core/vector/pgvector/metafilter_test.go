package pgvector_test

import (
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// TestMetadataMigration: an index table created before the metadata column
// gains it when the store opens, keeps its records, and filters them.
func TestMetadataMigration(t *testing.T) {
	s := openFresh(t, pgvector.Config{})
	h := vectortest.NewH(t, s, local.NewHashEmbedder(16))
	h.Upsert(vectortest.Rec("old", "t", "r", vectortest.Corpus[0]))
	qt := fmt.Sprintf(`"%s".vectors_%s`, s.Schema(), h.Index)
	for _, q := range []string{
		`ALTER TABLE ` + qt + ` DROP COLUMN metadata`,
		fmt.Sprintf(`DELETE FROM "%s".vector_schema_migrations WHERE version = 2`, s.Schema()),
	} {
		if _, err := testPool(t).Exec(bg(), q); err != nil {
			t.Fatal(err)
		}
	}
	s2, err := pgvector.New(bg(), testPool(t), pgvector.Config{Schema: s.Schema()})
	if err != nil {
		t.Fatalf("New on the older schema: %v", err)
	}
	h2 := vectortest.NewH(t, s2, local.NewHashEmbedder(16))
	n := vectortest.Rec("new", "t", "r", vectortest.Corpus[1])
	n.Meta.Metadata = map[string]any{"k": "v"}
	h2.Upsert(n)
	f, err := message.ParseFilter(map[string]any{"k": map[string]any{"$exists": false}})
	if err != nil {
		t.Fatal(err)
	}
	hits := h2.Query(vector.Query{Text: vectortest.Corpus[0], TopK: 10, Filter: vector.Filter{ResourceID: "r", Metadata: f}})
	if len(hits) != 1 || hits[0].Meta.MessageID != "old" || hits[0].Meta.Metadata != nil {
		t.Fatalf("records without the key: %+v", hits)
	}
}

// TestMetadataReplaced: upserting a record again replaces its metadata,
// and a record written without metadata matches no key.
func TestMetadataReplaced(t *testing.T) {
	h := vectortest.NewH(t, openFresh(t, pgvector.Config{}), local.NewHashEmbedder(16))
	r := vectortest.Rec("m", "t", "r", vectortest.Corpus[0])
	r.Meta.Metadata = map[string]any{"k": "v"}
	h.Upsert(r)
	r.Meta.Metadata = nil
	h.Upsert(r)
	f, err := message.ParseFilter(map[string]any{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	q := vector.Query{Text: vectortest.Corpus[0], TopK: 10, Filter: vector.Filter{ResourceID: "r", Metadata: f}}
	if hits := h.Query(q); len(hits) != 0 {
		t.Fatalf("stale metadata matched: %+v", hits)
	}
	q.Filter.Metadata = message.Filter{}
	if hits := h.Query(q); len(hits) != 1 || hits[0].Meta.Metadata != nil {
		t.Fatalf("hits: %+v", hits)
	}
}
