package window

import (
	"time"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// CapByCount keeps the newest linked groups of chronological msgs whose total
// count fits max (max < 0: no cap). A group that does not fit stops the walk.
func CapByCount(msgs []message.Message, max int) []message.Message {
	if max < 0 || len(msgs) <= max && !splitsGroup(msgs) {
		return msgs
	}
	groups := message.ToolGroups(msgs)
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
func splitsGroup(msgs []message.Message) bool {
	for i := range msgs {
		if len(msgs[i].ToolCallIDs()) > 0 {
			return true
		}
	}
	return false
}

// TrimToBudget keeps the newest contiguous linked groups of chronological msgs
// whose tokens fit within limit (plus fixed overhead), for read-only recall.
func TrimToBudget(msgs []message.Message, limit, overhead int) []message.Message {
	return budget.Apply(msgs, budget.Fit(msgs, budget.Policy{Limit: limit, Overhead: overhead}).Keep)
}

// BoundaryFor is the boundary candidate for removed messages of one thread:
// the newest removed timestamp and the ids removed at exactly that time,
// under the limits maxTokens and atMaxRemove.
func BoundaryFor(threadID string, removed []message.Message, maxTokens, atMaxRemove int) (store.Boundary, bool) {
	var newest time.Time
	var ids []string
	for _, msg := range removed {
		if msg.ThreadID != threadID {
			continue
		}
		switch {
		case msg.CreatedAt.After(newest):
			newest, ids = msg.CreatedAt, []string{msg.ID}
		case msg.CreatedAt.Equal(newest):
			ids = append(ids, msg.ID)
		}
	}
	if ids == nil {
		return store.Boundary{}, false
	}
	return store.Boundary{CreatedAt: newest, MessageIDs: ids, MaxTokens: maxTokens, AtMaxRemoveTokens: atMaxRemove}, true
}
