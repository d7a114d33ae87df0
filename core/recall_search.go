package core

import (
	"context"
	"slices"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// semanticIncludes runs the recall query for text and returns include
// windows, most relevant hit first.
func (m *Memory) semanticIncludes(ctx context.Context, st settings, th Thread, resourceID, text string) ([]store.Include, error) {
	if st.recall.Scope == ScopeResource && resourceID == "" {
		return nil, &Error{Code: CodeMissingResourceID, Op: "Recall",
			Msg: "Memory error: Resource-scoped semantic recall is enabled but no resourceId was provided. Either provide a resourceId or explicitly set semanticRecall.scope to 'thread'."}
	}
	q := vector.Query{Text: text, Keywords: m.ix.Analyzer.Analyze(text), TopK: st.recall.TopK, MinScore: st.recall.Threshold,
		Filter: vector.Filter{ResourceID: th.ResourceID}}
	if st.recall.Scope == ScopeThread {
		q.Filter.ThreadID = th.ID
	}
	q.Mode, q.Alpha = m.searchMode(st.recall)
	var vecs [][]float32
	dim, err := m.dimension(ctx)
	if err == nil && q.Mode != vector.SearchBM25 {
		vecs, dim, err = m.embed(ctx, []string{text})
	}
	if err != nil {
		return nil, err
	}
	if vecs != nil {
		q.Vector = vecs[0]
	}
	name, err := m.ensureIndex(ctx, st, dim)
	if err != nil {
		return nil, err
	}
	hits, err := m.opts.Vector.Query(ctx, name, q)
	if err != nil {
		return nil, vectorErr("Query", "semantic recall query failed", err)
	}
	var out []store.Include
	seen := map[string]bool{}
	r := st.recall.MessageRange
	for _, h := range hits {
		if h.Meta.ResourceID != th.ResourceID || seen[h.Meta.MessageID] || (st.recall.Threshold > 0 && h.Score < st.recall.Threshold) {
			continue
		}
		seen[h.Meta.MessageID] = true
		out = append(out, store.Include{ID: h.Meta.MessageID, Before: r.Before, After: r.After})
	}
	return out, nil
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

// fetchIncludes loads include windows, constrained to the thread's resource,
// without the messages already in have.
func (m *Memory) fetchIncludes(ctx context.Context, s *store.Checked, th Thread, inc []store.Include, have []Message) ([]Message, error) {
	if len(inc) == 0 {
		return nil, nil
	}
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: th.ID, ResourceID: th.ResourceID, Include: inc})
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(have))
	for _, h := range have {
		seen[h.ID] = true
	}
	var out []Message
	for _, msg := range page.Included {
		if !seen[msg.ID] && msg.ResourceID == th.ResourceID && msg.Role != RoleSystem {
			m.ensureTokens(&msg)
			out = append(out, msg)
		}
	}
	return out, nil
}

// recallForTurn queries with the last user message of the input and returns
// the recalled messages of this thread (merged into history by the caller)
// and of other threads of the resource (rendered as one system message),
// and the include windows, most relevant first.
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
	if inc, err = m.semanticIncludes(ctx, st, th, th.ResourceID, query); err != nil {
		return nil, nil, nil, err
	}
	have := append(append([]Message(nil), history...), input...)
	hits, err := m.fetchIncludes(ctx, s, th, inc, have)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, h := range hits {
		if h.ThreadID == th.ID {
			same = append(same, h)
		} else {
			other = append(other, h)
		}
	}
	return same, other, inc, nil
}
