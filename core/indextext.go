package core

import (
	"context"
	"slices"
	"sort"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// IndexText configures what semantic recall indexes for a message. It is
// instance-wide (Options.Config); per-call values are ignored, because every
// record of an index must be made the same way. Changing it changes the index
// version: recall then reports ErrIndexVersionMismatch until ReindexResource
// (or Reindex) rebuilds the resource's records.
type IndexText struct {
	// ContextMessages is how many previous messages of the thread are
	// indexed with a message for keyword search (the embedding and the
	// record's Text are the message's own); nil means
	// DefaultContextMessages. A batch is taken as contiguous in its thread.
	ContextMessages *int
	// NoTools leaves tool names, arguments and results out.
	NoTools bool
	// NoFiles leaves file names, alt text and captions out.
	NoFiles bool
}

// DefaultContextMessages is the default IndexText.ContextMessages, chosen on
// LoCoMo (see BENCHMARKS.md, "Retrieval quality").
const DefaultContextMessages = 1

// newIndexing resolves the indexing settings of r (nil: the defaults).
func newIndexing(r *SemanticRecall) (*indexing.Recipe, error) {
	if r == nil {
		r = &SemanticRecall{}
	}
	an, err := analysis.New(r.Language)
	if err != nil {
		return nil, &Error{Code: CodeInvalidConfig, Op: "New", Msg: "semanticRecall.language", Err: err}
	}
	context, tools, files := DefaultContextMessages, true, true
	if t := r.IndexText; t != nil {
		if t.ContextMessages != nil {
			if *t.ContextMessages < 0 || *t.ContextMessages > 16 {
				return nil, memerr.Errorf(CodeInvalidConfig, "New", "semanticRecall.indexText.contextMessages must be within [0, 16]")
			}
			context = *t.ContextMessages
		}
		tools, files = !t.NoTools, !t.NoFiles
	}
	return indexing.New(an, context, tools, files), nil
}

// Analyzer returns the text analyzer of semantic recall (SemanticRecall.Language):
// a direct vector.Store query matches the index's keywords when its Keywords
// are Analyzer().Analyze(text).
func (m *Memory) Analyzer() *analysis.Analyzer { return m.ix.Analyzer }

// contextTexts returns, for each message of msgs, the indexed text of the
// ix.Context messages before it in its thread: earlier messages of the batch
// (taken as contiguous) and, for the first ones, the turn's loaded history
// (prior) or stored messages read with one newest-first query per thread.
func (m *Memory) contextTexts(ctx context.Context, s *CheckedStore, msgs []Message, prior *indexing.Prior) (map[string]string, error) {
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
