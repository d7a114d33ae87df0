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
	if q.Filter.ResourceID == "" {
		return nil, missingResource(op)
	}
	mode := q.Mode
	if mode == "" {
		mode = vector.SearchVector
	}
	text := gqlText(q.Text)
	switch {
	case mode != vector.SearchVector && mode != vector.SearchBM25 && mode != vector.SearchHybrid:
		return nil, vecErr(op, "unknown search mode "+strconv.Quote(mode), nil)
	case mode == vector.SearchHybrid && (q.Alpha < 0 || q.Alpha > 1):
		return nil, vecErr(op, "hybrid alpha must be within [0,1]", nil)
	case !s.SelfEmbedding() && len(q.Vector) == 0 && (mode == vector.SearchVector || mode == vector.SearchHybrid && q.Alpha > 0):
		return nil, vecErr(op, "query vector is required for mode "+mode+" (vectorizer none)", nil)
	case !gqlSafe(q.Filter.ThreadID):
		return nil, vecErr(op, "thread id contains control characters", nil)
	}
	keywords := gqlText(q.Keywords)
	if q.Keywords == "" {
		keywords = analysis.Plain.Analyze(text)
	}
	if mode == vector.SearchHybrid && keywords == "" {
		mode = vector.SearchVector // no term to match: the keyword side adds nothing
	}
	if mode == vector.SearchBM25 && keywords == "" || s.SelfEmbedding() && mode == vector.SearchVector && strings.TrimSpace(text) == "" {
		return nil, nil
	}
	class, tenant := s.ClassName(index), TenantName(q.Filter.ResourceID)
	ok, err := s.tenantExists(ctx, class, tenant)
	if err != nil {
		return nil, vecErr(op, "tenant lookup", err)
	}
	if !ok {
		if exists, _ := s.classExists(ctx, class); !exists {
			return nil, vecErr(op, "index "+index+" (class "+class+") does not exist", nil)
		}
		return nil, nil
	}
	if _, err := s.checkVersion(ctx, op, class, tenant, q.Filter.ResourceID); err != nil {
		return nil, err
	}
	if mode == vector.SearchHybrid && q.Alpha > 0 && q.Alpha < 1 {
		if keywords = s.keywordSide(ctx, class, tenant, keywords); keywords == "" {
			mode = vector.SearchVector // every term is common: the keyword side adds nothing worth its cost
		}
	}
	k := q.TopK
	if k <= 0 {
		k = DefaultTopK
	}
	gql := s.client.GraphQL()
	get := gql.Get().WithClassName(class).WithTenant(tenant).WithLimit(k).WithFields(
		graphql.Field{Name: propRecordID}, graphql.Field{Name: propMessageID}, graphql.Field{Name: propThreadID},
		graphql.Field{Name: propResourceID}, graphql.Field{Name: propRole}, graphql.Field{Name: propCreatedAt},
		graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "distance"}, {Name: "score"}}})
	if q.Filter.ThreadID != "" {
		get = get.WithWhere(filters.Where().WithPath([]string{propThreadID}).WithOperator(filters.Equal).WithValueText(q.Filter.ThreadID))
	}
	switch {
	case mode == vector.SearchBM25:
		get = get.WithBM25(gql.Bm25ArgBuilder().WithQuery(keywords).WithProperties(propKeywords))
	case mode == vector.SearchHybrid:
		// The keyword side matches the analyzed keywords; the vector side
		// embeds the raw text (self-embedding) or takes the query vector.
		h := gql.HybridArgumentBuilder().WithQuery(keywords).WithAlpha(float32(q.Alpha)).
			WithProperties([]string{propKeywords}).WithFusionType(graphql.RelativeScore)
		switch {
		case s.SelfEmbedding():
			h = h.WithSearches(gql.HybridSearchesArgumentBuilder().WithNearText(gql.NearTextArgBuilder().WithConcepts([]string{text})))
		case len(q.Vector) > 0:
			h = h.WithVector(q.Vector)
		}
		get = get.WithHybrid(h)
	case s.SelfEmbedding():
		get = get.WithNearText(gql.NearTextArgBuilder().WithConcepts([]string{text}))
	default:
		get = get.WithNearVector(gql.NearVectorArgBuilder().WithVector(q.Vector))
	}
	resp, err := get.Do(ctx)
	if err == nil {
		err = gqlErrors(resp)
	}
	if err != nil && strings.Contains(err.Error(), "tenant not found") {
		s.forgetTenant(class, tenant) // deleted meanwhile, e.g. by another process
		return nil, nil
	}
	if err != nil {
		return nil, vecErr(op, mode+" query on "+class, err)
	}
	return parseHits(resp, class, mode, q.MinScore)
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
				return nil, vecErr("Query", "result without distance", nil)
			}
			score = 1 - d
		} else {
			var ok bool
			if score, ok = number(add["score"]); !ok {
				return nil, vecErr("Query", "result without score", nil)
			}
		}
		if minScore != 0 && score < minScore {
			continue
		}
		str := func(k string) string { v, _ := m[k].(string); return v }
		at, _ := time.Parse(time.RFC3339Nano, str(propCreatedAt))
		hits = append(hits, vector.Hit{ID: str(propRecordID), Score: score, Meta: vector.Meta{
			MessageID: str(propMessageID), ThreadID: str(propThreadID), ResourceID: str(propResourceID),
			Role: message.Role(str(propRole)), CreatedAt: at}})
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
