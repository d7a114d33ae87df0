package core

import (
	"context"
	"github.com/agentmem/agentmem/core/message"

	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/store"
)

// filterInput decides what a request's input may add to memory, as Mastra's
// MemoryInputFilter does (see window.FilterInput), against the stored copies
// of the history and of the input messages whose supplied id is stored.
func (ik *intake) filterInput(ctx context.Context, s *store.Checked, st settings, history []message.Message, past bool, input []message.Message, supplied map[string]bool) (persist, hist []message.Message, err error) {
	known, err := ik.storedCopies(ctx, s, history, input, supplied)
	if err != nil {
		return nil, nil, err
	}
	persist, hist = window.FilterInput(window.InputFilter{History: history, Past: past, Input: input, Known: known,
		RetainFull: st.retainFullInput, NewID: ik.newID, Count: ik.tokens.count})
	return persist, hist, nil
}

// storedCopies returns the stored copies, in this thread, of the history and
// of the input messages whose caller-supplied id is stored, by id.
func (ik *intake) storedCopies(ctx context.Context, s *store.Checked, history, input []message.Message, supplied map[string]bool) (map[string]*message.Message, error) {
	known := make(map[string]*message.Message, len(history))
	for i := range history {
		known[history[i].ID] = &history[i]
	}
	var lookup []string
	for _, in := range input {
		if _, ok := known[in.ID]; supplied[in.ID] && !ok {
			lookup = append(lookup, in.ID)
		}
	}
	if len(lookup) == 0 {
		return known, nil
	}
	found, err := s.GetMessages(ctx, lookup)
	if err != nil {
		return nil, err
	}
	for i := range found {
		// Only a copy in this thread makes an input message an echo; an id
		// stored elsewhere is new here (its save moves or rejects it).
		if f := &found[i]; f.ThreadID == input[0].ThreadID {
			known[f.ID] = f
		}
	}
	return known, nil
}
