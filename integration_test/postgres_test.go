package integration_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
)

// A turn's reads take at most 3 round trips, Commit at most 2 (warm pool).
func TestPostgresTurnRoundTrips(t *testing.T) {
	counter := &queryCounter{}
	s := openPG(t, counter)
	mem, err := core.New(core.Options{Store: s, Config: core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 8000}}})
	if err != nil {
		t.Fatal(err)
	}
	seedThread(t, s, mem, "t", 5000)
	turn := func() (begin, commit int64) {
		before := counter.n.Load()
		tr, err := mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "bench", System: []string{"sys"},
			Input: []core.Message{core.NewMessage(core.RoleUser, "What did we decide?")}})
		if err != nil {
			t.Fatal(err)
		}
		mid := counter.n.Load()
		if err := tr.Commit(bg, []core.Message{core.NewMessage(core.RoleAssistant, "This.")}); err != nil {
			t.Fatal(err)
		}
		return mid - before, counter.n.Load() - mid
	}
	turn() // the first turn trims the 5,000-message thread and persists the boundary
	for i := 0; i < 5; i++ {
		b, c := turn()
		if b > 3 || c > 2 {
			t.Fatalf("turn %d: Begin %d round trips (max 3), Commit %d (max 2)", i, b, c)
		}
		if i == 4 {
			t.Logf("steady state: Begin %d statements, Commit %d", b, c)
		}
	}
}

// BenchmarkPostgresSave: SaveMessages throughput against one INSERT per message.
func BenchmarkPostgresSave(b *testing.B) {
	for _, batch := range []int{1, 100} {
		b.Run(fmt.Sprintf("agentmem/batch=%d", batch), func(b *testing.B) {
			s := openPG(b, nil)
			mem, _ := core.New(core.Options{Store: s})
			if _, err := mem.CreateThread(bg, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
				b.Fatal(err)
			}
			msgs := make([]core.Message, batch) // the caller's buffer, refilled for each save
			save := func() {
				for j := range msgs {
					msgs[j] = core.NewMessage(core.RoleUser, "a message of ordinary length for the throughput test")
					msgs[j].ThreadID, msgs[j].ResourceID = "t", "r"
				}
				if _, err := mem.SaveMessages(bg, msgs, nil); err != nil {
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
		b.Run(fmt.Sprintf("naive/batch=%d", batch), func(b *testing.B) {
			st := openPG(b, nil)
			pool, table := st.Pool(), pgx.Identifier{st.Schema(), "naive"}.Sanitize()
			_, err := pool.Exec(bg, `CREATE TABLE `+table+` (id bigserial primary key, thread_id text, role text, content jsonb, created_at timestamptz)`)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := 0; j < batch; j++ {
					_, err := pool.Exec(bg, `INSERT INTO `+table+` (thread_id, role, content, created_at) VALUES ($1, $2, $3, now())`,
						"t", "user", `{"format":2,"parts":[{"type":"text","text":"a message of ordinary length for the throughput test"}]}`)
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkPostgresBegin: Begin (8,000-token budget) on a 100k-message thread
// against the naive turn: SELECT the whole thread and keep the newest that fit.
func BenchmarkPostgresBegin(b *testing.B) {
	s := openPG(b, nil)
	mem, _ := core.New(core.Options{Store: s, Config: core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 8000}}})
	seedThreadWith(b, s, mem, "t", 100_000, 4)
	in := []core.Message{core.NewMessage(core.RoleUser, "What did we decide?")}
	b.Run("agentmem", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if _, err := mem.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "bench", Input: in}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		reportP50(b, lat)
	})
	b.Run("naive", func(b *testing.B) {
		q := `SELECT id, role, content, created_at FROM ` + pgx.Identifier{s.Schema(), "agentmem_messages"}.Sanitize() + ` WHERE thread_id = $1 ORDER BY created_at, seq`
		lat := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			start := time.Now()
			rows, err := s.Pool().Query(bg, q, "t")
			if err != nil {
				b.Fatal(err)
			}
			var all []core.Message
			for rows.Next() {
				var m core.Message
				if err := rows.Scan(&m.ID, &m.Role, &m.Content, &m.CreatedAt); err != nil {
					b.Fatal(err)
				}
				all = append(all, m)
			}
			rows.Close()
			// keep the newest messages that fit, counting each with the real tokenizer
			total := 0
			for j := len(all) - 1; j >= 0; j-- {
				total += budget.MessageTokens(mem.Tokenizer(), &all[j])
				if total > 8000 {
					break
				}
			}
			lat = append(lat, time.Since(start))
		}
		reportP50(b, lat)
	})
}

func reportP50(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}
