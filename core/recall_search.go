package core

import (
	"context"
	"slices"
	"sort"

	"github.com/agentmem/agentmem/core/internal/rerank"
	"github.com/agentmem/agentmem/core/internal/retrieval"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// semanticQuery is the recall query for text with st's settings: the scope
// of th, TopK, diversity, mode and, when windows is set, the context
// windows (SemanticRecall.MessageRange). Callers add their own conditions
// (searchQuery.filter.Metadata, keep, exclude); searchMessages adds the
// configured SemanticRecall.Filter to them.
func (m *Memory) semanticQuery(st settings, th Thread, resourceID, text string, windows bool) (searchQuery, error) {
	if st.recall.Scope == ScopeResource && resourceID == "" {
		return searchQuery{}, &Error{Code: CodeMissingResourceID, Op: "Recall",
			Msg: "Memory error: Resource-scoped semantic recall is enabled but no resourceId was provided. Either provide a resourceId or explicitly set semanticRecall.scope to 'thread'."}
	}
	sq := searchQuery{text: text, filter: vector.Filter{ResourceID: th.ResourceID}, topK: st.recall.TopK, diversity: st.recall.Diversity}
	if st.recall.Scope == ScopeThread {
		sq.filter.ThreadID = th.ID
	}
	if windows {
		sq.window = st.recall.MessageRange
	}
	sq.mode, sq.alpha = m.searchMode(st.recall)
	return sq, nil
}

// includes returns the include windows of hits in st's MessageRange.
func includes(st settings, hits []searchHit) []store.Include {
	if len(hits) == 0 {
		return nil
	}
	out := make([]store.Include, len(hits))
	r := st.recall.MessageRange
	for i, h := range hits {
		out[i] = store.Include{ID: h.msg.ID, Before: r.Before, After: r.After}
	}
	return out
}

// searchQuery is one search of the message index.
type searchQuery struct {
	text string
	// filter has ResourceID set; its Metadata is the caller's own metadata
	// condition, which searchMessages AND-s with the configured
	// SemanticRecall.Filter: no search is ever run without the latter.
	filter     vector.Filter
	topK       int
	mode       string
	alpha      float64
	exclude    []string            // texts a hit must not repeat
	keep       func(*Message) bool // nil keeps every message; see keepOnly
	diversity  *Diversity          // nil: relevance order
	candidates int                 // hits to fetch; 0 derives it from topK
	// window is the context each hit is read with (searchHit.window), in
	// the same read as the hits themselves.
	window *MessageRange // nil: hits alone
}

// keepOnly keeps the hits keep accepts, fetching more candidates so that
// those it drops after the search do not leave the result short.
func (sq *searchQuery) keepOnly(keep func(*Message) bool) {
	sq.keep = keep
	sq.candidates = min(max(10*sq.topK, 50), retrieval.MaxCandidates)
}

// searchHit is a stored message found by a search and its score.
type searchHit struct {
	msg   Message
	score float64
	// window is msg with the messages around it (searchQuery.window),
	// chronological.
	window []Message
}

// searchMessages queries the index, loads the messages hit, drops those
// failing keep or the metadata filter (the configured SemanticRecall.Filter
// AND the caller's, checked again on the stored message, since a vector's
// copy of the metadata can lag it), repeating an earlier hit or one of
// exclude, or gone from the store, and returns up to topK of them, best
// first (or in MMR order with diversity). More candidates than topK are
// fetched so that dropped hits do not leave the result short.
func (m *Memory) searchMessages(ctx context.Context, s *store.Checked, st settings, th Thread, sq searchQuery) ([]searchHit, error) {
	cand := sq.candidates
	if cand == 0 {
		cand = max(3*sq.topK, sq.topK+5)
		if sq.diversity != nil {
			cand = max(cand, sq.diversity.Candidates)
		}
	}
	md := message.And(st.recall.Filter, sq.filter.Metadata)
	q := vector.Query{Text: sq.text, Keywords: m.ix.Analyzer.Analyze(sq.text), TopK: cand, MinScore: st.recall.Threshold,
		Filter: sq.filter, Mode: sq.mode, Alpha: sq.alpha}
	q.Filter.Metadata = md
	var vecs [][]float32
	dim, err := m.dimension(ctx)
	if err == nil && q.Mode != vector.SearchBM25 {
		vecs, dim, err = m.embed(ctx, []string{sq.text})
	}
	if err != nil {
		return nil, err
	}
	if vecs != nil {
		q.Vector = vecs[0]
	}
	name, err := m.ensureIndex(ctx, st, dim)
	if err == nil {
		err = m.checkDimension(ctx, name, sq.filter.ResourceID)
	}
	if err != nil {
		return nil, err
	}
	hits, err := m.queryVector(ctx, name, q, sq)
	if err != nil {
		return nil, memerr.WrapVector("Query", "semantic recall query failed", err)
	}
	var cands []searchHit
	seen := map[string]bool{}
	var inc []store.Include
	for _, h := range hits {
		if h.Meta.ResourceID != sq.filter.ResourceID || seen[h.Meta.MessageID] || (st.recall.Threshold > 0 && h.Score < st.recall.Threshold) {
			continue
		}
		seen[h.Meta.MessageID] = true
		cands = append(cands, searchHit{msg: Message{ID: h.Meta.MessageID}, score: h.Score})
		i := store.Include{ID: h.Meta.MessageID}
		if sq.window != nil {
			i.Before, i.After = sq.window.Before, sq.window.After
		}
		inc = append(inc, i)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: th.ID, ResourceID: sq.filter.ResourceID, Include: inc})
	if err != nil {
		return nil, err
	}
	m.reportSkipped(ctx, page.Included)
	byID := make(map[string]Message, len(page.Included))
	for _, msg := range page.Included {
		byID[msg.ID] = msg
	}
	var texts []string
	found := cands[:0]
	for _, c := range cands {
		msg, ok := byID[c.msg.ID]
		if !ok || msg.ResourceID != sq.filter.ResourceID || !md.Match(msg.Content.Metadata) || (sq.keep != nil && !sq.keep(&msg)) {
			continue
		}
		c.msg = msg
		found = append(found, c)
		texts = append(texts, m.ix.MessageText(&msg))
	}
	keep := rerank.Dedupe(texts, sq.exclude)
	uniq := make([]searchHit, len(keep))
	utexts := make([]string, len(keep))
	for i, k := range keep {
		uniq[i], utexts[i] = found[k], texts[k]
	}
	out := uniq[:min(sq.topK, len(uniq))]
	if sq.diversity != nil && len(uniq) > 1 {
		order, err := m.diversify(ctx, uniq, utexts, sq.topK, *sq.diversity.Lambda)
		if err != nil {
			return nil, err
		}
		out = make([]searchHit, len(order))
		for i, k := range order {
			out[i] = uniq[k]
		}
	}
	if sq.window != nil {
		setWindows(out, page.Included, *sq.window, md)
	}
	return out, nil
}

