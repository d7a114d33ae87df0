package store

import "context"

// CompactBatch rewrites one batch of rows after the given seq and returns
// how many it rewrote and the last seq it saw (0 when none was left).
type CompactBatch func(ctx context.Context, after int64, batch int) (n int, last int64, err error)

// DefaultCompactBatch is the batch size of Compact when given 0 or less.
const DefaultCompactBatch = 500

// Compact runs step over the whole table in seq order, batch rows at a
// time, and returns the rows rewritten. Drivers use it for CompactContent:
// every batch is its own transaction, so a stopped run keeps what it did and
// a new run finds only what is left.
func Compact(ctx context.Context, batch int, step CompactBatch) (int, error) {
	if batch <= 0 {
		batch = DefaultCompactBatch
	}
	total := 0
	var after int64
	for {
		n, last, err := step(ctx, after, batch)
		total += n
		if err != nil || last == 0 {
			return total, err
		}
		after = last
	}
}
