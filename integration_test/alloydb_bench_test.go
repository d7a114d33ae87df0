package integration_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory/alloydb"
	"github.com/tmc/langchaingo/util/alloydbutil"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/postgres"
)

// upstreamHistory opens langchaingo v0.1.14's PostgreSQL-backed chat history
// (memory/alloydb) on a plain local PostgreSQL through its WithPool option,
// in the schema of s.
func upstreamHistory(b *testing.B, s *postgres.Store, table string) alloydb.ChatMessageHistory {
	b.Helper()
	engine, err := alloydbutil.NewPostgresEngine(bg, alloydbutil.WithPool(s.Pool()))
	if err != nil {
		b.Fatal(err)
	}
	if err := engine.InitChatHistoryTable(bg, table, alloydbutil.WithSchemaName(s.Schema())); err != nil {
		b.Fatal(err)
	}
	h, err := alloydb.NewChatMessageHistory(bg, engine, table, "session-1", alloydb.WithSchemaName(s.Schema()))
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkPostgresSaveUpstream: langchaingo's Postgres chat history saving
// the same batches as BenchmarkPostgresSave (AddMessage / AddMessages).
func BenchmarkPostgresSaveUpstream(b *testing.B) {
	for _, batch := range []int{1, 100} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			h := upstreamHistory(b, openPG(b, nil), "history")
			msgs := make([]llms.ChatMessage, batch) // the caller's buffer, refilled for each save as agentmem's is
			save := func() {
				for i := range msgs {
					msgs[i] = llms.HumanChatMessage{Content: "a message of ordinary length for the throughput test"}
				}
				var err error
				if batch == 1 {
					err = h.AddMessage(bg, msgs[0])
				} else {
					err = h.AddMessages(bg, msgs)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; i < warmSaves; i++ {
				save()
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				save()
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkPostgresBeginUpstream: a turn's read with langchaingo's Postgres
// chat history on a 100k-message session: Messages() reads the whole session,
// then the newest messages that fit 8,000 tokens are kept (tiktoken counts).
func BenchmarkPostgresBeginUpstream(b *testing.B) {
	s := openPG(b, nil)
	h := upstreamHistory(b, s, "history")
	texts := []string{
		"Could you summarise what we decided about the quarterly budget and who owns the follow-up items?",
		"We agreed to cut travel by ten percent, Maria owns the vendor review and Tom drafts the hiring plan by Friday.",
	}
	for lo := 0; lo < 100_000; lo += 1000 {
		batch := make([]llms.ChatMessage, 0, 1000)
		for i := lo; i < lo+1000; i++ {
			if i%2 == 0 {
				batch = append(batch, llms.HumanChatMessage{Content: texts[0]})
			} else {
				batch = append(batch, llms.AIChatMessage{Content: texts[1]})
			}
		}
		if err := h.AddMessages(bg, batch); err != nil {
			b.Fatal(err)
		}
	}
	mem, _ := core.New(core.Options{Store: s})
	tk := mem.Tokenizer()
	b.ResetTimer()
	lat := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		all, err := h.Messages(bg)
		if err != nil || len(all) != 100_000 {
			b.Fatal(len(all), err)
		}
		total := 0
		for j := len(all) - 1; j >= 0; j-- {
			if total += tk.Count(all[j].GetContent()) + 4; total > 8000 {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	reportP50(b, lat)
}
