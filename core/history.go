package core

import (
	"context"
	"slices"

	"github.com/agentmem/agentmem/core/budget"
)

// historyPageSize is how many messages one newest-first history read fetches.
const historyPageSize = 64

// maxHistoryPage caps one history read.
const maxHistoryPage = 1000

// history is what loadHistory read: chronological messages after the boundary.
type history struct {
	messages []Message
	// complete: the load reached the start of the thread and excluded
	// nothing, so messages are every message before the turn.
	complete bool
	reads    int // storage round trips, for tests
}

// loadHistory reads the newest messages of a thread, newest first in keyset
// pages, stopping at the count cap, once the token budget is exceeded, at the
// persisted boundary (token mode, same limits only) or at the start of the
// thread. Its cost is O(window), never O(thread). A page edge may separate a
// result row from its older call row; that is safe because a result part
// carries its call (name and arguments), and a call row is never newer than
// its result.
// rng is the caller's date range (Recall); the later of its start and the
// boundary applies.
func (m *Memory) loadHistory(ctx context.Context, s *CheckedStore, th Thread, st settings, rng DateRange) (history, error) {
	if !st.historyEnabled {
		return history{}, nil
	}
	var h history
	var b *Boundary
	if st.tokenBudget() && th.Boundary != nil &&
		th.Boundary.SameEpoch(Boundary{MaxTokens: st.maxTokens, AtMaxRemoveTokens: st.atMaxRemove}) {
		b = th.Boundary
	}
	q := MessageQuery{ThreadID: th.ID, ResourceID: th.ResourceID, Direction: Desc, PerPage: historyPageSize, Range: rng}
	if b != nil && (rng.Start == nil || b.CreatedAt.After(*rng.Start)) {
		start := b.CreatedAt
		q.Range.Start, q.Range.StartExclusive = &start, false
	}
	switch {
	case st.maxMessages > 0 && !st.tokenBudget():
		q.PerPage = st.maxMessages
	case st.tokenBudget():
		// Size the first page to the budget so a typical window is one read.
		q.PerPage = min(max(st.maxTokens/32, historyPageSize), maxHistoryPage)
		if st.maxMessages > 0 {
			q.PerPage = min(q.PerPage-1, st.maxMessages) + 1 // no overflow at LastN(math.MaxInt)
		}
	}
	var newestFirst []Message
	tokens := 0
	for {
		page, err := s.ListMessages(ctx, q)
		if err != nil {
			return history{}, err
		}
		h.reads++
		for _, msg := range page.Messages {
			if msg.Role == RoleSystem || (b != nil && b.Excludes(msg.CreatedAt, msg.ID)) {
				continue
			}
			m.ensureTokens(&msg)
			newestFirst = append(newestFirst, msg)
			tokens += msg.Tokens
		}
		full := (st.maxMessages > 0 && len(newestFirst) >= st.maxMessages) ||
			(st.tokenBudget() && tokens > st.maxTokens)
		if !page.HasMore || len(page.Messages) == 0 || full {
			h.complete = b == nil && !full && (!page.HasMore || len(page.Messages) == 0)
			break
		}
		last := page.Messages[len(page.Messages)-1]
		q.Before = &Cursor{CreatedAt: last.CreatedAt, Seq: last.Seq}
		if st.tokenBudget() && tokens > 0 {
			// Next page: what the remaining budget needs at the average size so far.
			avg := max(tokens/len(newestFirst), 1)
			q.PerPage = min(max((st.maxTokens-tokens)/avg*3/2+1, historyPageSize), maxHistoryPage)
		}
	}
	slices.Reverse(newestFirst)
	h.messages = capByCount(newestFirst, st.maxMessages)
	return h, nil
}

// ensureTokens counts a stored message whose count is missing or was made
// with another encoding (in memory only; storage is not rewritten).
func (m *Memory) ensureTokens(msg *Message) {
	if msg.TokenEncoding != m.tk.Encoding() || msg.Tokens <= 0 {
		msg.Tokens, msg.TokenEncoding = 0, ""
		m.countTokens(msg)
	}
}

// capByCount keeps the newest linked groups of chronological msgs whose total
// count fits max (max < 0: no cap). A group that does not fit stops the walk.
func capByCount(msgs []Message, max int) []Message {
	if max < 0 || len(msgs) <= max && !splitsGroup(msgs) {
		return msgs
	}
	groups := ToolGroups(msgs)
	keep := make([]bool, len(msgs))
	count := 0
	for g := len(groups) - 1; g >= 0; g-- {
		if count+len(groups[g]) > max {
			break
		}
		count += len(groups[g])
		for _, i := range groups[g] {
			keep[i] = true
		}
	}
	return budget.Apply(msgs, keep)
}

// splitsGroup is false for the common case without tool calls.
func splitsGroup(msgs []Message) bool {
	for i := range msgs {
		if len(msgs[i].ToolCallIDs()) > 0 {
			return true
		}
	}
	return false
}

// trimToBudget keeps the newest contiguous linked groups of chronological msgs
// whose tokens fit within limit (plus fixed overhead), for read-only recall.
func trimToBudget(msgs []Message, limit, overhead int) []Message {
	return budget.Apply(msgs, budget.Fit(msgs, budget.Policy{Limit: limit, Overhead: overhead}).Keep)
}
