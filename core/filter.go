package core

import "context"

// filterInput returns the input messages to persist. Clients often echo the
// whole conversation; storage is authoritative for what it already holds:
//   - input messages whose id is already stored are dropped;
//   - unless retainFullInput, when the thread already has messages and the
//     input ends with user messages, only those after the input's last
//     assistant message are kept; an input that ends with an already-known
//     assistant echo keeps nothing. past marks a thread whose messages
//     were all observed (observational memory): it has messages too.
func (m *Memory) filterInput(ctx context.Context, s *CheckedStore, st settings, history []Message, past bool, input []Message, supplied map[string]bool) ([]Message, error) {
	var withID []string
	stored := map[string]bool{}
	for _, h := range history {
		stored[h.ID] = true
	}
	for _, in := range input {
		if supplied[in.ID] && !stored[in.ID] {
			withID = append(withID, in.ID)
		}
	}
	if len(withID) > 0 {
		found, err := s.GetMessages(ctx, withID)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			// Only a copy in this thread makes an input message an echo; an id
			// stored elsewhere is new here (its save moves or rejects it).
			if len(input) > 0 && f.ThreadID == input[0].ThreadID {
				stored[f.ID] = true
			}
		}
	}
	var fresh []Message
	for _, in := range input {
		if !stored[in.ID] {
			fresh = append(fresh, in)
		}
	}
	if st.retainFullInput || (len(history) == 0 && !past) {
		return fresh, nil
	}
	// Assistant messages holding only tool results are client tool updates:
	// new input, not an echo of the conversation.
	lastAssistant := -1
	for i, in := range fresh {
		if in.Role == RoleAssistant && !onlyToolResults(&in) {
			lastAssistant = i
		}
	}
	return fresh[lastAssistant+1:], nil
}

func onlyToolResults(m *Message) bool {
	for _, p := range m.Content.Parts {
		if p.ToolInvocation == nil || p.ToolInvocation.State != ToolStateResult {
			return false
		}
	}
	return len(m.Content.Parts) > 0
}
