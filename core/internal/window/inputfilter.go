package window

import "github.com/agentmem/agentmem/core/message"

// InputFilter is what FilterInput decides on.
type InputFilter struct {
	History    []message.Message // the thread's loaded history
	Past       bool              // the thread has messages before History (observed or trimmed)
	Input      []message.Message
	Known      map[string]*message.Message
	RetainFull bool                   // keep every input message not stored
	NewID      func() string          // ids of tool results split off a stored message
	Count      func(*message.Message) // counts the tokens of a message made here
}

// FilterInput decides what a request's input may add to memory, as Mastra's
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
// back without the stored copies that persist replaces. Known holds the
// stored copies, in this thread, of the history and of the input messages
// whose caller-supplied id is stored, by id.
func FilterInput(f InputFilter) (persist, hist []message.Message) {
	history, input, known := f.History, f.Input, f.Known
	var fresh []message.Message
	for _, in := range input {
		if _, ok := known[in.ID]; !ok {
			fresh = append(fresh, in)
		}
	}
	switch {
	case f.RetainFull:
		return fresh, history
	case len(history) == 0 && !f.Past:
		for i := range fresh {
			StripProviderMetadata(&fresh[i])
		}
		return fresh, history
	case len(input) == 0:
		return nil, history
	}
	calls := ToolCallStates(known)
	last := input[len(input)-1]
	switch last.Role {
	case message.RoleUser:
		b := len(input) - 1
		for b >= 0 && input[b].Role != message.RoleAssistant {
			b--
		}
		var tail []message.Message
		for _, in := range input[b+1:] {
			if _, ok := known[in.ID]; !ok {
				tail = append(tail, in)
			}
		}
		if b < 0 {
			return tail, history
		}
		updates := f.toolUpdates(input[b], known, calls, func(p *message.Part) bool {
			return calls[p.ToolInvocation.ToolCallID] == message.ToolStateCall
		})
		return append(updates, tail...), WithoutIDs(history, updates)
	case message.RoleAssistant:
		if results := TrailingResults(last); len(results.Content.Parts) > 0 {
			updates := f.toolUpdates(results, known, calls, func(p *message.Part) bool {
				return calls[p.ToolInvocation.ToolCallID] != message.ToolStateResult
			})
			return updates, WithoutIDs(history, updates)
		}
		if _, stored := known[last.ID]; stored {
			return nil, history
		}
	}
	return fresh, history
}

// toolUpdates returns the tool results of msg that keep selects, as messages
// to persist: merged into the stored copy of msg when it holds their calls
// (same id, each call advanced to its result), else as a new message of the
// results alone.
func (f InputFilter) toolUpdates(msg message.Message, known map[string]*message.Message, calls map[string]string, keep func(*message.Part) bool) []message.Message {
	var kept []message.Part
	for i := range msg.Content.Parts {
		if p := &msg.Content.Parts[i]; IsToolResult(p) && keep(p) {
			kept = append(kept, *p)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	var out []message.Message
	if stored, ok := known[msg.ID]; ok {
		merged := stored.Clone()
		rest := AdvanceCalls(&merged, kept)
		if len(rest) < len(kept) {
			merged.Source, merged.Tokens, merged.TokenEncoding = message.SourceInput, 0, ""
			f.Count(&merged)
			out = append(out, merged)
		}
		kept, msg.ID = rest, f.NewID()
	}
	if len(kept) > 0 {
		msg.Content.Parts = kept
		// A v4 text mirror kept verbatim would bring the echoed text back.
		msg.Content.Extra = WithoutKey(msg.Content.Extra, "content")
		msg.Tokens, msg.TokenEncoding = 0, ""
		f.Count(&msg)
		out = append(out, msg)
	}
	return out
}
