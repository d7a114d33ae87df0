package budget

import (
	"runtime"
	"strings"
	"sync"

	"github.com/agentmem/agentmem/core/message"
)

// Counter counts the tokens of a text. tokenizer.Tokenizer and
// core.Tokenizer implement it.
type Counter interface {
	Count(text string) int
}

// Token overheads as OpenAI documents them for chat models: every message
// costs its content plus 3 tokens of framing and its role; every reply is
// primed with 3 tokens; a tool result is sent as its own message.
const (
	tokensPerMessage      = 3
	tokensPerToolResult   = 3
	tokensPerImage        = 765
	maxFileTokenEstimate  = 4096
	bytesPerTokenEstimate = 4

	// ReplyPriming is what every prompt costs besides its messages.
	ReplyPriming = 3
)

// MessageTokens returns the prompt cost of m: role, text, reasoning, tool
// names, arguments and results (as JSON), files, plus per-message framing.
func MessageTokens(tk Counter, m *message.Message) int {
	n := tokensPerMessage + tk.Count(string(m.Role))
	for i := range m.Content.Parts {
		p := &m.Content.Parts[i]
		switch p.Type {
		case message.PartText:
			n += tk.Count(p.Text)
		case message.PartReasoning:
			n += tk.Count(p.Reasoning)
		case message.PartToolInvocation:
			ti := p.ToolInvocation
			n += tk.Count(ti.ToolName) + tk.Count(string(ti.Args))
			if ti.State == message.ToolStateResult {
				n += tokensPerToolResult + tk.Count(string(ti.Result)) + tk.Count(ti.ErrorText)
			}
		case message.PartFile:
			if strings.HasPrefix(p.MimeType, "image/") {
				n += tokensPerImage
			} else {
				n += min(len(p.Data)/bytesPerTokenEstimate, maxFileTokenEstimate)
			}
		}
	}
	return n
}

// TextTokens returns the prompt cost of a system message with this text.
func TextTokens(tk Counter, text string) int {
	return tokensPerMessage + tk.Count(string(message.RoleSystem)) + tk.Count(text)
}

// PromptTokens returns the token count of a prompt from its messages' stored
// counts (Message.Tokens), reply priming included.
func PromptTokens(lists ...[]message.Message) int {
	total := ReplyPriming
	for _, l := range lists {
		for i := range l {
			total += l[i].Tokens
		}
	}
	return total
}

// parallelCountBytes is the least text a batch holds to be counted on several
// goroutines, each taking at least half of it. Below it, handing work to a
// second goroutine (and the idle processor spinning after it) costs more
// than the count it takes over: a batch of 100 chat messages (~5 KB) counted
// on two goroutines made a PostgreSQL save ~7% slower in wall time than
// counted on one. A batch of 1,000 such messages takes ~1.5 ms to count on
// one core.
const parallelCountBytes = 64 << 10

// CountAll calls count for every message of msgs, spreading a large batch
// over the available cores; count must be safe for concurrent use.
func CountAll(msgs []message.Message, count func(*message.Message)) {
	procs := runtime.GOMAXPROCS(0)
	workers := min(procs, len(msgs), countedBytes(msgs, parallelCountBytes*procs)/(parallelCountBytes/2))
	if workers < 2 {
		for i := range msgs {
			count(&msgs[i])
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (len(msgs) + workers - 1) / workers
	for lo := 0; lo < len(msgs); lo += chunk {
		part := msgs[lo:min(lo+chunk, len(msgs))]
		wg.Go(func() {
			for i := range part {
				count(&part[i])
			}
		})
	}
	wg.Wait()
}

// countedBytes is about how many bytes MessageTokens reads in msgs, summed
// until it reaches limit. It lists the same fields; one it misses only
// changes which batches are split, never a count.
func countedBytes(msgs []message.Message, limit int) int {
	n := 0
	for i := range msgs {
		for j := range msgs[i].Content.Parts {
			p := &msgs[i].Content.Parts[j]
			n += len(p.Text) + len(p.Reasoning)
			if ti := p.ToolInvocation; ti != nil {
				n += len(ti.ToolName) + len(ti.Args) + len(ti.Result) + len(ti.ErrorText)
			}
		}
		if n >= limit {
			break
		}
	}
	return n
}
