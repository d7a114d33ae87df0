package observe

import (
	"slices"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/internal/transcript"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// Counter counts the tokens of a text.
type Counter interface {
	Count(text string) int
}

// Append returns rec with a batch's observation text appended and the
// cursor moved past the batch: LastObservedAt never moves back, and the
// observed ids are those of the lookback window before it. times gives the
// creation times of rec's observed ids that the window may leave behind
// (see Cutoff; ids it lacks stay), and receives the batch's. When the window
// moves past rec's cursor, every earlier id leaves it. Only the new text is
// counted, so the record's token count stays what the tokenizer gave each
// write. The batch's ids leave rec's unobserved ids.
func Append(rec store.ObservationRecord, batch []message.Message, text string, times map[string]time.Time, tk Counter) store.ObservationRecord {
	next := rec.Clone()
	if text != "" {
		if next.Observations == "" {
			next.Observations = text
			next.ObservationTokens = tk.Count(text)
		} else {
			next.Observations += "\n" + text
			next.ObservationTokens += tk.Count("\n" + text)
		}
	}
	for _, msg := range batch {
		times[msg.ID] = msg.CreatedAt
		if msg.CreatedAt.After(next.LastObservedAt) {
			next.LastObservedAt = msg.CreatedAt
		}
	}
	cutoff := next.LastObservedAt.Add(-store.ObservationLookback)
	next.ObservedMessageIDs = nil
	if !cutoff.After(rec.LastObservedAt) {
		for _, id := range rec.ObservedMessageIDs {
			if at, ok := times[id]; !ok || !at.Before(cutoff) {
				next.ObservedMessageIDs = append(next.ObservedMessageIDs, id)
			}
		}
	}
	listed := make(map[string]bool, len(next.ObservedMessageIDs)+len(batch))
	for _, id := range next.ObservedMessageIDs {
		listed[id] = true
	}
	for _, msg := range batch {
		if !msg.CreatedAt.Before(cutoff) && !listed[msg.ID] {
			listed[msg.ID] = true
			next.ObservedMessageIDs = append(next.ObservedMessageIDs, msg.ID)
		}
	}
	inBatch := make(map[string]bool, len(batch))
	for _, msg := range batch {
		inBatch[msg.ID] = true
	}
	if next.UnobservedMessageIDs = slices.DeleteFunc(next.UnobservedMessageIDs, func(id string) bool { return inBatch[id] }); len(next.UnobservedMessageIDs) == 0 {
		next.UnobservedMessageIDs = nil
	}
	// A buffered chunk over messages now observed is never applied.
	next.DropObservedChunks()
	return next
}

// Cutoff is the start of the lookback window once rec has observed msgs:
// the observed ids created before it leave the record (Append needs their
// times). It is never before rec.ObservedSince.
func Cutoff(rec store.ObservationRecord, msgs []message.Message) time.Time {
	last := rec.LastObservedAt
	for _, m := range msgs {
		if m.CreatedAt.After(last) {
			last = m.CreatedAt
		}
	}
	return last.Add(-store.ObservationLookback)
}

// Clean strips reasoning blocks, blank lines and surrounding space from a
// model's reply, and makes the text storable (valid UTF-8, no NUL).
func Clean(s string) string {
	s = transcript.StripReasoning(s)
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// Batches splits chronological messages into runs of at most maxTokens
// (a larger message is a batch of its own).
func Batches(msgs []message.Message, maxTokens int) [][]message.Message {
	var out [][]message.Message
	var cur []message.Message
	sum := 0
	for _, msg := range msgs {
		if len(cur) > 0 && sum+msg.Tokens > maxTokens {
			out, cur, sum = append(out, cur), nil, 0
		}
		cur = append(cur, msg)
		sum += msg.Tokens
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Tokens is the sum of the messages' stored token counts.
func Tokens(msgs []message.Message) int {
	n := 0
	for i := range msgs {
		n += msgs[i].Tokens
	}
	return n
}
