package core

import (
	"github.com/agentmem/agentmem/core/message"
	"sync/atomic"

	"github.com/agentmem/agentmem/core/budget"
)

// Tokenizer counts tokens of text. tokenizer.Tokenizer implements it.
// Implementations must be safe for concurrent use and deterministic: a
// message is counted once, when it is saved, and the count is stored with
// Encoding, so the same text must always give the same count under one
// encoding name.
type Tokenizer interface {
	Count(text string) int
	Encoding() string
}

// messageTokens counts messages with a Memory's tokenizer and tallies how
// many it counted (Memory.TokenizedMessages).
type messageTokens struct {
	tk Tokenizer
	n  atomic.Int64
}

// Count counts text.
func (c *messageTokens) Count(text string) int { return c.tk.Count(text) }

// Encoding names the tokenizer's encoding.
func (c *messageTokens) Encoding() string { return c.tk.Encoding() }

// count sets msg.Tokens unless it was already counted with this encoding.
func (c *messageTokens) count(msg *message.Message) {
	if msg.TokenEncoding == c.tk.Encoding() && msg.Tokens > 0 {
		return
	}
	msg.Tokens = budget.MessageTokens(c.tk, msg)
	msg.TokenEncoding = c.tk.Encoding()
	c.n.Add(1)
}

// Ensure counts a stored message whose count is missing or was made with
// another encoding (in memory only; storage is not rewritten).
func (c *messageTokens) Ensure(msg *message.Message) {
	if msg.TokenEncoding != c.tk.Encoding() || msg.Tokens <= 0 {
		msg.Tokens, msg.TokenEncoding = 0, ""
		c.count(msg)
	}
}
