package langchaingo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// recordingLLM is an llms.Model that records every request and answers from
// a script (cycling), or with "echo: <last text>" when the script is empty.
type recordingLLM struct {
	mu        sync.Mutex
	responses []*llms.ContentChoice
	calls     [][]llms.MessageContent
	next      int
}

func scripted(texts ...string) *recordingLLM {
	r := &recordingLLM{}
	for _, t := range texts {
		r.responses = append(r.responses, &llms.ContentChoice{Content: t})
	}
	return r
}

func (r *recordingLLM) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, msgs)
	if len(r.responses) == 0 {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "echo: " + lastText(msgs)}}}, nil
	}
	c := *r.responses[r.next%len(r.responses)]
	r.next++
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{&c}}, nil
}

func (r *recordingLLM) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, prompt, options...)
}

// prompts returns the text of every request (parts joined per message).
func (r *recordingLLM) prompts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, call := range r.calls {
		var b strings.Builder
		for _, mc := range call {
			for _, p := range mc.Parts {
				fmt.Fprint(&b, partText(p))
			}
		}
		out = append(out, b.String())
	}
	return out
}

func (r *recordingLLM) requests() [][]llms.MessageContent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]llms.MessageContent(nil), r.calls...)
}

func partText(p llms.ContentPart) string {
	switch p := p.(type) {
	case llms.TextContent:
		return p.Text
	case llms.ToolCall:
		return "[call " + p.ID + "]"
	case llms.ToolCallResponse:
		return "[result " + p.ToolCallID + ": " + p.Content + "]"
	}
	return fmt.Sprintf("%v", p)
}

func lastText(msgs []llms.MessageContent) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, p := range msgs[i].Parts {
			if t, ok := p.(llms.TextContent); ok {
				return t.Text
			}
		}
	}
	return ""
}

// newMem returns a core.Memory over a fresh memstore.
func newMem(t testing.TB, cfg core.Config) *core.Memory {
	t.Helper()
	m, err := core.New(core.Options{Store: memstore.New(), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