// setWindows cuts each hit's window out of read, the chronological union of
// the windows of a superset of hits: within a thread, the messages of read
// nearest a hit are the ones nearest it in the thread, since read holds the
// hit's whole window. A neighbour that md excludes is left out of the
// window (which then holds fewer messages): the filter is what keeps a
// message out of recall, and context is recall too.
func setWindows(hits []searchHit, read []Message, r MessageRange, md message.Filter) {
	byThread := map[string][]Message{}
	for _, msg := range read {
		byThread[msg.ThreadID] = append(byThread[msg.ThreadID], msg)
	}
	for i := range hits {
		list := byThread[hits[i].msg.ThreadID]
		at := slices.IndexFunc(list, func(msg Message) bool { return msg.ID == hits[i].msg.ID })
		if at < 0 {
			continue
		}
		for _, msg := range list[max(at-r.Before, 0):min(at+1+r.After, len(list))] {
			if msg.ID == hits[i].msg.ID || md.Match(msg.Content.Metadata) {
				hits[i].window = append(hits[i].window, msg)
			}
		}
	}
}

// diversify picks up to k of the hits by MMR. Similarity is the cosine of
// the texts' embeddings when the Memory embeds (one batch call), else the
// overlap of their words (self-embedding stores return no vectors).
// Relevance is the score relative to the best hit's.
func (m *Memory) diversify(ctx context.Context, hits []searchHit, texts []string, k int, lambda float64) ([]int, error) {
	rel := make([]float64, len(hits))
	top := hits[0].score
	for i, h := range hits {
		rel[i] = h.score / top
	}
	if top <= 0 {
		rel = rerank.RankRelevance(len(hits))
	}
	var sim func(i, j int) float64
	if m.opts.Vector.SelfEmbedding() || m.opts.Embedder == nil {
		keys := make([]string, len(texts))
		for i, t := range texts {
			keys[i] = rerank.Key(t)
		}
		sim = func(i, j int) float64 { return rerank.TermSimilarity(keys[i], keys[j]) }
	} else {
		vecs, _, err := m.embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		sim = func(i, j int) float64 { return rerank.Cosine(vecs[i], vecs[j]) }
	}
	return rerank.MMR(rel, sim, k, lambda), nil
}

