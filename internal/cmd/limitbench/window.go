package main

import (
	"context"
	"database/sql"
	"github.com/agentmem/agentmem/core/message"
	"sort"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

// runWindow opens an SQLite file membench wrote and times, alternating query
// by query so that both see the same machine load, agentmem's Begin with an
// 8,000-token history and the engine's own keyset read of the same rows:
// the newest rows of the thread, newest first, until their stored token
// counts pass the budget. It reports both p50s over reps.
func runWindow(ctx context.Context, path string, reps int) error {
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer s.Close()
	mem, err := core.New(core.Options{Store: s, Config: core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 8000}}})
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", path+"?_pragma=query_only(1)")
	if err != nil {
		return err
	}
	defer db.Close()
	newest, err := db.PrepareContext(ctx, `SELECT seq, id, role, content, created_at, tokens FROM messages
		WHERE thread_id = ? ORDER BY created_at DESC, seq DESC`)
	if err != nil {
		return err
	}
	limit := func() (int, error) {
		rs, err := newest.QueryContext(ctx, threadID)
		if err != nil {
			return 0, err
		}
		defer rs.Close()
		got, used := 0, 0
		for rs.Next() {
			var seq, created int64
			var id, role, content string
			var tokens int
			if err := rs.Scan(&seq, &id, &role, &content, &created, &tokens); err != nil {
				return 0, err
			}
			if used+tokens > windowTokens {
				break
			}
			used += tokens
			got++
		}
		return got, rs.Err()
	}
	in := []message.Message{core.NewMessage(message.RoleUser, "What did we decide?")}
	req := core.TurnRequest{ThreadID: threadID, ResourceID: "user-1", Input: in}
	begin := func() (int, error) {
		turn, err := mem.Begin(ctx, req)
		if err != nil {
			return 0, err
		}
		return len(turn.Messages()), nil
	}
	var tb, tl []float64
	var nb, nl int
	for r := -1; r < reps; r++ { // r = -1: untimed
		first, second := begin, limit
		if r%2 == 1 {
			first, second = limit, begin
		}
		t0 := time.Now()
		a, err := first()
		if err != nil {
			return err
		}
		t1 := time.Now()
		b, err := second()
		if err != nil {
			return err
		}
		da, db := ms(t1.Sub(t0)), ms(time.Since(t1))
		if r%2 == 1 {
			da, db, a, b = db, da, b, a
		}
		if r >= 0 {
			tb, tl = append(tb, da), append(tl, db)
		}
		nb, nl = a, b
	}
	sort.Float64s(tb)
	sort.Float64s(tl)
	emit("label", "same file: begin maxTokens=8000", "p50_ms", tb[reps/2], "messages", nb)
	emit("label", "same file: engine window 8000 tokens", "p50_ms", tl[reps/2], "messages", nl)
	return nil
}
