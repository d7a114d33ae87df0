// Package rerank holds the mechanisms that shape a list of recall
// candidates before it is cut to TopK: collapsing repeated texts and a
// maximal-marginal-relevance (MMR) diversity re-rank.
package rerank

import (
	"strings"
	"unicode"
)

// NearDuplicate is the word-set Jaccard similarity at or above which two
// texts count as the same thing said twice. High, so that only restatements
// (a changed word or two in a long sentence) collapse, never two answers
// that share a topic.
const NearDuplicate = 0.85

// Key is the comparison form of a text: lowercased, punctuation dropped,
// runs of spaces collapsed. Texts with equal keys are identical for recall.
func Key(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		default:
			space = true
		}
	}
	return b.String()
}

// Same reports whether a and b (made by Key) are identical or near-identical.
func Same(a, b string) bool {
	if a == b {
		return true
	}
	wa, wb := strings.Fields(a), strings.Fields(b)
	// Short texts ("ok", "thanks so much") differ by one word yet mean
	// different things often enough; only exact keys collapse them.
	if len(wa) < 5 || len(wb) < 5 {
		return false
	}
	return jaccard(wa, wb) >= NearDuplicate
}

func jaccard(a, b []string) float64 {
	set := make(map[string]uint8, len(a)+len(b))
	for _, w := range a {
		set[w] |= 1
	}
	for _, w := range b {
		set[w] |= 2
	}
	both := 0
	for _, v := range set {
		if v == 3 {
			both++
		}
	}
	return float64(both) / float64(len(set))
}

// Dedupe returns the indexes of texts to keep, in order: a text is dropped
// when it is the same (see Same) as an earlier kept text or as one of
// exclude. Texts whose key is empty (no words: a bare image, a tool call)
// are kept, since their meaning is not in the text.
func Dedupe(texts, exclude []string) []int {
	var ex []string
	for _, e := range exclude {
		if k := Key(e); k != "" {
			ex = append(ex, k)
		}
	}
	var keep []int
	var kept []string
	for i, t := range texts {
		k := Key(t)
		if k != "" && (sameAny(k, ex) || sameAny(k, kept)) {
			continue
		}
		keep = append(keep, i)
		if k != "" {
			kept = append(kept, k)
		}
	}
	return keep
}

func sameAny(k string, ks []string) bool {
	for _, o := range ks {
		if Same(k, o) {
			return true
		}
	}
	return false
}

func fields(s string) []string { return strings.Fields(s) }
