package core

import (
	"context"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/recall"
	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// RecallQuery selects messages of a thread (the page's recall).
type RecallQuery struct {
	ThreadID   string
	ResourceID string // when set, the thread must belong to it
	Page       int
	// PerPage: 0 uses the configured history (lastMessages / token budget);
	// PerPageAll returns every message.
	PerPage int
	// Direction decides which page is selected (default: newest first); the
	// result is always chronological.
	Direction    store.Direction
	Range        store.DateRange
	IncludeTotal bool
	// VectorSearch, when set and semantic recall is on, adds the messages
	// around the best semantic matches.
	VectorSearch string
	Config       *Config
	// Metadata (Mastra's filter.metadata) keeps the history messages whose
	// metadata matches, before paging and totals; build it with
	// message.ParseFilter. Semantic matches must match both it and the
	// configured SemanticRecall.Filter (as they must lie within Range);
	// their context windows are not filtered.
	Metadata message.Filter
}

// RecallResult is the result of Recall; Messages are chronological.
type RecallResult struct {
	Messages []message.Message
	Total    int
	Page     int
	PerPage  int
	HasMore  bool
}

// Recall returns messages of a thread: the configured history window (count or
// token bounded, after the persisted boundary), or an explicit page, plus
// semantic matches. The result is always in chronological order.
func (m *Memory) Recall(ctx context.Context, q RecallQuery) (res RecallResult, err error) {
	const op = "Recall"
	ctx, sp := startRecall(ctx, m.spans.tel, q)
	defer func() { err = endRecall(sp, res, err) }()
	s, err := m.entry.open(ctx, "Recall")
	if err != nil {
		return RecallResult{}, err
	}
	if err := store.ValidateID("threadId", q.ThreadID); err != nil {
		return RecallResult{}, err
	}
	if err := q.Metadata.Validate(); err != nil {
		err.(*memerr.Error).Op = op
		return RecallResult{}, err
	}
	st, err := m.conf.settings(q.Config)
	if err != nil {
		return RecallResult{}, err
	}
	wantVector := st.recall != nil && q.VectorSearch != ""
	if !st.historyEnabled && q.PerPage == 0 && !wantVector {
		return RecallResult{Page: q.Page}, nil
	}
	th, err := s.OwnedThread(ctx, op, q.ThreadID, q.ResourceID)
	if err != nil {
		return RecallResult{}, err
	}
	var hits []recall.Hit
	budgeted := q.PerPage == 0 && st.tokenBudget()
	if wantVector {
		if hits, err = m.rec.Search(ctx, s, st.recall, th, q.ResourceID, q.VectorSearch, q.Metadata, q.Range, budgeted); err != nil {
			return RecallResult{}, err
		}
	}
	if budgeted {
		hist, err := m.hist.loadHistory(ctx, s, th, st, q.Range, q.Metadata, nil)
		if err != nil {
			return RecallResult{}, err
		}
		kept, err := m.hist.fillBare(ctx, s, window.TrimToBudget(hist.messages, st.maxTokens-st.atMaxRemove, budget.ReplyPriming), hist.bare)
		if err != nil {
			return RecallResult{}, err
		}
		extra := recall.Recalled(th, hits, kept)
		for i := range extra {
			m.hist.ensureTokens(&extra[i])
		}
		out := kept // chronological, as loaded
		if extra = window.AfterBoundary(th.ID, th.Boundary, store.Boundary{MaxTokens: st.maxTokens, AtMaxRemoveTokens: st.atMaxRemove}, extra); len(extra) > 0 {
			out = window.Merge(kept, extra)
		}
		return RecallResult{Messages: out, Total: len(out)}, nil
	}
	perPage := q.PerPage
	if perPage == 0 && st.historyEnabled {
		// History disabled: perPage stays 0, so only the semantic hits come back.
		perPage = st.maxMessages
		if perPage < 0 {
			perPage = store.PerPageAll
		}
	}
	dir := q.Direction
	if dir == "" && perPage != store.PerPageAll {
		dir = store.Desc
	}
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: th.ID, ResourceID: q.ResourceID, Page: q.Page,
		PerPage: perPage, Direction: dir, Range: q.Range, Include: recall.Includes(st.recall, hits), IncludeTotal: q.IncludeTotal, Metadata: q.Metadata})
	if err != nil {
		return RecallResult{}, err
	}
	m.skipped.Report(ctx, page.Messages)
	m.skipped.Report(ctx, page.Included)
	included := page.Included
	if len(hits) > 0 {
		included = recall.FilterContext(included, hits, message.And(st.recall.Filter, q.Metadata))
	}
	return RecallResult{Messages: window.Merge(page.Messages, included), Total: page.Total,
		Page: q.Page, PerPage: perPage, HasMore: page.HasMore}, nil
}
