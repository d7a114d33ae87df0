package eino_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/internal/testenv"
)

var ctx = context.Background()

func newMemory(t testing.TB, s store.Store, cfg core.Config) *core.Memory {
	t.Helper()
	if s == nil {
		s = memstore.New()
	}
	m, err := core.New(core.Options{Store: s, Config: cfg, Tokenizer: testenv.ByteTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// scripted is a ToolCallingChatModel that replies from a script and records
// (and lets the test check) every prompt it receives.
type scripted struct {
	mu      sync.Mutex
	t       testing.TB
	calls   int
	prompts [][]*schema.Message
	// reply returns the answer to the n-th call (from 0) for the prompt.
	reply func(n int, prompt []*schema.Message) *schema.Message
	// chunks, when set, splits a streamed reply.
	chunks func(*schema.Message) []*schema.Message
}

var _ model.ToolCallingChatModel = (*scripted)(nil)

func (s *scripted) next(in []*schema.Message) *schema.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.calls
	s.calls++
	cp := make([]*schema.Message, len(in))
	copy(cp, in)
	s.prompts = append(s.prompts, cp)
	return s.reply(n, in)
}

// Generate and Stream fail on an ended context before taking the call, as a
// client of a model service does.
func (s *scripted) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := s.next(in)
	if out == nil {
		return nil, fmt.Errorf("script has no reply for call %d", s.calls-1)
	}
	return out, nil
}

func (s *scripted) Stream(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := s.next(in)
	if out == nil {
		return nil, fmt.Errorf("script has no reply for call %d", s.calls-1)
	}
	chunks := []*schema.Message{out}
	if s.chunks != nil {
		chunks = s.chunks(out)
	}
	sr, sw := schema.Pipe[*schema.Message](len(chunks))
	go func() {
		defer sw.Close()
		for _, c := range chunks {
			sw.Send(c, nil)
		}
	}()
	return sr, nil
}

func (s *scripted) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return s, nil }

func (s *scripted) prompt(n int) []*schema.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prompts[n]
}

// splitContent streams a message as one chunk per three runes of its content,
// with the tool calls and usage on the last chunk.
func splitContent(m *schema.Message) []*schema.Message {
	var out []*schema.Message
	rs := []rune(m.Content)
	for i := 0; i < len(rs); i += 3 {
		j := min(i+3, len(rs))
		out = append(out, &schema.Message{Role: schema.Assistant, Content: string(rs[i:j])})
	}
	last := &schema.Message{Role: schema.Assistant, ToolCalls: m.ToolCalls, ResponseMeta: m.ResponseMeta, ReasoningContent: m.ReasoningContent}
	return append(out, last)
}

func readAll(t testing.TB, sr *schema.StreamReader[*schema.Message]) []*schema.Message {
	t.Helper()
	defer sr.Close()
	var out []*schema.Message
	for {
		c, err := sr.Recv()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
}

// stored returns every stored message of a thread, chronologically.
func stored(t testing.TB, m *core.Memory, thread string) []core.Message {
	t.Helper()
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: thread, PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	return res.Messages
}

func roles(msgs []*schema.Message) string {
	s := ""
	for i, m := range msgs {
		if i > 0 {
			s += ","
		}
		s += string(m.Role)
		if len(m.ToolCalls) > 0 {
			s += "[calls]"
		}
	}
	return s
}
