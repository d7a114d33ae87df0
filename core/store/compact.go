package store

import "context"

// CompactBatch rewrites one batch of rows after the given seq and returns
// how many it rewrote and the last seq it saw (0 when none was left).
type CompactBatch func(ctx context.Context, after int64, batch int) (n int, last int64, err error)

// CompactStep is a CompactBatch that also says where the scan ends, in the
// unit of after and last (a seq, a heap block), so that a compaction can
// report its progress.
type CompactStep func(ctx context.Context, after int64, batch int) (n int, last, end int64, err error)

// DefaultCompactBatch is the batch size of Compact when given 0 or less.
const DefaultCompactBatch = 500

// CompactOptions configure a compaction (a driver's CompactContentWith).
type CompactOptions struct {
	// Batch is the rows per transaction; DefaultCompactBatch when 0 or
	// less.
	Batch int
	// Progress, when set, is called after every batch.
	Progress func(CompactProgress)
}

// CompactProgress is how far a compaction has gone.
type CompactProgress struct {
	Rewritten int     // rows rewritten so far
	Fraction  float64 // of the table scanned, from 0 to 1
}

// Compact runs step over the whole table in seq order, batch rows at a
// time, and returns the rows rewritten: every batch is its own transaction,
// so a stopped run keeps what it did and a new run finds only what is left.
// It is CompactWith without progress, kept for drivers written against it;
// the SQLite and PostgreSQL stores use CompactWith.
func Compact(ctx context.Context, batch int, step CompactBatch) (int, error) {
	return CompactWith(ctx, CompactOptions{Batch: batch}, func(ctx context.Context, after int64, batch int) (int, int64, int64, error) {
		n, last, err := step(ctx, after, batch)
		return n, last, last, err
	})
}

// CompactWith is Compact with options, for a step that knows where the
// scan ends.
func CompactWith(ctx context.Context, opts CompactOptions, step CompactStep) (int, error) {
	batch := opts.Batch
	if batch <= 0 {
		batch = DefaultCompactBatch
	}
	total := 0
	var after int64
	for {
		n, last, end, err := step(ctx, after, batch)
		total += n
		if err == nil && opts.Progress != nil {
			p := CompactProgress{Rewritten: total, Fraction: 1}
			if last != 0 && end > 0 {
				p.Fraction = min(float64(last)/float64(end), 1)
			}
			opts.Progress(p)
		}
		if err != nil || last == 0 {
			return total, err
		}
		after = last
	}
}
