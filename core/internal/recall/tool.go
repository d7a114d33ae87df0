package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/core/internal/retrieval"
	"github.com/agentmem/agentmem/core/internal/telemetry"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// ToolName is the name of the recall tool (Mastra's).
const ToolName = "recall"

// ToolCall returns the description of the recall tool over th's resource
// with rs (rs.Tool set) and the function that runs it; the function is safe
// for concurrent use.
func (e *Engine) ToolCall(rs *Settings, th store.Thread) (string, func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error)) {
	rt := *rs.Tool
	desc := retrieval.Description + fmt.Sprintf(" At most %d messages and about %d tokens per search.", rt.TopK, rt.MaxTokens)
	return desc, func(ctx context.Context, raw json.RawMessage) (_ json.RawMessage, err error) {
		ctx, sp := e.d.Tel.StartOp(ctx, ToolName, th.ID, th.ResourceID, telemetry.OpSearchMemory)
		defer func() { err = sp.End(err) }()
		var args retrieval.Args
		if err := json.Unmarshal(raw, &args); err != nil {
			return retrieval.Result{Error: "arguments must be a JSON object with a string query: " + err.Error()}.JSON(), nil
		}
		sq, problem := e.toolQuery(rs, th, args)
		if problem != "" {
			return retrieval.Result{Error: problem}.JSON(), nil
		}
		s, err := e.open(ctx, ToolName)
		if err != nil {
			return nil, err
		}
		hits, err := e.search(ctx, s, rs, th, sq)
		if err != nil {
			return nil, err
		}
		return e.render(hits, rt.MaxTokens).JSON(), nil
	}
}

// open returns the store for a call of op, refusing a nil or ended context.
func (e *Engine) open(ctx context.Context, op string) (*store.Checked, error) {
	if ctx == nil {
		return nil, memerr.Errorf(memerr.CodeInvalidArgument, op, "nil context")
	}
	if err := memerr.Context(op, ctx.Err()); err != nil {
		return nil, err
	}
	if e.d.Store == nil {
		return nil, memerr.ErrNoStorage.New("")
	}
	return e.d.Store, nil
}

// toolQuery checks the model's arguments and builds the search, or returns
// what is wrong with them. The arguments only narrow the search: search
// applies the configured Settings.Filter to it.
func (e *Engine) toolQuery(rs *Settings, th store.Thread, a retrieval.Args) (query, string) {
	sq := query{text: strings.TrimSpace(a.Query), filter: vector.Filter{ResourceID: th.ResourceID},
		topK: rs.Tool.TopK, diversity: rs.Diversity}
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
		sq.keep = func(msg *message.Message) bool {
			return (from.IsZero() || !msg.CreatedAt.Before(from)) && (to.IsZero() || msg.CreatedAt.Before(to))
		}
	}
	sq.mode, sq.alpha = e.searchMode(rs)
	switch a.Mode {
	case "":
	case "semantic":
		sq.mode = vector.SearchVector
	case "hybrid":
		if !e.hybridListed() {
			return sq, "hybrid search is not available here; use semantic"
		}
		sq.mode = vector.SearchHybrid
	default:
		return sq, fmt.Sprintf("mode %q is not semantic or hybrid", a.Mode)
	}
	return sq, ""
}

// render fences the hits, best first (see retrieval.Render).
func (e *Engine) render(hits []Hit, maxTokens int) retrieval.Result {
	entries := make([]retrieval.Entry, len(hits))
	for i := range hits {
		entries[i] = retrieval.Entry{Message: hits[i].Msg, Text: e.d.Recipe.MessageText(&hits[i].Msg)}
	}
	return retrieval.Render(entries, maxTokens, e.d.Tokens)
}
