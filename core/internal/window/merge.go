package window

import (
	"slices"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// Merge merges message lists, dropping duplicate ids, sorted by (CreatedAt, Seq).
func Merge(lists ...[]message.Message) []message.Message {
	var out []message.Message
	seen := map[string]bool{}
	for _, l := range lists {
		for _, msg := range l {
			if !seen[msg.ID] {
				seen[msg.ID] = true
				out = append(out, msg)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b message.Message) int {
		if message.Less(&a, &b) {
			return -1
		}
		if message.Less(&b, &a) {
			return 1
		}
		return 0
	})
	return out
}

// AfterBoundary drops the messages of threadID that its boundary b excludes,
// when b was set under the limits of epoch: a read under the same budget
// returns nothing the budget already trimmed.
func AfterBoundary(threadID string, b *store.Boundary, epoch store.Boundary, msgs []message.Message) []message.Message {
	if b == nil || !b.SameEpoch(epoch) {
		return msgs
	}
	out := msgs[:0:0]
	for _, msg := range msgs {
		if msg.ThreadID != threadID || !b.Excludes(msg.CreatedAt, msg.ID) {
			out = append(out, msg)
		}
	}
	return out
}

// WithoutIDs returns msgs without the messages whose id is in drop.
func WithoutIDs(msgs, drop []message.Message) []message.Message {
	ids := make(map[string]bool, len(drop))
	for _, d := range drop {
		ids[d.ID] = true
	}
	out := msgs[:0:0]
	for _, msg := range msgs {
		if !ids[msg.ID] {
			out = append(out, msg)
		}
	}
	return out
}

// SetSource marks every message of msgs with src and returns msgs.
func SetSource(msgs []message.Message, src message.Source) []message.Message {
	for i := range msgs {
		msgs[i].Source = src
	}
	return msgs
}

// Clone deep-copies msgs.
func Clone(msgs []message.Message) []message.Message {
	out := make([]message.Message, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].Clone()
	}
	return out
}
