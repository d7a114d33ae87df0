package window

import (
	"maps"
	"slices"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// MarkRecalled merges the recalled messages of this thread into the
// conversation and ranks every message of a recalled window (hit and range)
// by its best hit (0 = most relevant), also when history already held it.
// Only the messages recall adds are marked message.SourceRecall: a message
// of the history window stays history (message.SourceMemory).
func MarkRecalled(conv, same []message.Message, inc []store.Include) ([]message.Message, map[string]int) {
	inHistory := make(map[string]bool, len(conv))
	for i := range conv {
		inHistory[conv[i].ID] = true
	}
	conv = Merge(conv, same)
	pos := make(map[string]int, len(conv))
	for i := range conv {
		pos[conv[i].ID] = i
	}
	ranks := map[string]int{}
	for r, in := range inc {
		i, ok := pos[in.ID]
		if !ok {
			continue // another thread's hit
		}
		for j := max(i-in.Before, 0); j <= min(i+in.After, len(conv)-1); j++ {
			if cur, seen := ranks[conv[j].ID]; !seen || r < cur {
				ranks[conv[j].ID] = r
			}
		}
	}
	for i := range conv {
		if _, ok := ranks[conv[i].ID]; ok && !inHistory[conv[i].ID] {
			conv[i].Source = message.SourceRecall
		}
	}
	return conv, ranks
}

// Remembered is how a prompt over its token budget gives way
// (Turn.Trimmed lists what was dropped). What is kept, in order, while it fits
// limit:
//
//  1. Always: system messages (instructions, working memory, observations,
//     the recalled messages of other threads, all in overhead), context and
//     input.
//  2. The newest exchange of history: its sliding-history messages from the
//     last user message on, newest first, a tool call with its result.
//  3. Recalled messages of this thread, most relevant hit first, each hit
//     whole with its message range, also the part of it history held.
//  4. The rest of sliding history (message.SourceMemory), newest first.
//
// The walk stops at the first unit that does not fit, so older history
// gives way first, oldest first, then recalled hits, least relevant first,
// and the newest exchange last. Before the walk, a unit larger than the
// whole room remembered messages have (limit minus overhead and what is
// always kept) is dropped on its own: one oversized message never empties
// the window. Only dropped sliding history advances the thread's persisted
// boundary (SlidingOnly).
func Remembered(conv []message.Message, ranks map[string]int, limit, overhead int) budget.Policy {
	protected := func(m *message.Message) bool {
		return m.Source != message.SourceMemory && m.Source != message.SourceRecall
	}
	room := limit - overhead
	for i := range conv {
		if protected(&conv[i]) {
			room -= conv[i].Tokens
		}
	}
	return budget.Policy{
		Limit:     limit,
		Overhead:  overhead,
		Protected: protected,
		Rank:      func(groups [][]int) [][]int { return keepOrder(conv, ranks, groups, room) },
	}
}

// keepOrder returns the units to keep first: the newest exchange's groups
// newest first, recalled hits by relevance (the groups of one hit merged),
// then the other sliding-history groups newest first; units larger than room
// are left out (dropped).
func keepOrder(conv []message.Message, ranks map[string]int, groups [][]int, room int) [][]int {
	exchange := newestExchange(conv)
	byRank := map[int][]int{}
	var newest, sliding [][]int
	for _, g := range groups {
		rank := -1
		for _, i := range g {
			if r, ok := ranks[conv[i].ID]; ok && (rank < 0 || r < rank) {
				rank = r
			}
		}
		switch {
		case slices.Max(g) >= exchange && conv[slices.Max(g)].Source == message.SourceMemory:
			newest = append(newest, g)
		case rank >= 0:
			byRank[rank] = append(byRank[rank], g...)
		default:
			sliding = append(sliding, g)
		}
	}
	newestFirst := func(a, b []int) int { return slices.Max(b) - slices.Max(a) }
	slices.SortFunc(newest, newestFirst)
	out := newest
	for _, r := range slices.Sorted(maps.Keys(byRank)) {
		out = append(out, byRank[r])
	}
	slices.SortFunc(sliding, newestFirst)
	out = append(out, sliding...)
	return slices.DeleteFunc(out, func(u []int) bool { return budget.Tokens(conv, u) > room })
}

// newestExchange returns the index in conv of the newest exchange's first
// message: the last sliding-history user message, or the last
// sliding-history message when history has no user message (len(conv) when
// there is no history).
func newestExchange(conv []message.Message) int {
	last := len(conv)
	for i := len(conv) - 1; i >= 0; i-- {
		if conv[i].Source != message.SourceMemory {
			continue
		}
		if conv[i].Role == message.RoleUser {
			return i
		}
		if last == len(conv) {
			last = i
		}
	}
	return last
}

// SlidingOnly returns the sliding-history messages of dropped: only they
// advance the persisted boundary.
func SlidingOnly(dropped []message.Message) []message.Message {
	out := dropped[:0:0]
	for _, msg := range dropped {
		if msg.Source == message.SourceMemory {
			out = append(out, msg)
		}
	}
	return out
}
