package pgvector_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
)

// TestHybridOneStatementMatchesSides: the hybrid query run as one statement
// (vector side, keyword side with its document frequencies, and the
// relativeScoreFusion in SQL) returns the hits and scores of the two sides
// queried apart and fused in Go, as package local fuses them, at every
// alpha, with and without a thread filter and a metadata filter, for a
// resource holding most of the table (keywords through the keyword index)
// and a small one (keywords through its own rows), and when the common-terms
// rule leaves only terms no record holds.
func TestHybridOneStatementMatchesSides(t *testing.T) {
	s := openFresh(t, pgvector.Config{})
	emb := local.NewHashEmbedder(64)
	spec := vector.IndexSpec{Name: "ix", Dimension: 64, Config: vector.IndexConfig{Type: pgvector.TypeFlat}}
	if err := s.EnsureIndex(bg(), spec); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// Word i occurs in about 1/(i+1) of the records: a few are common,
	// most are rare.
	word := func() string { return fmt.Sprintf("w%d", int(math.Floor(math.Exp(rng.Float64()*math.Log(60))))-1) }
	var recs []vector.Record
	for _, res := range []struct {
		id string
		n  int
	}{{"big", 3000}, {"small", 60}} {
		for i := range res.n {
			words := make([]string, 3+rng.IntN(8))
			for j := range words {
				words[j] = word()
			}
			text := strings.Join(words, " ")
			recs = append(recs, vector.Record{ID: fmt.Sprintf("%s-%d#0", res.id, i), Text: text, Vector: emb.EmbedOne(text),
				Meta: vector.Meta{MessageID: fmt.Sprintf("%s-%d", res.id, i), ThreadID: fmt.Sprintf("t%d", i%3), ResourceID: res.id,
					CreatedAt: time.Unix(int64(i), 0), Metadata: map[string]any{"n": i % 5}}})
		}
	}
	for i := 0; i < len(recs); i += 500 {
		if err := s.Upsert(bg(), "ix", recs[i:min(i+500, len(recs))]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := testPool(t).Exec(bg(), `ANALYZE "`+s.Schema()+`".vectors_ix`); err != nil {
		t.Fatal(err)
	}
	filter, err := message.ParseFilter(map[string]any{"n": map[string]any{"$in": []any{1, 2, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for i := range 60 {
		words := make([]string, 1+rng.IntN(4))
		for j := range words {
			words[j] = word()
		}
		text := strings.Join(words, " ")
		if i%10 == 0 {
			// A common term and one no record holds: a vector query.
			text = "w0 nowhere"
		}
		for _, res := range []string{"big", "small"} {
			for _, alpha := range []float64{0, 0.3, 0.5, 1} {
				q := vector.Query{Text: text, Vector: emb.EmbedOne(text), TopK: 5, Mode: vector.SearchHybrid, Alpha: alpha,
					Filter: vector.Filter{ResourceID: res}}
				switch i % 3 {
				case 1:
					q.Filter.ThreadID = "t1"
				case 2:
					q.Filter.Metadata = filter
				}
				got, err := s.Query(bg(), "ix", q)
				if err != nil {
					t.Fatal(err)
				}
				want, err := s.QueryBySides(bg(), "ix", q)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%q in %s, alpha %.1f, filter %+v: %d hits, want %d", text, res, alpha, q.Filter, len(got), len(want))
				}
				for j := range got {
					// Records of equal scores may come in either order,
					// and either may be cut at TopK.
					tied := j == len(want)-1 || math.Abs(want[j].Score-want[j+1].Score) < 1e-12 ||
						j > 0 && math.Abs(want[j].Score-want[j-1].Score) < 1e-12
					if math.Abs(got[j].Score-want[j].Score) > 1e-9 || got[j].ID != want[j].ID && !tied ||
						strings.TrimSuffix(got[j].ID, "#0") != got[j].Meta.MessageID {
						t.Fatalf("%q in %s, alpha %.1f, filter %+v: hit %d is %s %.12f, want %s %.12f", text, res, alpha, q.Filter,
							j, got[j].ID, got[j].Score, want[j].ID, want[j].Score)
					}
				}
				compared += len(got)
			}
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d hits compared", compared)
	}
}
