package core

import (
	"context"

	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// filterInput decides what a request's input may add to memory, as Mastra's
// MemoryInputFilter does. Clients often echo the whole conversation; storage
// is authoritative for what it already holds:
//   - input messages whose id is stored in the thread are dropped;
//   - retainFullInput keeps the rest as supplied;
//   - an empty thread (no history, nothing observed) keeps the whole input
//     as its seed, with the provider metadata of assistant parts stripped
//     (item ids of server-side items this request never created; Mastra issue
//     #24052), except on tool results, which come from the client;
//   - input ending with user messages keeps those after the last assistant
//     message, plus that message's tool results for calls still pending in
//     storage (a client tool result sent with the next user message);
//   - input ending with an assistant message keeps its trailing tool results
//     (calls not already finished in storage); without any, it keeps nothing
//     when that message is stored (an echo) and the input as supplied when it
//     is not (an instruction message from the caller, e.g. agent routing);
//   - input ending with any other role is kept.
//
// A kept tool result for a call of a stored message is merged into that
// message (same id, the call's part advanced to the result), so hist comes
// back without the stored copies that persist replaces.
func (m *Memory) filterInput(ctx context.Context, s *store.Checked, st settings, history []Message, past bool, input []Message, supplied map[string]bool) (persist, hist []Message, err error) {
	known, err := m.storedCopies(ctx, s, history, input, supplied)
	if err != nil {
		return nil, nil, err
	}
	var fresh []Message
	for _, in := range input {
		if _, ok := known[in.ID]; !ok {
			fresh = append(fresh, in)
		}
	}
	switch {
	case st.retainFullInput:
		return fresh, history, nil
	case len(history) == 0 && !past:
		for i := range fresh {
			window.StripProviderMetadata(&fresh[i])
		}
		return fresh, history, nil
	case len(input) == 0:
		return nil, history, nil
	}
	calls := window.ToolCallStates(known)
	last := input[len(input)-1]
	switch last.Role {
	case RoleUser:
		b := len(input) - 1
		for b >= 0 && input[b].Role != RoleAssistant {
			b--
		}
		var tail []Message
		for _, in := range input[b+1:] {
			if _, ok := known[in.ID]; !ok {
				tail = append(tail, in)
			}
		}
		if b < 0 {
			return tail, history, nil
		}
		updates := m.toolUpdates(input[b], known, calls, func(p *Part) bool {
			return calls[p.ToolInvocation.ToolCallID] == message.ToolStateCall
		})
		return append(updates, tail...), window.WithoutIDs(history, updates), nil
	case RoleAssistant:
		if results := window.TrailingResults(last); len(results.Content.Parts) > 0 {
			updates := m.toolUpdates(results, known, calls, func(p *Part) bool {
				return calls[p.ToolInvocation.ToolCallID] != message.ToolStateResult
			})
			return updates, window.WithoutIDs(history, updates), nil
		}
		if _, stored := known[last.ID]; stored {
			return nil, history, nil
		}
	}
	return fresh, history, nil
}

// storedCopies returns the stored copies, in this thread, of the history and
// of the input messages whose caller-supplied id is stored, by id.
func (m *Memory) storedCopies(ctx context.Context, s *store.Checked, history, input []Message, supplied map[string]bool) (map[string]*Message, error) {
	known := make(map[string]*Message, len(history))
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

// toolUpdates returns the tool results of msg that keep selects, as messages
// to persist: merged into the stored copy of msg when it holds their calls
// (same id, each call advanced to its result), else as a new message of the
// results alone.
func (m *Memory) toolUpdates(msg Message, known map[string]*Message, calls map[string]string, keep func(*Part) bool) []Message {
	var kept []Part
	for i := range msg.Content.Parts {
		if p := &msg.Content.Parts[i]; window.IsToolResult(p) && keep(p) {
			kept = append(kept, *p)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	var out []Message
	if stored, ok := known[msg.ID]; ok {
		merged := stored.Clone()
		rest := window.AdvanceCalls(&merged, kept)
		if len(rest) < len(kept) {
			merged.Source, merged.Tokens, merged.TokenEncoding = SourceInput, 0, ""
			m.countTokens(&merged)
			out = append(out, merged)
		}
		kept, msg.ID = rest, m.opts.NewID()
	}
	if len(kept) > 0 {
		msg.Content.Parts = kept
		// A v4 text mirror kept verbatim would bring the echoed text back.
		msg.Content.Extra = window.WithoutKey(msg.Content.Extra, "content")
		msg.Tokens, msg.TokenEncoding = 0, ""
		m.countTokens(&msg)
		out = append(out, msg)
	}
	return out
}
