package weaviate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// Query returns the TopK (DefaultTopK when <= 0) best hits in the tenant of
// q.Filter.ResourceID, narrowed to q.Filter.ThreadID when set. Modes:
// SearchVector (nearText when self-embedding, else nearVector; score =
// 1 - distance, the cosine similarity), SearchBM25 (score = BM25 of
// q.Keywords on "keywords") and SearchHybrid (relativeScoreFusion with
// q.Alpha of both; score in [0,1]; with 0 < q.Alpha < 1 its keyword side
// leaves out the terms common in the tenant, vector.KeywordTerms, estimated
// from a cached sample of its records (sample.go); pure vector when no
// keyword is left). Hits scoring
// below a non-zero q.MinScore are dropped.
func (s *Store) Query(ctx context.Context, index string, q vector.Query) ([]vector.Hit, error) {
	const op = "Query"
	p, err := s.plan(q)
	if err != nil || p.nothing {
		return nil, err
	}
	class, tenant := s.ClassName(index), TenantName(q.Filter.ResourceID)
	if ok, err := s.queryable(ctx, index, class, tenant, q.Filter.ResourceID); !ok || err != nil {
		return nil, err
	}
	if !q.Filter.Metadata.IsZero() {
		if p.meta, err = s.metaWhere(ctx, class, q.Filter.Metadata, nil); err != nil {
			return nil, err
		}
	}
	if p.mode == vector.SearchHybrid && q.Alpha > 0 && q.Alpha < 1 {
		if p.keywords = s.keywordSide(ctx, class, tenant, p.keywords); p.keywords == "" {
			p.mode = vector.SearchVector // every term is common: the keyword side adds nothing worth its cost
		}
	}
	resp, err := s.run(ctx, class, tenant, q, p)
	if err != nil && strings.Contains(err.Error(), "tenant not found") {
		s.forgetTenant(class, tenant) // deleted meanwhile, e.g. by another process
		return nil, nil
	}
	if err != nil {
		return nil, vector.Fail("weaviate."+op, p.mode+" query on "+class, err)
	}
	return parseHits(resp, class, p.mode, q.MinScore)
}

// unbucketedWait is how long a query waits for a shard to create the
// index bucket of a metadata property just added to the class.
const unbucketedWait = time.Second

// run sends the plan's query, with q's metadata filter. A filter on a
// property the tenant's shard has no index bucket for fails on the server:
// a property just added to the class gets its bucket moments later, so
// the query waits for it a while; after that no record of the tenant holds
// a value of the property, and the filter is rebuilt with its leaves
// matching none.
func (s *Store) run(ctx context.Context, class, tenant string, q vector.Query, p queryPlan) (*models.GraphQLResponse, error) {
	var resp *models.GraphQLResponse
	absent, wait, waited := map[string]bool{}, 25*time.Millisecond, time.Duration(0)
	for {
		err := retryRetiring(ctx, func() (err error) {
			if resp, err = s.search(class, tenant, q, p).Do(ctx); err == nil {
				err = gqlErrors(resp)
			}
			return err
		})
		prop := unbucketed(err)
		if prop == "" || absent[prop] || q.Filter.Metadata.IsZero() {
			return resp, err
		}
		if waited < unbucketedWait {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(wait):
			}
			waited, wait = waited+wait, 2*wait
			continue
		}
		absent[prop] = true
		if p.meta, err = s.metaWhere(ctx, class, q.Filter.Metadata, absent); err != nil {
			return nil, err
		}
	}
}

// queryPlan is what a query searches with.
type queryPlan struct {
	mode     string
	text     string // the query text as GraphQL takes it
	keywords string // the keyword side's terms
	nothing  bool   // nothing can match: no query runs

	meta *filters.WhereBuilder // the metadata filter (metafilter.go)
}

// plan checks q and chooses its mode and terms: a hybrid query without a
// keyword is a vector query; a BM25 query without a keyword, or a
// self-embedded vector query without text, matches nothing.
func (s *Store) plan(q vector.Query) (queryPlan, error) {
	const op = "Query"
	mode, _, _ := q.ResolveMode() // checked by vector.Checked
	p := queryPlan{mode: mode, text: gqlText(q.Text)}
	if !gqlSafe(q.Filter.ThreadID) {
		return queryPlan{}, vector.Fail("weaviate."+op, "thread id contains control characters", nil)
	}
	p.keywords = gqlText(q.Keywords)
	if q.Keywords == "" {
		p.keywords = analysis.Plain.Analyze(p.text)
	}
	if p.mode == vector.SearchHybrid && p.keywords == "" {
		p.mode = vector.SearchVector // no term to match: the keyword side adds nothing
	}
	p.nothing = p.mode == vector.SearchBM25 && p.keywords == "" ||
		s.SelfEmbedding() && p.mode == vector.SearchVector && strings.TrimSpace(p.text) == ""
	return p, nil
}

