package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// planGuard holds the settings a history read runs under. On a table
// ANALYZE has not seen yet (a new deployment, a freshly restored database)
// the planner estimates a thread at one row and prefers a bitmap scan of the
// whole thread followed by a sort to the index range scan in index order, so
// a turn's read grows with the thread. Without bitmap scans and with sorts
// priced out, the (thread_id, created_at, seq) index read backwards with
// LIMIT is the plan whatever the statistics say. SET LOCAL lasts until the
// end of the pipeline's implicit transaction: only the one read sees it.
var planGuard = []string{"SET LOCAL enable_bitmapscan = off", "SET LOCAL enable_sort = off"}

// windowGuard is planGuard for a window read (windowSQL), which also keeps
// its generic plan: the plan is the index range scan whatever the values
// bound, and PostgreSQL would otherwise plan the prepared statement again
// on every call (a LIMIT it cannot see makes the generic plan look dearer
// than each custom one), which cost about as much as running it.
var windowGuard = append(planGuard[:len(planGuard):len(planGuard)], "SET LOCAL plan_cache_mode = force_generic_plan")

// queryIndexOrder runs a read after guard's settings, in one pipeline: one
// round trip, one implicit transaction. The caller closes the rows, then
// calls done.
func (s *Store) queryIndexOrder(ctx context.Context, guard []string, sql string, args ...any) (rows pgx.Rows, done func() error, err error) {
	b := &pgx.Batch{}
	for _, g := range guard {
		b.Queue(g)
	}
	b.Queue(sql, args...)
	res := s.pool.SendBatch(ctx, b)
	for range guard {
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
