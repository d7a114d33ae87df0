package store

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
)

// ObservationBuffer holds what the observer and the reflector made ahead of
// time and is not active yet: chunks of observations of messages that are
// still unobserved, and a condensed generation waiting to replace the
// observations it was made from. It is part of the ObservationRecord, so it
// is written with the record's compare-and-set and survives a restart.
type ObservationBuffer struct {
	Chunks     []BufferedChunk     `json:"chunks,omitempty"`
	Reflection *BufferedReflection `json:"reflection,omitempty"`
}

// BufferedChunk is the observer's output for a run of messages, made in the
// background and not yet active. Activating it appends Observations to the
// active ones and marks Messages observed in the same write.
type BufferedChunk struct {
	Observations string `json:"observations"`
	// Tokens is the token count of Observations.
	Tokens int `json:"tokens"`
	// MessageTokens is the sum of the covered messages' token counts.
	MessageTokens int `json:"messageTokens"`
	// Messages are the covered messages, oldest first.
	Messages []ObservedMessage `json:"messages"`
	// Generation is the record's generation the chunk was made against.
	Generation int       `json:"generation"`
	CreatedAt  time.Time `json:"createdAt"`
}

// ObservedMessage names a message covered by a buffered chunk.
type ObservedMessage struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"createdAt"`
}

// BufferedReflection is the reflector's output for the first InputLength
// bytes of the observations of Generation, made in the background. It is
// activated only while the record is still at Generation and its
// observations still start with the same text (see InputHash).
type BufferedReflection struct {
	Observations string `json:"observations"`
	Tokens       int    `json:"tokens"`
	Generation   int    `json:"generation"`
	// InputLength is the length of the reflected prefix of the observations.
	InputLength int `json:"inputLength"`
	// InputHash identifies the reflected prefix.
	InputHash string    `json:"inputHash"`
	CreatedAt time.Time `json:"createdAt"`
}

// Empty reports whether b holds nothing.
func (b ObservationBuffer) Empty() bool { return len(b.Chunks) == 0 && b.Reflection == nil }

// Clone returns a deep copy of b.
func (b ObservationBuffer) Clone() ObservationBuffer {
	out := ObservationBuffer{}
	for _, c := range b.Chunks {
		c.Messages = slices.Clone(c.Messages)
		out.Chunks = append(out.Chunks, c)
	}
	if b.Reflection != nil {
		r := *b.Reflection
		out.Reflection = &r
	}
	return out
}

// Covers reports whether a chunk of b covers the message id.
func (b ObservationBuffer) Covers(id string) bool {
	for _, c := range b.Chunks {
		for _, m := range c.Messages {
			if m.ID == id {
				return true
			}
		}
	}
	return false
}

// EncodeObservationBuffer is the stored form of b (JSON; "{}" when empty).
func EncodeObservationBuffer(b ObservationBuffer) string {
	out, _ := json.Marshal(b)
	return string(out)
}

// DecodeObservationBuffer reads the stored form of a buffer; "" is empty.
func DecodeObservationBuffer(s string) (ObservationBuffer, error) {
	var b ObservationBuffer
	if s == "" {
		return b, nil
	}
	err := json.Unmarshal([]byte(s), &b)
	return b, err
}

// checkBuffer validates the buffer of a write: token counts are not
// negative, every chunk covers messages, no message is covered twice or is
// already observed by rec, and no chunk is made against a later generation.
func checkBuffer(rec ObservationRecord) error {
	const op = "PutObservations"
	seen := map[string]bool{}
	observed := rec.ObservedFunc()
	for _, c := range rec.Buffer.Chunks {
		if c.Tokens < 0 || c.MessageTokens < 0 {
			return memerr.Errorf(memerr.CodeInvalidArgument, op, "buffered chunk token counts must be non-negative")
		}
		if len(c.Messages) == 0 {
			return memerr.Errorf(memerr.CodeInvalidArgument, op, "a buffered chunk must cover at least one message")
		}
		if c.Generation > rec.Generation {
			return memerr.Errorf(memerr.CodeInvalidArgument, op, "buffered chunk of generation %d is ahead of the record's %d", c.Generation, rec.Generation)
		}
		for _, m := range c.Messages {
			if err := ValidateID("id", m.ID); err != nil {
				return memerr.WithOp(op, err)
			}
			if seen[m.ID] || observed(m.CreatedAt, m.ID) {
				return memerr.Errorf(memerr.CodeInvalidArgument, op, "message %s is buffered twice or already observed", m.ID)
			}
			seen[m.ID] = true
		}
	}
	if r := rec.Buffer.Reflection; r != nil && (r.Tokens < 0 || r.InputLength < 0 || r.Generation > rec.Generation) {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "buffered reflection has negative counts or a generation ahead of the record")
	}
	return nil
}
