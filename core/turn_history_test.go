package core_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

// decodeCounter counts the messages its store hands over decoded: every
// message of ListMessages and GetMessages, the non-bare ones of ListWindow.
type decodeCounter struct {
	store.Store
	window  store.WindowReader // nil: the store's ListWindow is hidden
	decoded int
}

func (d *decodeCounter) ListMessages(ctx context.Context, q store.MessageQuery) (store.MessagePage, error) {
	p, err := d.Store.ListMessages(ctx, q)
	d.decoded += len(p.Messages) + len(p.Included)
	return p, err
}

func (d *decodeCounter) GetMessages(ctx context.Context, ids []string) ([]core.Message, error) {
	msgs, err := d.Store.GetMessages(ctx, ids)
	d.decoded += len(msgs)
	return msgs, err
}

// windowCounter is a decodeCounter that offers the store's ListWindow.
type windowCounter struct{ *decodeCounter }

func (w windowCounter) ListWindow(ctx context.Context, q store.MessageQuery, fit store.WindowFit) (store.WindowPage, error) {
	p, err := w.window.ListWindow(ctx, q, fit)
	for _, bare := range p.Bare {
		if !bare {
			w.decoded++
		}
	}
	return p, err
}

// TestBeginDecodesWhatItReturns: Begin with an 8,000-token budget on a long
// SQLite thread (tool calls among the messages) decodes no more messages
// than it returns plus one tool group, where reading with ListMessages alone
// decodes the whole first page.
func TestBeginDecodesWhatItReturns(t *testing.T) {
	const n = 20000
	s := longThread(t, n)
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 8000}}
	begin := func(st store.Store, d *decodeCounter) (decoded, returned int) {
		m := newMem(t, st, cfg)
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "long", ResourceID: "r", Config: &core.Config{ReadOnly: core.Bool(true)},
			Input: []core.Message{userAt("q", "long", "r", "what did we say?", T(n))}})
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range turn.Messages() {
			if msg.Source == core.SourceMemory {
				returned++
			}
		}
		return d.decoded, returned
	}
	fast := &decodeCounter{Store: s, window: s}
	decoded, returned := begin(windowCounter{fast}, fast)
	slow := &decodeCounter{Store: s}
	listDecoded, listReturned := begin(slow, slow)
	if returned != listReturned || returned < 20 {
		t.Fatalf("returned %d messages, %d without ListWindow", returned, listReturned)
	}
	if decoded > returned+2 {
		t.Fatalf("decoded %d messages to return %d", decoded, returned)
	}
	if listDecoded <= decoded {
		t.Fatalf("without ListWindow %d decoded, with it %d: the counter does not tell them apart", listDecoded, decoded)
	}
	t.Logf("returned %d; decoded %d (ListMessages alone: %d)", returned, decoded, listDecoded)
}

// BenchmarkBeginWindow: a read-only Begin (8,000 tokens) on a 20,000-message
// SQLite thread, reading history with ListWindow and with ListMessages alone.
func BenchmarkBeginWindow(b *testing.B) {
	const n = 20000
	s := longThread(b, n)
	for _, c := range []struct {
		name string
		st   store.Store
	}{{"ListWindow", s}, {"ListMessages", &decodeCounter{Store: s}}} {
		b.Run(c.name, func(b *testing.B) {
			m := newMem(b, c.st, core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 8000}, ReadOnly: core.Bool(true)})
			req := core.TurnRequest{ThreadID: "long", ResourceID: "r", Input: []core.Message{userAt("q", "long", "r", "what did we say?", T(n))}}
			for b.Loop() {
				if _, err := m.Begin(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// longThread is a SQLite store holding thread "long" of n messages, every
// tenth pair a tool call and its result.
func longThread(t testing.TB, n int) *sqlite.Store {
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "long.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	seed := newMem(t, s, core.Config{})
	if _, err := seed.CreateThread(ctx, core.ThreadInput{ID: "long", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	var batch []core.Message
	for i := range n {
		at := T(i)
		msg := userAt(fmt.Sprintf("m%05d", i), "long", "r", fmt.Sprintf("message %d: %s", i, strings.Repeat("word ", 20+i%17)), at)
		switch i % 10 {
		case 7:
			msg = toolMsg(msg.ID, "long", "r", fmt.Sprintf("call-%d", i), message.ToolStateCall, at)
		case 8:
			msg = toolMsg(msg.ID, "long", "r", fmt.Sprintf("call-%d", i-1), message.ToolStateResult, at)
		case 1, 3, 5:
			msg.Role = core.RoleAssistant
		}
		if batch = append(batch, msg); len(batch) == 1000 {
			if _, err := seed.SaveMessages(ctx, batch, nil); err != nil {
				t.Fatal(err)
			}
			batch = nil
		}
	}
	return s
}

// shortBare is a store whose ListWindow marks fewer messages than it lists.
type shortBare struct{ *memstore.Store }

func (s shortBare) ListWindow(ctx context.Context, q store.MessageQuery, fit store.WindowFit) (store.WindowPage, error) {
	p, err := s.Store.ListWindow(ctx, q, fit)
	p.Bare = p.Bare[:len(p.Bare)/2]
	return p, err
}

func TestListWindowMarksEveryMessage(t *testing.T) {
	s := memstore.New()
	seed := newMem(t, s, core.Config{})
	if _, err := seed.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := seed.SaveMessages(ctx, []core.Message{userAt("a", "t", "r", "hello", T(1)), userAt("b", "t", "r", "again", T(2))}, nil); err != nil {
		t.Fatal(err)
	}
	m := newMem(t, shortBare{s}, core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 8000}})
	_, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{userAt("q", "t", "r", "?", T(3))}})
	if !errors.Is(err, core.ErrStorage) {
		t.Fatalf("Begin over a store marking half its window: %v", err)
	}
}
