package core

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/core/internal/retrieval"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// RecallToolName is the name of the tool with which the model searches the
// stored messages of its resource (Mastra's recall tool), offered when
// SemanticRecall.Retrieval is set.
const RecallToolName = "recall"

// recallTool builds the recall tool over th's resource with the resolved
// settings st (st.recall.Retrieval set). Call is safe for concurrent use.
func (m *Memory) recallTool(st settings, th Thread) Tool {
	rt := *st.recall.Retrieval
	return Tool{
		Name:        RecallToolName,
		Description: retrieval.Description + fmt.Sprintf(" At most %d messages and about %d tokens per search.", rt.TopK, rt.MaxTokens),
		Parameters:  json.RawMessage(retrieval.Params),
		Call: func(ctx context.Context, raw json.RawMessage) (_ json.RawMessage, err error) {
			ctx, sp := m.startOp(ctx, RecallToolName, th.ID, th.ResourceID, searchMemory)
			defer func() { err = sp.End(err) }()
			var args retrieval.Args
			if err := json.Unmarshal(raw, &args); err != nil {
				return retrieval.Result{Error: "arguments must be a JSON object with a string query: " + err.Error()}.JSON(), nil
			}
			sq, problem := m.recallToolQuery(st, th, args)
			if problem != "" {
				return retrieval.Result{Error: problem}.JSON(), nil
			}
			s, err := m.open(ctx, RecallToolName)
			if err != nil {
				return nil, err
			}
			hits, err := m.searchMessages(ctx, s, st, th, sq)
			if err != nil {
				return nil, err
			}
			return m.renderRecall(hits, rt.MaxTokens).JSON(), nil
		},
	}
}

// recallToolQuery checks the model's arguments and builds the search, or
// returns what is wrong with them. The arguments only narrow the search:
// searchMessages applies the configured SemanticRecall.Filter to it.
func (m *Memory) recallToolQuery(st settings, th Thread, a retrieval.Args) (searchQuery, string) {
	sq := searchQuery{text: strings.TrimSpace(a.Query), filter: vector.Filter{ResourceID: th.ResourceID},
		topK: st.recall.Retrieval.TopK, diversity: st.recall.Diversity}
	if sq.text == "" {
		return sq, "query is required"
	}
	if a.ThreadID != "" {
		if err := store.ValidateID("threadId", a.ThreadID); err != nil {
			return sq, err.Error()
		}
		sq.filter.ThreadID = a.ThreadID
	}
	from, err := retrieval.ParseTime(a.From, false)
	if err != nil {
		return sq, "from: " + err.Error()
	}
	to, err := retrieval.ParseTime(a.To, true)
	if err != nil {
		return sq, "to: " + err.Error()
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return sq, "from must be before to"
	}
	if !from.IsZero() || !to.IsZero() {
		sq.keepOnly(func(msg *Message) bool {
			return (from.IsZero() || !msg.CreatedAt.Before(from)) && (to.IsZero() || msg.CreatedAt.Before(to))
		})
	}
	sq.mode, sq.alpha = m.searchMode(st.recall)
	switch a.Mode {
	case "":
	case "semantic":
		sq.mode = vector.SearchVector
	case "hybrid":
		if ml, ok := m.opts.Vector.(vector.ModeLister); !ok || !slices.Contains(ml.SearchModes(), vector.SearchHybrid) {
			return sq, "hybrid search is not available here; use semantic"
		}
		sq.mode = vector.SearchHybrid
	default:
		return sq, fmt.Sprintf("mode %q is not semantic or hybrid", a.Mode)
	}
	return sq, ""
}

// renderRecall fences the hits, best first (see retrieval.Render).
func (m *Memory) renderRecall(hits []searchHit, maxTokens int) retrieval.Result {
	entries := make([]retrieval.Entry, len(hits))
	for i := range hits {
		entries[i] = retrieval.Entry{Message: hits[i].msg, Text: m.ix.MessageText(&hits[i].msg)}
	}
	return retrieval.Render(entries, maxTokens, m.tk)
}
