package vector_test

import (
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
)

func TestKeywordTerms(t *testing.T) {
	share := vector.CommonTermShare
	cases := []struct {
		name  string
		terms []string
		df    map[string]int
		n     int
		want  []string
	}{
		{"no terms", nil, nil, 100, []string{}},
		{"rare terms kept in order", []string{"peanut", "allergi"}, map[string]int{"peanut": 3, "allergi": 1}, 100,
			[]string{"peanut", "allergi"}},
		{"common term dropped", []string{"caroline", "paint"}, map[string]int{"caroline": 60, "paint": 4}, 100,
			[]string{"paint"}},
		{"every term common", []string{"budget", "plan"}, map[string]int{"budget": 71, "plan": 70}, 100, []string{}},
		{"at the share kept", []string{"x"}, map[string]int{"x": int(share * 1000)}, 1000, []string{"x"}},
		{"one above the share dropped", []string{"x"}, map[string]int{"x": int(share*1000) + 1}, 1000, []string{}},
		{"absent term kept", []string{"zebra", "the", "cat"}, map[string]int{"the": 90, "cat": 2}, 100, []string{"zebra", "cat"}},
		{"one record holding the term", []string{"only"}, map[string]int{"only": 1}, 1, []string{}},
		{"empty resource", []string{"x"}, map[string]int{}, 0, []string{"x"}},
	}
	for _, c := range cases {
		got := vector.KeywordTerms(c.terms, func(s string) int { return c.df[s] }, c.n)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: KeywordTerms(%v, %v, %d) = %v, want %v", c.name, c.terms, c.df, c.n, got, c.want)
		}
	}
}
