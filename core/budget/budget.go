// Package budget is agentmem's one place for token counts and token trims.
// A message is counted once, when it is saved (MessageTokens), and its count
// is stored with it; the turn's token budget, Memory.Recall's read-only
// window and processors.TokenLimiter all decide what to keep with Fit, so a
// tool call and its result are always kept or dropped together and the same
// counts give the same choice everywhere.
//
//	import "github.com/agentmem/agentmem/core/budget"
package budget

import "github.com/agentmem/agentmem/core/message"

// Policy tells Fit what to keep.
type Policy struct {
	// Limit is what the kept messages may use, Overhead included.
	Limit int
	// Overhead is fixed cost outside msgs (reply priming, system messages).
	Overhead int
	// Protected marks messages that are always kept, with their group,
	// whatever they cost (the turn's input, system messages).
	Protected func(m *message.Message) bool
	// Rank orders the unprotected groups from the one to keep first; nil
	// keeps the newest first. A group is given by its message indexes.
	Rank func(groups [][]int) [][]int
	// BestFit keeps scanning after a group does not fit; otherwise the
	// first group that does not fit ends the walk (the kept groups are then
	// a contiguous run in Rank order).
	BestFit bool
}

// Result is what Fit chose.
type Result struct {
	Keep []bool // per message of msgs
	Used int    // tokens of the kept messages plus Overhead
	// Kept counts the unprotected groups kept.
	Kept int
}

// Fit chooses the messages of msgs to keep under p, by linked tool-call
// groups (message.ToolGroups), using each message's stored Tokens.
// Protected groups are kept first; the others are kept in Rank order while
// they fit.
func Fit(msgs []message.Message, p Policy) Result {
	groups := message.ToolGroups(msgs)
	r := Result{Keep: make([]bool, len(msgs)), Used: p.Overhead}
	var open [][]int
	for _, g := range groups {
		if p.Protected != nil && anyOf(msgs, g, p.Protected) {
			keep(&r, msgs, g)
			continue
		}
		open = append(open, g)
	}
	if p.Rank != nil {
		open = p.Rank(open)
	} else {
		open = newestFirst(open)
	}
	for _, g := range open {
		if r.Used+Tokens(msgs, g) > p.Limit {
			if p.BestFit {
				continue
			}
			break
		}
		keep(&r, msgs, g)
		r.Kept++
	}
	return r
}

// Tokens sums the stored token counts of the messages at idx.
func Tokens(msgs []message.Message, idx []int) int {
	sum := 0
	for _, i := range idx {
		sum += msgs[i].Tokens
	}
	return sum
}

// Apply returns the kept messages of msgs, in order.
func Apply(msgs []message.Message, keep []bool) []message.Message {
	n := 0
	for _, k := range keep {
		if k {
			n++
		}
	}
	out := make([]message.Message, 0, n)
	for i, k := range keep {
		if k {
			out = append(out, msgs[i])
		}
	}
	return out
}

func keep(r *Result, msgs []message.Message, g []int) {
	for _, i := range g {
		r.Keep[i] = true
	}
	r.Used += Tokens(msgs, g)
}

func anyOf(msgs []message.Message, g []int, f func(*message.Message) bool) bool {
	for _, i := range g {
		if f(&msgs[i]) {
			return true
		}
	}
	return false
}

func newestFirst(groups [][]int) [][]int {
	out := make([][]int, len(groups))
	for i, g := range groups {
		out[len(groups)-1-i] = g
	}
	return out
}
