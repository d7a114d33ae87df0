package recall

import (
	"context"
	"slices"
	"sort"

	"github.com/agentmem/agentmem/core/internal/rerank"
	"github.com/agentmem/agentmem/core/internal/telemetry"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// Hit is a stored message found by a search and its score.
type Hit struct {
	Msg   message.Message
	Score float64
	// Window is Msg with the messages around it (Settings.Window), when the
	// search read them, chronological.
	Window []message.Message
}

// query is one search of the message index.
type query struct {
	text string
	// filter has ResourceID set; its Metadata is the caller's own metadata
	// condition, which search AND-s with the configured Settings.Filter: no
	// search is ever run without the latter.
	filter    vector.Filter
	topK      int
	mode      string
	alpha     float64
	exclude   []string                    // texts a hit must not repeat
	keep      func(*message.Message) bool // nil keeps every message
	diversity *Diversity                  // nil: relevance order
	// window is the context each hit is read with (Hit.Window), in the same
	// read as the hits themselves.
	window *Window // nil: hits alone
}

// semanticQuery is the recall query for text with rs: the scope of th,
// TopK, diversity, mode and, when windows is set, the context windows.
// Callers add their own conditions (query.filter.Metadata, keep, exclude);
// search adds the configured Settings.Filter to them.
func (e *Engine) semanticQuery(rs *Settings, th store.Thread, resourceID, text string, windows bool) (query, error) {
	if rs.Scope == store.ScopeResource && resourceID == "" {
		return query{}, &memerr.Error{Code: memerr.CodeMissingResourceID, Op: "Recall",
			Msg: "Memory error: Resource-scoped semantic recall is enabled but no resourceId was provided. Either provide a resourceId or explicitly set semanticRecall.scope to 'thread'."}
	}
	q := query{text: text, filter: vector.Filter{ResourceID: th.ResourceID}, topK: rs.TopK, diversity: rs.Diversity}
	if rs.Scope == store.ScopeThread {
		q.filter.ThreadID = th.ID
	}
	if windows {
		q.window = &rs.Window
	}
	q.mode, q.alpha = e.searchMode(rs)
	return q, nil
}

// candidates is how many hits q asks the vector store for, the over-fetch
// of vector.Candidates: more when keep drops hits after the search
// (vector.FilteredCandidates), and at least the pool diversity re-ranks.
func (q *query) candidates() int {
	switch {
	case q.keep != nil:
		return vector.FilteredCandidates(q.topK)
	case q.diversity != nil:
		return max(vector.Candidates(q.topK), q.diversity.Candidates)
	}
	return vector.Candidates(q.topK)
}

// Includes returns the include windows of hits in rs's Window.
func Includes(rs *Settings, hits []Hit) []store.Include {
	if len(hits) == 0 {
		return nil
	}
	out := make([]store.Include, len(hits))
	for i, h := range hits {
		out[i] = store.Include{ID: h.Msg.ID, Before: rs.Window.Before, After: rs.Window.After}
	}
	return out
}

// search queries the index, loads the messages hit, drops those failing
// keep or the metadata filter (the configured Settings.Filter AND the
// caller's, checked again on the stored message, since a vector's copy of
// the metadata can lag it), repeating an earlier hit or one of exclude, or
// gone from the store, and returns up to topK of them, best first (or in
// MMR order with diversity). More candidates than topK are fetched so that
// dropped hits do not leave the result short (query.candidates).
func (e *Engine) search(ctx context.Context, s *store.Checked, rs *Settings, th store.Thread, sq query) ([]Hit, error) {
	md := message.And(rs.Filter, sq.filter.Metadata)
	q := vector.Query{Text: sq.text, Keywords: e.d.Recipe.Analyzer.Analyze(sq.text), TopK: sq.candidates(), MinScore: rs.Threshold,
		Filter: sq.filter, Mode: sq.mode, Alpha: sq.alpha}
	q.Filter.Metadata = md
	var vecs [][]float32
	dim, err := e.dimension(ctx)
	if err == nil && q.Mode != vector.SearchBM25 {
		vecs, dim, err = e.embed(ctx, []string{sq.text})
	}
	if err != nil {
		return nil, err
	}
	if vecs != nil {
		q.Vector = vecs[0]
	}
	name, err := e.ensureIndex(ctx, rs, dim)
	if err == nil {
		err = e.checkDimension(ctx, name, sq.filter.ResourceID)
	}
	if err != nil {
		return nil, err
	}
	hits, err := e.queryVector(ctx, name, q, sq)
	if err != nil {
		return nil, memerr.WrapVector("Query", "semantic recall query failed", err)
	}
	var cands []Hit
	seen := map[string]bool{}
	var inc []store.Include
	for _, h := range hits {
		if h.Meta.ResourceID != sq.filter.ResourceID || seen[h.Meta.MessageID] || (rs.Threshold > 0 && h.Score < rs.Threshold) {
			continue
		}
		seen[h.Meta.MessageID] = true
		cands = append(cands, Hit{Msg: message.Message{ID: h.Meta.MessageID}, Score: h.Score})
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
	e.d.Skipped.Report(ctx, page.Included)
	byID := make(map[string]message.Message, len(page.Included))
	for _, msg := range page.Included {
		byID[msg.ID] = msg
	}
	var texts []string
	found := cands[:0]
	for _, c := range cands {
		msg, ok := byID[c.Msg.ID]
		if !ok || msg.ResourceID != sq.filter.ResourceID || !md.Match(msg.Content.Metadata) || (sq.keep != nil && !sq.keep(&msg)) {
			continue
		}
		c.Msg = msg
		found = append(found, c)
		texts = append(texts, e.d.Recipe.MessageText(&msg))
	}
	keep := rerank.Dedupe(texts, sq.exclude)
	uniq := make([]Hit, len(keep))
	utexts := make([]string, len(keep))
	for i, k := range keep {
		uniq[i], utexts[i] = found[k], texts[k]
	}
	out := uniq[:min(sq.topK, len(uniq))]
	if sq.diversity != nil && len(uniq) > 1 {
		order, err := e.diversify(ctx, uniq, utexts, sq.topK, sq.diversity.Lambda)
		if err != nil {
			return nil, err
		}
		out = make([]Hit, len(order))
		for i, k := range order {
			out[i] = uniq[k]
		}
	}
	if sq.window != nil {
		setWindows(out, page.Included, *sq.window, md)
	}
	return out, nil
}

// queryVector runs a recall query on the vector store in its own span and
// counts its hits.
func (e *Engine) queryVector(ctx context.Context, name string, q vector.Query, sq query) ([]vector.Hit, error) {
	topK, filter := telemetry.AttrTopK.Int(sq.topK), telemetry.AttrRecallFilter.Bool(!q.Filter.Metadata.IsZero())
	var qctx context.Context
	var vs telemetry.Child
	if e.d.Tel.CaptureContent() {
		qctx, vs = e.d.Tel.Vector(ctx, "query", name, topK, filter, telemetry.AttrMemoryQueryText.String(sq.text))
	} else {
		qctx, vs = e.d.Tel.Vector(ctx, "query", name, topK, filter)
	}
	hits, err := e.d.Vector.Query(qctx, name, q)
	vs.Set(telemetry.AttrRecallHits.Int(len(hits)))
	e.d.Tel.RecallHits(ctx, len(hits))
	return hits, vs.End(err)
}

// setWindows cuts each hit's window out of read, the chronological union of
// the windows of a superset of hits: within a thread, the messages of read
// nearest a hit are the ones nearest it in the thread, since read holds the
// hit's whole window. A neighbour that md excludes is left out of the
// window (which then holds fewer messages): the filter is what keeps a
// message out of recall, and context is recall too.
func setWindows(hits []Hit, read []message.Message, r Window, md message.Filter) {
	byThread := map[string][]message.Message{}
	for _, msg := range read {
		byThread[msg.ThreadID] = append(byThread[msg.ThreadID], msg)
	}
	for i := range hits {
		list := byThread[hits[i].Msg.ThreadID]
		at := slices.IndexFunc(list, func(msg message.Message) bool { return msg.ID == hits[i].Msg.ID })
		if at < 0 {
			continue
		}
		for _, msg := range list[max(at-r.Before, 0):min(at+1+r.After, len(list))] {
			if msg.ID == hits[i].Msg.ID || md.Match(msg.Content.Metadata) {
				hits[i].Window = append(hits[i].Window, msg)
			}
		}
	}
}

// diversify picks up to k of the hits by MMR. Similarity is the cosine of
// the texts' embeddings when the engine embeds (one batch call), else the
// overlap of their words (self-embedding stores return no vectors).
// Relevance is the score relative to the best hit's.
func (e *Engine) diversify(ctx context.Context, hits []Hit, texts []string, k int, lambda float64) ([]int, error) {
	rel := make([]float64, len(hits))
	top := hits[0].Score
	for i, h := range hits {
		rel[i] = h.Score / top
	}
	if top <= 0 {
		rel = rerank.RankRelevance(len(hits))
	}
	var sim func(i, j int) float64
	if e.d.Vector.SelfEmbedding() || e.d.Embedder == nil {
		keys := make([]string, len(texts))
		for i, t := range texts {
			keys[i] = rerank.Key(t)
		}
		sim = func(i, j int) float64 { return rerank.TermSimilarity(keys[i], keys[j]) }
	} else {
		vecs, _, err := e.embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		sim = func(i, j int) float64 { return rerank.Cosine(vecs[i], vecs[j]) }
	}
	return rerank.MMR(rel, sim, k, lambda), nil
}

// searchMode returns the query mode and hybrid alpha of rs: its Mode, else
// hybrid when the vector store lists it (or Hybrid is set), else vector.
func (e *Engine) searchMode(rs *Settings) (string, float64) {
	switch {
	case rs.Mode != "":
		return rs.Mode, rs.Alpha
	case rs.Hybrid || e.hybridListed():
		return vector.SearchHybrid, rs.Alpha
	}
	return vector.SearchVector, rs.Alpha
}

// hybridListed reports whether the vector store lists hybrid search.
func (e *Engine) hybridListed() bool {
	ml, ok := e.d.Vector.(vector.ModeLister)
	return ok && slices.Contains(ml.SearchModes(), vector.SearchHybrid)
}

// Recalled returns the messages of the hits' windows, chronological and
// without those already in have, of another resource or system messages.
func Recalled(th store.Thread, hits []Hit, have []message.Message) []message.Message {
	seen := make(map[string]bool, len(have))
	for _, h := range have {
		seen[h.ID] = true
	}
	var out []message.Message
	for _, h := range hits {
		for _, msg := range h.Window {
			if !seen[msg.ID] && msg.ResourceID == th.ResourceID && msg.Role != message.RoleSystem {
				seen[msg.ID] = true
				out = append(out, msg)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return message.Less(&out[i], &out[j]) })
	return out
}

// ForTurn queries with the last user message of the input and returns the
// recalled messages of this thread (merged into history by the caller) and
// of other threads of the resource (rendered as one system message), and the
// include windows, most relevant first. Hits repeating a user message of the
// input are left out.
func (e *Engine) ForTurn(ctx context.Context, s *store.Checked, rs *Settings, th store.Thread, history, input []message.Message) (same, other []message.Message, inc []store.Include, err error) {
	ix := e.d.Recipe
	text := ""
	for i := len(input) - 1; i >= 0 && text == ""; i-- {
		if input[i].Role == message.RoleUser {
			text = ix.MessageText(&input[i])
		}
	}
	if text == "" {
		return nil, nil, nil, nil
	}
	// A hit saying what the input says adds nothing beside it.
	var own []string
	for i := range input {
		if input[i].Role == message.RoleUser {
			own = append(own, ix.MessageText(&input[i]))
		}
	}
	sq, err := e.semanticQuery(rs, th, th.ResourceID, text, true)
	if err != nil {
		return nil, nil, nil, err
	}
	sq.exclude = own
	found, err := e.search(ctx, s, rs, th, sq)
	if err != nil {
		return nil, nil, nil, err
	}
	have := append(append([]message.Message(nil), history...), input...)
	for _, h := range Recalled(th, found, have) {
		if h.ThreadID == th.ID {
			same = append(same, h)
		} else {
			other = append(other, h)
		}
	}
	return same, other, Includes(rs, found), nil
}

// Search runs Recall's semantic search of text in th (resourceID: the
// caller's, "" when it named none), narrowed to the metadata md and the
// dates r; windows reads each hit's neighbours with it.
func (e *Engine) Search(ctx context.Context, s *store.Checked, rs *Settings, th store.Thread, resourceID, text string, md message.Filter, r store.DateRange, windows bool) ([]Hit, error) {
	sq, err := e.semanticQuery(rs, th, resourceID, text, windows)
	if err != nil {
		return nil, err
	}
	sq.filter.Metadata = md
	if r != (store.DateRange{}) {
		sq.keep = func(msg *message.Message) bool { return r.InRange(msg.CreatedAt) }
	}
	return e.search(ctx, s, rs, th, sq)
}

// FilterContext drops from the messages read around hits those that md
// excludes, keeping the hits themselves: context is recall too, and the
// filter is what keeps a message out of it.
func FilterContext(read []message.Message, hits []Hit, md message.Filter) []message.Message {
	out := read[:0:0]
	for _, msg := range read {
		if md.Match(msg.Content.Metadata) || slices.ContainsFunc(hits, func(h Hit) bool { return h.Msg.ID == msg.ID }) {
			out = append(out, msg)
		}
	}
	return out
}
