package main

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgEngine writes each batch with one COPY and reads by keyset on
// (thread_id, created_at, seq), as agentmem's store does.
type pgEngine struct{ pool *pgxpool.Pool }

func openPostgres(ctx context.Context, dsn string) (*pgEngine, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	// The keyset reads keep their generic plan: planned again on every call
	// (the LIMIT is a parameter), planning costs about as much as the read.
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// Ids compare as bytes (COLLATE "C"), as in agentmem's tables, whatever
	// the database's default collation.
	if _, err := pool.Exec(ctx, `CREATE TABLE messages (
		seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id text COLLATE "C" NOT NULL UNIQUE, thread_id text COLLATE "C" NOT NULL,
		role text NOT NULL, content text NOT NULL, created_at timestamptz NOT NULL, tokens integer NOT NULL);
		CREATE INDEX messages_thread_created_seq ON messages (thread_id, created_at, seq)`); err != nil {
		pool.Close()
		return nil, err
	}
	return &pgEngine{pool: pool}, nil
}

// save writes a batch with one COPY, a transaction of its own.
func (e *pgEngine) save(ctx context.Context, batch []row) error {
	_, err := e.pool.CopyFrom(ctx, pgx.Identifier{"messages"}, []string{"id", "thread_id", "role", "content", "created_at", "tokens"},
		pgx.CopyFromSlice(len(batch), func(i int) ([]any, error) {
			r := batch[i]
			return []any{r.id, threadID, r.role, r.content, r.createdAt, int32(r.tokens)}, nil
		}))
	return err
}

// windowPage is the rows of one keyset page of the window read: enough for
// an 8,000-token window of these messages (about 200) in one round trip.
const windowPage = 256

// window reads newest-first pages of windowPage rows by keyset until the
// budget is spent.
func (e *pgEngine) window(ctx context.Context, max int) (int, error) {
	var got []row
	used := 0
	var afterSeq int64
	var afterAt any
	for {
		var rs pgx.Rows
		var err error
		if afterAt == nil {
			rs, err = e.pool.Query(ctx, `SELECT seq, id, role, content, created_at, tokens FROM messages
				WHERE thread_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`, threadID, windowPage)
		} else {
			rs, err = e.pool.Query(ctx, `SELECT seq, id, role, content, created_at, tokens FROM messages
				WHERE thread_id = $1 AND (created_at, seq) < ($3, $4) ORDER BY created_at DESC, seq DESC LIMIT $2`,
				threadID, windowPage, afterAt, afterSeq)
		}
		if err != nil {
			return 0, err
		}
		page, full := 0, false
		for rs.Next() {
			var r row
			var tokens int32
			if err := rs.Scan(&afterSeq, &r.id, &r.role, &r.content, &r.createdAt, &tokens); err != nil {
				rs.Close()
				return 0, err
			}
			page++
			afterAt = r.createdAt
			r.tokens = int(tokens)
			if used+r.tokens > max {
				full = true
				break
			}
			used += r.tokens
			got = append(got, r)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return 0, err
		}
		if full || page < windowPage {
			return len(got), nil
		}
	}
}

func (e *pgEngine) last(ctx context.Context, n int) (int, error) {
	rs, err := e.pool.Query(ctx, `SELECT seq, id, role, content, created_at, tokens FROM messages
		WHERE thread_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`, threadID, n)
	if err != nil {
		return 0, err
	}
	var got []row
	for rs.Next() {
		var r row
		var seq int64
		var tokens int32
		if err := rs.Scan(&seq, &r.id, &r.role, &r.content, &r.createdAt, &tokens); err != nil {
			rs.Close()
			return 0, err
		}
		got = append(got, r)
	}
	rs.Close()
	return len(got), rs.Err()
}

func (e *pgEngine) close() error { e.pool.Close(); return nil }
