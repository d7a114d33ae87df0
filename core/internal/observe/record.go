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
// observed ids are those of the lookback window before it (seen gives the
// times of the ids observed before; the batch is added to it). Only the new
// text is counted, so the record's token count stays what the tokenizer
// gave each write.
func Append(rec store.ObservationRecord, batch []message.Message, text string, seen map[string]time.Time, tk Counter) store.ObservationRecord {
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
		seen[msg.ID] = msg.CreatedAt
		if msg.CreatedAt.After(next.LastObservedAt) {
			next.LastObservedAt = msg.CreatedAt
		}
	}
	cutoff := next.LastObservedAt.Add(-store.ObservationLookback)
	next.ObservedMessageIDs = nil
	for _, id := range rec.ObservedMessageIDs {
		if at, ok := seen[id]; ok && !at.Before(cutoff) {
			next.ObservedMessageIDs = append(next.ObservedMessageIDs, id)
		}
	}
	for _, msg := range batch {
		if !msg.CreatedAt.Before(cutoff) && !slices.Contains(next.ObservedMessageIDs, msg.ID) {
			next.ObservedMessageIDs = append(next.ObservedMessageIDs, msg.ID)
		}
	}
	// A buffered chunk over messages now observed is never applied.
	next.DropObservedChunks()
	return next
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
