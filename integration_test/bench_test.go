package integration_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

var bg = context.Background()

// seedThread fills a thread with n alternating user/assistant messages of
// realistic length, counted with the real tokenizer once per distinct text.
func seedThread(b testing.TB, s store.Store, mem *core.Memory, thread string, n int) {
	seedThreadWith(b, s, mem, thread, n, 1)
}

// seedThreadWith repeats each text rep times (rep 4 gives ~80-token turns).
func seedThreadWith(b testing.TB, s store.Store, mem *core.Memory, thread string, n, rep int) {
	b.Helper()
	if _, err := s.SaveThread(bg, core.Thread{ID: thread, ResourceID: "bench", CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}); err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	texts := [2]string{
		"Could you summarise what we decided about the quarterly budget and who owns the follow-up items?",
		"We agreed to cut travel by ten percent, Maria owns the vendor review and Tom drafts the hiring plan by Friday.",
	}
	var counts [2]int
	for i := range texts {
		texts[i] = strings.TrimSpace(strings.Repeat(texts[i]+" ", rep))
		msg := core.NewMessage(core.RoleUser, texts[i])
		counts[i] = budget.MessageTokens(mem.Tokenizer(), &msg)
	}
	const batch = 2000
	for lo := 0; lo < n; lo += batch {
		var msgs []core.Message
		for i := lo; i < min(lo+batch, n); i++ {
			role := core.RoleUser
			if i%2 == 1 {
				role = core.RoleAssistant
			}
			m := core.NewMessage(role, texts[i%2])
			m.ID, m.ThreadID, m.ResourceID = fmt.Sprintf("%s-%07d", thread, i), thread, "bench"
			m.CreatedAt = start.Add(time.Duration(i) * time.Second)
			m.Tokens, m.TokenEncoding = counts[i%2], mem.Tokenizer().Encoding()
			msgs = append(msgs, m)
		}
		if _, err := s.SaveMessages(bg, msgs); err != nil {
			b.Fatal(err)
		}
	}
}

func openSQLite(b testing.TB) *sqlite.Store {
	b.Helper()
	s, err := sqlite.Open(bg, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

var sizes = []int{100, 10_000, 100_000}

// BenchmarkSQLiteRecall: Recall(lastMessages 10) must not grow with thread length.
func BenchmarkSQLiteRecall(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			s := openSQLite(b)
			mem, _ := core.New(core.Options{Store: s})
			seedThread(b, s, mem, "t", n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := mem.Recall(bg, core.RecallQuery{ThreadID: "t", ResourceID: "bench"})
				if err != nil || len(res.Messages) != 10 {
					b.Fatal(len(res.Messages), err)
				}
			}
		})
	}
}

// BenchmarkSQLiteSaveMessages saves one user/assistant pair into threads of each size.
func BenchmarkSQLiteSaveMessages(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			s := openSQLite(b)
			mem, _ := core.New(core.Options{Store: s})
			seedThread(b, s, mem, "t", n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pair := []core.Message{core.NewMessage(core.RoleUser, "one more question"), core.NewMessage(core.RoleAssistant, "one more answer")}
				for j := range pair {
					pair[j].ThreadID, pair[j].ResourceID = "t", "bench"
				}
				if _, err := mem.SaveMessages(bg, pair, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSQLiteSaveBatch saves batches of 1,000 new 30-word messages
// into one thread through Memory.SaveMessages (tokenized, validated,
// written), as membench and Mastra's bench.mjs do; -benchmem shows what a
// batch allocates.
func BenchmarkSQLiteSaveBatch(b *testing.B) {
	s := openSQLite(b)
	mem, _ := core.New(core.Options{Store: s})
	if _, err := mem.CreateThread(bg, core.ThreadInput{ID: "t", ResourceID: "bench"}); err != nil {
		b.Fatal(err)
	}
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega")
	batches := make([][]core.Message, b.N)
	n := 0
	for i := range batches {
		batches[i] = make([]core.Message, 1000)
		for j := range batches[i] {
			text := make([]string, 30)
			for k := range text {
				text[k] = words[(n*7+k*13)%len(words)]
			}
			m := core.NewMessage(core.RoleUser, fmt.Sprintf("message %d: %s", n, strings.Join(text, " ")))
			m.ID, m.ThreadID, m.ResourceID = fmt.Sprint("m", n), "t", "bench"
			batches[i][j] = m
			n++
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := mem.SaveMessages(bg, batches[i], nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSQLiteBegin: Begin with an 8,000-token budget must be flat in
// thread length. Turns are ~80 tokens, so even the 100-message thread fills
// the budget and both sizes build the same window; the boundary is persisted
// on the first turn, as in a real conversation.
func BenchmarkSQLiteBegin(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			s := openSQLite(b)
			mem, _ := core.New(core.Options{Store: s, Config: core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 8000}}})
			seedThreadWith(b, s, mem, "t", n, 4)
			in := []core.Message{core.NewMessage(core.RoleUser, "What did we decide?")}
			b.ResetTimer()
			c0 := processCPU()
			for i := 0; i < b.N; i++ {
				turn, err := mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "bench", System: []string{"You are a helpful assistant."}, Input: in})
				if err != nil {
					b.Fatal(err)
				}
				if budget.PromptTokens(turn.Messages()) > 8000 {
					b.Fatal("over budget")
				}
			}
			// CPU time moves less than wall time with a shared machine's load.
			b.ReportMetric(float64((processCPU()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// TestTokenizedPerTurn counts the messages tokenized per turn: only the new ones.
func TestTokenizedPerTurn(t *testing.T) {
	s := openSQLite(t)
	mem, _ := core.New(core.Options{Store: s, Config: core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 8000}}})
	seedThread(t, s, mem, "t", 5000)
	for i := 0; i < 20; i++ {
		before := mem.TokenizedMessages()
		turn, err := mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "bench", System: []string{"You are a helpful assistant."},
			Input: []core.Message{core.NewMessage(core.RoleUser, fmt.Sprint("question ", i))}})
		if err != nil {
			t.Fatal(err)
		}
		if err := turn.Commit(bg, []core.Message{core.NewMessage(core.RoleAssistant, strings.Repeat("answer ", 10))}); err != nil {
			t.Fatal(err)
		}
		if n := mem.TokenizedMessages() - before; n != 2 {
			t.Fatalf("turn %d tokenized %d messages, want 2 (input and response)", i, n)
		}
		if i == 19 {
			t.Logf("tokenized per turn: %d messages (history of %d messages re-used stored counts)", mem.TokenizedMessages()-before, len(turn.Messages()))
		}
	}
}