// queryable reports whether the tenant exists and its records are of this
// version; a missing tenant has no hits, a missing class is an error.
func (s *Store) queryable(ctx context.Context, index, class, tenant, resourceID string) (bool, error) {
	const op = "Query"
	ok, err := s.tenantExists(ctx, class, tenant)
	if err != nil {
		return false, vector.Fail("weaviate."+op, "tenant lookup", err)
	}
	if !ok {
		if exists, _ := s.classExists(ctx, class); !exists {
			return false, vector.Fail("weaviate."+op, "index "+index+" (class "+class+") does not exist", nil)
		}
		return false, nil
	}
	if _, err := s.checkVersion(ctx, op, class, tenant, resourceID); err != nil {
		return false, err
	}
	return true, nil
}

// search builds the GraphQL Get of the plan's mode, narrowed to the thread
// when q names one.
func (s *Store) search(class, tenant string, q vector.Query, p queryPlan) *graphql.GetBuilder {
	k := q.TopK
	if k <= 0 {
		k = DefaultTopK
	}
	gql := s.client.GraphQL()
	get := gql.Get().WithClassName(class).WithTenant(tenant).WithLimit(k).
		WithConsistencyLevel(s.queryConsistency(class)).WithFields(
		graphql.Field{Name: propRecordID}, graphql.Field{Name: propMessageID}, graphql.Field{Name: propThreadID},
		graphql.Field{Name: propResourceID}, graphql.Field{Name: propRole}, graphql.Field{Name: propCreatedAt},
		graphql.Field{Name: propMetaJSON},
		graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "distance"}, {Name: "score"}}})
	if w := scopeWhere(q.Filter.ThreadID, p.meta); w != nil {
		get = get.WithWhere(w)
	}
	switch {
	case p.mode == vector.SearchBM25:
		return get.WithBM25(gql.Bm25ArgBuilder().WithQuery(p.keywords).WithProperties(propKeywords))
	case p.mode == vector.SearchHybrid:
		// The keyword side matches the analyzed keywords; the vector side
		// embeds the raw text (self-embedding) or takes the query vector.
		h := gql.HybridArgumentBuilder().WithQuery(p.keywords).WithAlpha(float32(q.Alpha)).
			WithProperties([]string{propKeywords}).WithFusionType(graphql.RelativeScore)
		switch {
		case s.SelfEmbedding():
			h = h.WithSearches(gql.HybridSearchesArgumentBuilder().WithNearText(gql.NearTextArgBuilder().WithConcepts([]string{p.text})))
		case len(q.Vector) > 0:
			h = h.WithVector(q.Vector)
		}
		return get.WithHybrid(h)
	case s.SelfEmbedding():
		return get.WithNearText(gql.NearTextArgBuilder().WithConcepts([]string{p.text}))
	}
	return get.WithNearVector(gql.NearVectorArgBuilder().WithVector(q.Vector))
}

// gqlErrors returns the GraphQL errors of resp, which come with HTTP 200.
func gqlErrors(resp *models.GraphQLResponse) error {
	if resp == nil {
		return errors.New("empty GraphQL response")
	}
	if len(resp.Errors) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(resp.Errors))
	for _, e := range resp.Errors {
		if e != nil {
			msgs = append(msgs, e.Message)
		}
	}
	return fmt.Errorf("graphql: %s", strings.Join(msgs, "; "))
}

func parseHits(resp *models.GraphQLResponse, class, mode string, minScore float64) ([]vector.Hit, error) {
	get, _ := resp.Data["Get"].(map[string]any)
	rows, _ := get[class].([]any)
	hits := make([]vector.Hit, 0, len(rows))
	for _, row := range rows {
		m, _ := row.(map[string]any)
		add, _ := m["_additional"].(map[string]any)
		var score float64
		if mode == vector.SearchVector {
			d, ok := number(add["distance"])
			if !ok {
				return nil, vector.Fail("weaviate.Query", "result without distance", nil)
			}
			score = 1 - d
		} else {
			var ok bool
			if score, ok = number(add["score"]); !ok {
				return nil, vector.Fail("weaviate.Query", "result without score", nil)
			}
		}
		if minScore != 0 && score < minScore {
			continue
		}
		str := func(k string) string { v, _ := m[k].(string); return v }
		at, _ := time.Parse(time.RFC3339Nano, str(propCreatedAt))
		hits = append(hits, vector.Hit{ID: str(propRecordID), Score: score, Meta: vector.Meta{
			MessageID: str(propMessageID), ThreadID: str(propThreadID), ResourceID: str(propResourceID),
			Role: message.Role(str(propRole)), CreatedAt: at, Metadata: metaHit(m[propMetaJSON])}})
	}
	return hits, nil
}

// number reads a JSON number or a numeric string (hybrid/bm25 scores are strings).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// gqlSafe reports whether the client's Go-quoted rendering of s is a valid
// GraphQL string (no \x, \U, \a or \v escapes).
func gqlSafe(s string) bool { return gqlText(s) == s }

// gqlText replaces what cannot be quoted into GraphQL by the client with spaces.
func gqlText(s string) string {
	s = strings.ToValidUTF8(s, " ")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' || r == '\b' || r == '\f' {
			return r
		}
		q := strconv.QuoteRune(r)
		if strings.Contains(q, `\x`) || strings.Contains(q, `\U`) || strings.Contains(q, `\a`) ||
			strings.Contains(q, `\v`) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
}
