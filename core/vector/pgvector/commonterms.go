package pgvector

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/core/vector/internal/termsample"

	"github.com/jackc/pgx/v5"
)

// The common-term rule of hybrid queries (vector.KeywordTerms) needs each
// query term's share of the resource's records. Counting a common term's
// records reads most of the resource, which is what the rule avoids, and
// reading a sample on every query costs more than the vector search (1.5
// ms for 1,000 records, docs/benchmarks/pgvector.md). So the store keeps,
// per index and resource, how many of a sample of the resource's records
// hold each term: its first sampleSize records by id (exact for a resource
// of at most sampleSize records), as the Weaviate store does. A sample is
// read again once it is sampleTTL old, once this store has written a tenth
// of its size into the resource, or after a delete; writes of other
// processes are seen within sampleTTL. Only the choice of terms uses the
// sample: their BM25 document frequencies are counted by the query.
const (
	sampleSize = 1000
	sampleTTL  = time.Minute
	// maxSamples bounds the cached samples; a full cache is emptied.
	maxSamples = 4096
)

func sampleKey(table, resource string) string { return table + "\x00" + resource }

// sample returns the resource's term sample, read again when stale.
func (s *Store) sample(ctx context.Context, m meta, resource string) (*termsample.Sample, error) {
	return s.samples.Get(sampleKey(m.table, resource), func() (*termsample.Sample, error) {
		ts := &termsample.Sample{DF: map[string]int{}}
		rows, err := s.pool.Query(ctx, `WITH s AS MATERIALIZED (SELECT keywords FROM `+s.qtable(m.tableInfo)+` WHERE resource_id = $1 LIMIT $2)
SELECT x.lexeme, count(*) FROM s, unnest(s.keywords) AS x GROUP BY x.lexeme
UNION ALL SELECT NULL, count(*) FROM s`, resource, sampleSize)
		if err != nil {
			return nil, err
		}
		var lex *string
		var c int
		if _, err := pgx.ForEachRow(rows, []any{&lex, &c}, func() error {
			if lex == nil {
				ts.N = c
			} else {
				ts.DF[*lex] = c
			}
			return nil
		}); err != nil {
			return nil, err
		}
		return ts, nil
	})
}

// noteWrites counts records written into resources against their samples;
// a nil count forgets the resource's sample (after a delete).
func (s *Store) noteWrites(table string, resources []string, counts []int64) {
	for i, r := range resources {
		if counts == nil {
			s.samples.Forget(sampleKey(table, r))
		} else {
			s.samples.Written(sampleKey(table, r), int(counts[i]))
		}
	}
}
