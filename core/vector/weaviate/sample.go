package weaviate

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/internal/termsample"
)

// The common-term rule of hybrid queries (vector.KeywordTerms) needs each
// query term's share of the tenant's records. Weaviate 1.35.2 has no cheap
// count of the records holding a term: an Aggregate with a where filter reads
// every matching object (2 s for a term in 70k of 100k records,
// BENCHMARKS.md), and BM25 reads the term's whole posting list, which is
// what the rule avoids. So the store estimates shares from a sample of the
// tenant's records: the first sampleSize by object id, which is a hash of
// the record id, so they are a uniform random sample; a tenant of at most
// sampleSize records is read whole and its shares are exact. A sample is
// kept per tenant and read again once it is sampleTTL old, once this store
// has written a tenth of its size into the tenant, or after a delete.
const (
	sampleSize = 500
	sampleTTL  = time.Minute
	// maxSamples bounds the cached samples; a full cache is emptied.
	maxSamples = 4096
)

// keywordSide applies vector.KeywordTerms to a hybrid query's keywords in a
// tenant: it returns the keywords without the terms common in the tenant's
// sample, "" when every term is common. When the sample cannot be read the
// keywords stay whole: the rule saves time, it must not fail a query.
func (s *Store) keywordSide(ctx context.Context, class, tenant, keywords string) string {
	ts, err := s.sample(ctx, class, tenant)
	if err != nil {
		return keywords
	}
	kept := vector.KeywordTerms(distinctTerms(keywords), func(t string) int { return ts.DF[t] }, ts.N)
	return strings.Join(kept, " ")
}

// sample returns the tenant's term sample, read again when stale.
func (s *Store) sample(ctx context.Context, class, tenant string) (*termsample.Sample, error) {
	return s.samples.Get(class+"/"+tenant, func() (*termsample.Sample, error) { return s.readSample(ctx, class, tenant) })
}

// readSample reads the keywords of the tenant's first sampleSize records by
// object id, in one GraphQL request (a cursor listing, no search).
func (s *Store) readSample(ctx context.Context, class, tenant string) (*termsample.Sample, error) {
	level := ""
	if l := s.queryConsistency(class); l != "" {
		level = ", consistencyLevel:" + l
	}
	q := fmt.Sprintf(`{ Get { %s(tenant:%s, limit:%d, after:"00000000-0000-0000-0000-000000000000"%s) { %s _additional { id } } } }`,
		class, strconv.Quote(tenant), sampleSize, level, propKeywords)
	resp, err := s.client.GraphQL().Raw().WithQuery(q).Do(ctx)
	if err == nil {
		err = gqlErrors(resp)
	}
	if err != nil {
		return nil, err
	}
	get, _ := resp.Data["Get"].(map[string]any)
	rows, _ := get[class].([]any)
	ts := &termsample.Sample{DF: map[string]int{}}
	marker := ObjectID(markerRecordID)
	for _, row := range rows {
		m, _ := row.(map[string]any)
		if add, _ := m["_additional"].(map[string]any); add["id"] == marker {
			continue
		}
		ts.N++
		kw, _ := m[propKeywords].(string)
		for _, t := range distinctTerms(kw) {
			ts.DF[t]++
		}
	}
	return ts, nil
}

// noteWrites counts n records written into a tenant against its sample.
func (s *Store) noteWrites(class, tenant string, n int) { s.samples.Written(class+"/"+tenant, n) }

// forgetSample drops a tenant's sample, so the next hybrid query reads it
// again.
func (s *Store) forgetSample(class, tenant string) { s.samples.Forget(class + "/" + tenant) }

// distinctTerms returns the distinct whitespace-separated terms of keywords,
// in order (what the keywords property's whitespace tokenization makes).
func distinctTerms(keywords string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range strings.Fields(keywords) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
