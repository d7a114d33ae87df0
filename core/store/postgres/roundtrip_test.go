package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// counter counts statements through pgx's tracer hooks (Query/QueryRow/Exec
// and SendBatch each count once) and client writes on the socket, which on a
// warm connection is the number of network round trips.
type counter struct {
	statements, batches, writes atomic.Int64
}

func (c *counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.statements.Add(1)
	return ctx
}
func (c *counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *counter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.batches.Add(1)
	return ctx
}
func (c *counter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *counter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

func (c *counter) reset() { c.statements.Store(0); c.batches.Store(0); c.writes.Store(0) }

// calls is what the tracer saw: statements plus batches.
func (c *counter) calls() int64 { return c.statements.Load() + c.batches.Load() }

type countingConn struct {
	net.Conn
	c *counter
}

func (cc countingConn) Write(p []byte) (int, error) {
	cc.c.writes.Add(1)
	return cc.Conn.Write(p)
}

// tracedStore opens a store on a one-connection pool that counts round trips.
func tracedStore(t *testing.T) (*Store, *counter) {
	t.Helper()
	return tracedStoreOn(t, testDSN(t), pgx.QueryExecModeCacheStatement)
}

// tracedStoreOn is tracedStore on dsn with the pool's exec mode.
func tracedStoreOn(t *testing.T, dsn string, mode pgx.QueryExecMode) (*Store, *counter) {
	t.Helper()
	schema := freshSchema(t)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.DefaultQueryExecMode = mode
	c := &counter{}
	cfg.MaxConns, cfg.MinConns = 1, 1
	cfg.ConnConfig.Tracer = c
	// No liveness pings on acquire: they are pool traffic, not the store's.
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	var d net.Dialer
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{conn, c}, nil
	}
	pool, err := pgxpool.NewWithConfig(bg(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s, err := New(bg(), pool, WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func TestRoundTrips(t *testing.T) {
	s, c := tracedStore(t)
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r", CreatedAt: now(), UpdatedAt: now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveThread(bg(), store.Thread{ID: "u", ResourceID: "other", CreatedAt: now(), UpdatedAt: now()}); err != nil {
		t.Fatal(err)
	}
	batch := func(k int) []message.Message {
		var out []message.Message
		for i := 0; i < 20; i++ {
			m := message.NewMessage(message.RoleUser, "hello")
			m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = fmt.Sprintf("m%d-%d", k, i), "t", "r", now()
			out = append(out, m)
		}
		return out
	}
	cand := func(i int) store.Boundary {
		return store.Boundary{CreatedAt: now(), MessageIDs: []string{fmt.Sprint("m", i)}, MaxTokens: 100, AtMaxRemoveTokens: 10}
	}
	type step struct {
		name string
		max  int64 // statements and warm round trips allowed
		fn   func(i int) error
	}
	steps := []step{
		{"SaveMessages", 1, func(i int) error { _, err := s.SaveMessages(bg(), batch(i)); return err }},
		{"SaveMessages (one new message)", 1, func(i int) error { _, err := s.SaveMessages(bg(), batch(200 + i)[:1]); return err }},
		// A stored (or refused) single message goes on to save_messages
		// after the one-message statement wrote nothing: a second round trip.
		{"SaveMessages (one stored message)", 2, func(i int) error { _, err := s.SaveMessages(bg(), batch(0)[:1]); return err }},
		// So does a batch holding a stored id: save_new_messages fails on
		// agentmem_messages_pkey, having written nothing (migration 0007).
		{"SaveMessages (a stored id in a batch)", 2, func(i int) error {
			b := append(batch(300 + i)[:19], batch(0)[0])
			_, err := s.SaveMessages(bg(), b)
			return err
		}},
		// A stored message as returned (with its Seq), edited: save_messages
		// at once, no failed insert first (one round trip to save two new
		// messages, one for the edit).
		{"SaveMessages (an edit of a message read back)", 2, func(i int) error {
			saved, err := s.SaveMessages(bg(), batch(400 + i)[:2])
			if err != nil {
				return err
			}
			saved[1].Content.Parts[0].Text = "edited"
			_, err = s.SaveMessages(bg(), saved[1:])
			return err
		}},
		{"SaveMessages (refused: other resource)", 1, func(i int) error {
			b := batch(100 + i)
			b[7].ThreadID = "u"
			_, err := s.SaveMessages(bg(), b)
			if !errors.Is(err, memerr.ErrResourceMismatch) {
				return fmt.Errorf("want ErrResourceMismatch, got %v", err)
			}
			return nil
		}},
		{"AdvanceBoundary", 1, func(i int) error { _, err := s.AdvanceBoundary(bg(), "t", "r", cand(i)); return err }},
		{"AdvanceBoundary (missing thread)", 1, func(i int) error {
			_, err := s.AdvanceBoundary(bg(), "nope", "r", cand(i))
			if !errors.Is(err, memerr.ErrThreadNotFound) {
				return fmt.Errorf("want ErrThreadNotFound, got %v", err)
			}
			return nil
		}},
		{"AdvanceBoundary (other resource)", 1, func(i int) error {
			_, err := s.AdvanceBoundary(bg(), "u", "r", cand(i))
			if !errors.Is(err, memerr.ErrResourceMismatch) {
				return fmt.Errorf("want ErrResourceMismatch, got %v", err)
			}
			return nil
		}},
		{"ListMessages (page+includes+total)", 1, func(i int) error {
			_, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: "t", PerPage: 10, Direction: store.Desc, IncludeTotal: true,
				Include: []store.Include{{ID: "m0-3", Before: 2, After: 2}, {ID: "m0-15", Before: 1, After: 1}}})
			return err
		}},
		{"ListWindow", 1, func(i int) error {
			start := now().Add(-time.Hour)
			_, err := s.ListWindow(bg(), store.MessageQuery{ThreadID: "t", ResourceID: "r", PerPage: 10, Direction: store.Desc, Range: store.DateRange{Start: &start}},
				store.WindowFit{Encoding: "o200k_base", Fits: 100, Keep: 50})
			return err
		}},
		{"PutWorkingMemory", 1, func(i int) error {
			_, err := s.PutWorkingMemory(bg(), store.ScopeThread, "t", "wm", int64(i))
			return err
		}},
		{"PutWorkingMemory (conflict)", 1, func(i int) error {
			_, err := s.PutWorkingMemory(bg(), store.ScopeResource, "r", "wm", 99)
			if !errors.Is(err, memerr.ErrConflict) {
				return fmt.Errorf("want ErrConflict, got %v", err)
			}
			return nil
		}},
	}
	for _, st := range steps {
		// Call 0 warms the connection's statement cache (pgx prepares a
		// statement on first use); calls 1 and 2 are measured.
		for i := 0; i < 3; i++ {
			c.reset()
			if err := st.fn(i); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			if i == 0 {
				continue
			}
			calls, writes := c.calls(), c.writes.Load()
			t.Logf("%s: %d statement(s), %d network round trip(s)", st.name, calls, writes)
			if calls > st.max || writes > st.max {
				t.Errorf("%s: %d statements / %d round trips, want <= %d", st.name, calls, writes, st.max)
			}
		}
	}
}
