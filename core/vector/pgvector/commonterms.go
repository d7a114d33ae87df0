package pgvector

import (
	"context"
	"time"

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

// termSample is a resource's sample: how many of its records hold each term.
type termSample struct {
	df      map[string]int
	n       int // records in the sample
	at      time.Time
	written int // records this store wrote into the resource since
}

// stale reports whether the sample must be read again.
func (ts *termSample) stale(now time.Time) bool {
	return now.Sub(ts.at) > sampleTTL || ts.written > 0 && ts.written*10 >= max(ts.n, 1)
}

func sampleKey(table, resource string) string { return table + "\x00" + resource }

// sample returns the resource's term sample, read again when stale.
func (s *Store) sample(ctx context.Context, m meta, resource string) (*termSample, error) {
	key, now := sampleKey(m.table, resource), time.Now()
	s.samples.mu.Lock()
	ts := s.samples.m[key]
	fresh := ts != nil && !ts.stale(now)
	s.samples.mu.Unlock()
	if fresh {
		return ts, nil
	}
	ts = &termSample{df: map[string]int{}, at: now}
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
			ts.n = c
		} else {
			ts.df[*lex] = c
		}
		return nil
	}); err != nil {
		return nil, err
	}
	s.samples.mu.Lock()
	if s.samples.m == nil || len(s.samples.m) >= maxSamples {
		s.samples.m = map[string]*termSample{}
	}
	s.samples.m[key] = ts
	s.samples.mu.Unlock()
	return ts, nil
}

// noteWrites counts records written into resources against their samples;
// a nil count forgets the resource's sample (after a delete).
func (s *Store) noteWrites(table string, resources []string, counts []int64) {
	s.samples.mu.Lock()
	defer s.samples.mu.Unlock()
	for i, r := range resources {
		key := sampleKey(table, r)
		if counts == nil {
			delete(s.samples.m, key)
		} else if ts := s.samples.m[key]; ts != nil {
			ts.written += int(counts[i])
		}
	}
}
