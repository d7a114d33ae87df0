package weaviate

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/core/vector"
)

// recordsLayout names how this store lays out a record's object beyond what
// IndexSpec.Version covers; it is part of the version a tenant records, so a
// tenant written with another layout reports memerr.ErrIndexVersionMismatch
// until it is reindexed. "terms": objects carry the terms property.
const recordsLayout = "weaviate/terms"

// storedVersion is the version a tenant records for an index ensured with
// IndexSpec.Version v.
func storedVersion(v string) string { return v + ";" + recordsLayout }

// distinctTerms returns the distinct whitespace-separated terms of keywords,
// in order: what the terms property holds and what a keyword query counts.
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

// keywordSide applies vector.KeywordTerms to a hybrid query's keywords in a
// tenant: it returns the keywords without the absent and common terms, ""
// when none is left. The document frequencies come from one Aggregate
// request (termCounts). The keywords stay whole where the counts are not
// known to be right: for a class not ensured in this process (its tenants'
// versions are not checked, so their records may predate the terms
// property) and when the request fails; the rule saves time, it must not
// lose a term that matches.
func (s *Store) keywordSide(ctx context.Context, class, tenant, keywords string) string {
	if _, ensured := s.indexVersion(class); !ensured {
		return keywords
	}
	terms := distinctTerms(keywords)
	df, n, err := s.termCounts(ctx, class, tenant, terms)
	if err != nil {
		return keywords
	}
	return strings.Join(vector.KeywordTerms(terms, func(t string) int { return df[t] }, n), " ")
}

// termCounts returns, for each of terms, the number of records of the tenant
// holding it (by the filterable terms property), and the number of records,
// in one GraphQL request: an Aggregate count per term, each under its own
// alias, and the tenant's count less its version marker. Each count is the
// cardinality of one bitmap of the filterable index, so the request costs
// about the same at any document frequency.
func (s *Store) termCounts(ctx context.Context, class, tenant string, terms []string) (map[string]int, int, error) {
	in := fmt.Sprintf("tenant:%s", strconv.Quote(tenant))
	count := func(alias, where string) string {
		if where != "" {
			where = ", where:" + where
		}
		return fmt.Sprintf("%s: %s(%s%s) { meta { count } } ", alias, class, in, where)
	}
	var q strings.Builder
	q.WriteString("{ Aggregate { ")
	q.WriteString(count("n", ""))
	q.WriteString(count("m", fmt.Sprintf(`{path:["id"], operator:Equal, valueText:%s}`, strconv.Quote(ObjectID(markerRecordID)))))
	for i, t := range terms {
		q.WriteString(count("t"+strconv.Itoa(i), fmt.Sprintf(`{path:[%q], operator:Equal, valueText:%s}`, propTerms, strconv.Quote(t))))
	}
	q.WriteString("} }")
	resp, err := s.client.GraphQL().Raw().WithQuery(q.String()).Do(ctx)
	if err == nil {
		err = gqlErrors(resp)
	}
	if err != nil {
		return nil, 0, err
	}
	agg, _ := resp.Data["Aggregate"].(map[string]any)
	read := func(alias string) (int, error) {
		rows, _ := agg[alias].([]any)
		if len(rows) != 1 {
			return 0, fmt.Errorf("aggregate %s: %d rows", alias, len(rows))
		}
		row, _ := rows[0].(map[string]any)
		meta, _ := row["meta"].(map[string]any)
		c, ok := number(meta["count"])
		if !ok {
			return 0, fmt.Errorf("aggregate %s: no count", alias)
		}
		return int(c), nil
	}
	all, err := read("n")
	if err != nil {
		return nil, 0, err
	}
	marker, err := read("m")
	if err != nil {
		return nil, 0, err
	}
	df := make(map[string]int, len(terms))
	for i, t := range terms {
		if df[t], err = read("t" + strconv.Itoa(i)); err != nil {
			return nil, 0, err
		}
	}
	return df, all - marker, nil
}
