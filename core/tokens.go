package core

import (
	"strings"

	"github.com/agentmem/agentmem/core/message"
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

// Token overheads as OpenAI documents them for chat models: every message
// costs its content plus 3 tokens of framing and its role; every reply is
// primed with 3 tokens; a tool result is sent as its own message.
const (
	tokensPerMessage      = 3
	tokensReplyPriming    = 3
	tokensPerToolResult   = 3
	tokensPerImage        = 765
	maxFileTokenEstimate  = 4096
	bytesPerTokenEstimate = 4
)

// CountMessageTokens returns the prompt cost of m: role, text, reasoning, tool
// names, arguments and results (as JSON), files, plus per-message framing.
func CountMessageTokens(tk Tokenizer, m *Message) int {
	n := tokensPerMessage + tk.Count(string(m.Role))
	for i := range m.Content.Parts {
		p := &m.Content.Parts[i]
		switch p.Type {
		case PartText:
			n += tk.Count(p.Text)
		case PartReasoning:
			n += tk.Count(p.Reasoning)
		case PartToolInvocation:
			ti := p.ToolInvocation
			n += tk.Count(ti.ToolName) + tk.Count(string(ti.Args))
			if ti.State == message.ToolStateResult {
				n += tokensPerToolResult + tk.Count(string(ti.Result)) + tk.Count(ti.ErrorText)
			}
		case PartFile:
			if strings.HasPrefix(p.MimeType, "image/") {
				n += tokensPerImage
			} else {
				n += min(len(p.Data)/bytesPerTokenEstimate, maxFileTokenEstimate)
			}
		}
	}
	return n
}

// CountTextTokens returns the prompt cost of a system message with this text.
func CountTextTokens(tk Tokenizer, text string) int {
	return tokensPerMessage + tk.Count(string(RoleSystem)) + tk.Count(text)
}
