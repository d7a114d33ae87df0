package core

import (
	"context"
	"slices"
	"sort"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// Analyzer returns the text analyzer of semantic recall (SemanticRecall.Language):
// a direct vector.Store query matches the index's keywords when its Keywords
// are Analyzer().Analyze(text).
func (m *Memory) Analyzer() *analysis.Analyzer { return m.ix.Analyzer }

// contextTexts returns, for each message of msgs, the indexed text of the
// ix.Context messages before it in its thread: earlier messages of the batch
// (taken as contiguous) and, for the first ones, the turn's loaded history
// (prior) or stored messages read with one newest-first query per thread.
func (m *Memory) contextTexts(ctx context.Context, s *store.Checked, msgs []Message, prior *indexing.Prior) (map[string]string, error) {
	ix := m.ix
	if ix.Context == 0 || len(msgs) == 0 {
		return nil, nil
	}
	byThread := map[string][]Message{}
	for _, msg := range msgs {
		byThread[msg.ThreadID] = append(byThread[msg.ThreadID], msg)
	}
	out := make(map[string]string, len(msgs))
	for thread, list := range byThread {
		sort.SliceStable(list, func(i, j int) bool { return message.Less(&list[i], &list[j]) })
		before, ok := prior.Before(thread, ix.Context)
		if !ok {
			first := list[0]
			page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: thread, Direction: store.Desc, PerPage: ix.Context,
				Before: &store.Cursor{CreatedAt: first.CreatedAt, Seq: first.Seq}})
			if err != nil {
				return nil, err
			}
			before = slices.Clone(page.Messages)
			slices.Reverse(before)
		}
		ix.Contexts(before, list, out)
	}
	return out, nil
}