// searchMode returns the query mode and hybrid alpha of r: its Mode, else
// hybrid when the vector store lists it (or Hybrid is set), else vector.
func (m *Memory) searchMode(r *SemanticRecall) (string, float64) {
	alpha := DefaultHybridAlpha
	if r.Hybrid != nil && r.Hybrid.Alpha != nil {
		alpha = *r.Hybrid.Alpha
	}
	switch {
	case r.Mode != "":
		return r.Mode, alpha
	case r.Hybrid != nil:
		return vector.SearchHybrid, alpha
	}
	if ml, ok := m.opts.Vector.(vector.ModeLister); ok && slices.Contains(ml.SearchModes(), vector.SearchHybrid) {
		return vector.SearchHybrid, alpha
	}
	return vector.SearchVector, alpha
}

// recalled returns the messages of the hits' windows, chronological and
// without those already in have, of another resource or system messages.
func (m *Memory) recalled(th Thread, hits []searchHit, have []Message) []Message {
	seen := make(map[string]bool, len(have))
	for _, h := range have {
		seen[h.ID] = true
	}
	var out []Message
	for _, h := range hits {
		for _, msg := range h.window {
			if !seen[msg.ID] && msg.ResourceID == th.ResourceID && msg.Role != RoleSystem {
				seen[msg.ID] = true
				m.ensureTokens(&msg)
				out = append(out, msg)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return message.Less(&out[i], &out[j]) })
	return out
}

// recallForTurn queries with the last user message of the input and returns
// the recalled messages of this thread (merged into history by the caller)
// and of other threads of the resource (rendered as one system message),
// and the include windows, most relevant first. Hits repeating a user
// message of the input are left out.
func (m *Memory) recallForTurn(ctx context.Context, s *store.Checked, st settings, th Thread, history, input []Message) (same, other []Message, inc []store.Include, err error) {
	query := ""
	for i := len(input) - 1; i >= 0 && query == ""; i-- {
		if input[i].Role == RoleUser {
			query = m.ix.MessageText(&input[i])
		}
	}
	if query == "" {
		return nil, nil, nil, nil
	}
	// A hit saying what the input says adds nothing beside it.
	var own []string
	for i := range input {
		if input[i].Role == RoleUser {
			own = append(own, m.ix.MessageText(&input[i]))
		}
	}
	sq, err := m.semanticQuery(st, th, th.ResourceID, query, true)
	if err != nil {
		return nil, nil, nil, err
	}
	sq.exclude = own
	found, err := m.searchMessages(ctx, s, st, th, sq)
	if err != nil {
		return nil, nil, nil, err
	}
	have := append(append([]Message(nil), history...), input...)
	for _, h := range m.recalled(th, found, have) {
		if h.ThreadID == th.ID {
			same = append(same, h)
		} else {
			other = append(other, h)
		}
	}
	return same, other, includes(st, found), nil
}
