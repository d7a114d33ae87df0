package indexing

import (
	"strings"

	"github.com/agentmem/agentmem/core/message"
)

// Prior are the messages of a thread before a turn, as the turn
// loaded them (newest last).
type Prior struct {
	Thread   string
	Messages []message.Message
	Complete bool            // every message of the thread before the turn
	Bare     map[string]bool // messages loaded without content
}

// Before returns the last n prior messages of thread when the turn's load
// is enough to know them without a read.
func (p *Prior) Before(thread string, n int) ([]message.Message, bool) {
	if p == nil || p.Thread != thread || (len(p.Messages) < n && !p.Complete) {
		return nil, false
	}
	last := p.Messages[max(len(p.Messages)-n, 0):]
	for i := range last {
		if p.Bare[last[i].ID] {
			return nil, false
		}
	}
	return last, true
}

// Contexts sets out[id], for each message of list (one thread, in order), to
// the indexed text of the r.Context messages before it: the messages of
// before (oldest first), then earlier messages of list.
func (r *Recipe) Contexts(before, list []message.Message, out map[string]string) {
	var window []string // the texts of the last r.Context messages, oldest first
	for i := range before {
		window = appendWindow(window, r.MessageText(&before[i]), r.Context)
	}
	for i := range list {
		out[list[i].ID] = strings.Join(window, "\n")
		window = appendWindow(window, r.MessageText(&list[i]), r.Context)
	}
}

// appendWindow appends text to a sliding window of at most n texts.
func appendWindow(window []string, text string, n int) []string {
	if text == "" {
		return window
	}
	window = append(window, text)
	if len(window) > n {
		window = window[len(window)-n:]
	}
	return window
}
