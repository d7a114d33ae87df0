package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// planGuard holds the settings a window read runs under. On a table
// ANALYZE has not seen yet (a new deployment, a freshly restored database)
// the planner estimates a thread at one row and prefers a bitmap scan of the
// whole thread followed by a sort to the index range scan in index order, so
// a turn's read grows with the thread. Without bitmap scans and with sorts
// priced out, the (thread_id, created_at, seq) index read backwards with
// LIMIT is the plan whatever the statistics say. SET LOCAL lasts until the
// end of the pipeline's implicit transaction: only the one read sees it.
var planGuard = []string{"SET LOCAL enable_bitmapscan = off", "SET LOCAL enable_sort = off"}

// queryIndexOrder runs a read after planGuard, in one pipeline: one round
// trip, one implicit transaction. The caller closes the rows, then calls done.
func (s *Store) queryIndexOrder(ctx context.Context, sql string, args ...any) (rows pgx.Rows, done func() error, err error) {
	b := &pgx.Batch{}
	for _, g := range planGuard {
		b.Queue(g)
	}
	b.Queue(sql, args...)
	res := s.pool.SendBatch(ctx, b)
	for range planGuard {
		if _, err := res.Exec(); err != nil {
			_ = res.Close()
			return nil, nil, err
		}
	}
	if rows, err = res.Query(); err != nil {
		_ = res.Close()
		return nil, nil, err
	}
	return rows, res.Close, nil
}
