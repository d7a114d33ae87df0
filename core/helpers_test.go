package core_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/internal/testenv"
)

var ctx = context.Background()

// text100 is a text whose message costs exactly 100 tokens under testenv.ByteTokenizer.
func text(tag string, cost int) string {
	return tag + strings.Repeat(".", cost-3-len(tag))
}

var base = time.Date(2026, 10, 30, 12, 0, 0, 0, time.UTC)

func T(n int) time.Time { return base.Add(time.Duration(n) * time.Second) }

func newMem(t testing.TB, s store.Store, cfg core.Config) *core.Memory {
	t.Helper()
	m, err := core.New(core.Options{Store: s, Config: cfg, Tokenizer: testenv.ByteTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func userAt(id, thread, res, txt string, at time.Time) core.Message {
	m := core.NewMessage(core.RoleUser, txt)
	m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = id, thread, res, at
	return m
}

func toolMsg(id, thread, res, callID, state string, at time.Time) core.Message {
	m := core.Message{ID: id, Role: core.RoleAssistant, ThreadID: thread, ResourceID: res, CreatedAt: at,
		Content: core.Content{Format: 2, Parts: []core.Part{{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
			State: state, ToolCallID: callID, ToolName: "weather", Args: []byte(`{"city":"Paris"}`)}}}}}
	if state == message.ToolStateResult {
		m.Content.Parts[0].ToolInvocation.Result = []byte(`{"temp":21}`)
	}
	return m
}

func ids(msgs []core.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

func conv(msgs []core.Message) []core.Message {
	var out []core.Message
	for _, m := range msgs {
		if m.Role != core.RoleSystem {
			out = append(out, m)
		}
	}
	return out
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// countingStore counts ListMessages calls and records their PerPage.
type countingStore struct {
	store.Store
	lists    atomic.Int64
	perPages []int
}

func (c *countingStore) ListMessages(ctx context.Context, q store.MessageQuery) (store.MessagePage, error) {
	c.lists.Add(1)
	c.perPages = append(c.perPages, q.PerPage)
	return c.Store.ListMessages(ctx, q)
}

func seed(t *testing.T, s store.Store, thread, res string, msgs ...core.Message) {
	t.Helper()
	if _, err := s.SaveThread(ctx, core.Thread{ID: thread, ResourceID: res, CreatedAt: T(-100), UpdatedAt: T(-100)}); err != nil {
		t.Fatal(err)
	}
	for i := range msgs {
		msgs[i].Tokens = budget.MessageTokens(testenv.ByteTokenizer{}, &msgs[i])
		msgs[i].TokenEncoding = "bytes"
	}
	if len(msgs) > 0 {
		if _, err := s.SaveMessages(ctx, msgs); err != nil {
			t.Fatal(err)
		}
	}
}

var _ = memstore.New

// fullStore is a driver with every optional capability.
type fullStore interface {
	store.Store
	store.ThreadCreator
	store.Resources
	store.Observations
	store.IndexQueue
}

// badToolPart is a tool-invocation part without its invocation.
var badToolPart = core.Part{Type: core.PartToolInvocation} // no ToolInvocation
