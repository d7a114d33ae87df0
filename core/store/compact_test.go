package store

import (
	"context"
	"errors"
	"testing"
)

// CompactWith steps through the table batch by batch from the start, sums
// the rows rewritten, reports progress after each batch (a share of the
// table, the whole at the end), and stops at the first error with what was
// rewritten until then.
func TestCompactWith(t *testing.T) {
	const end = 10
	fail := errors.New("disk full")
	for _, c := range []struct {
		name     string
		batch    int
		failAt   int64 // the after at which the step fails; 0: never
		want     int
		fraction []float64
	}{
		{"default batch", 0, 0, 5, []float64{1}},
		{"batches of 4", 4, 0, 5, []float64{0.4, 0.8, 1}},
		{"a failing batch", 4, 4, 2, []float64{0.4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var afters []int64
			step := func(_ context.Context, after int64, batch int) (int, int64, int64, error) {
				afters = append(afters, after)
				if c.failAt != 0 && after == c.failAt {
					return 0, 0, 0, fail
				}
				last := after + int64(batch)
				n := 0
				for seq := after + 1; seq <= min(last, end); seq++ {
					if seq%2 == 0 { // every other row was in a longer shape
						n++
					}
				}
				if last >= end {
					last = 0
				}
				return n, last, end, nil
			}
			var got []float64
			n, err := CompactWith(context.Background(), CompactOptions{Batch: c.batch, Progress: func(p CompactProgress) {
				got = append(got, p.Fraction)
			}}, step)
			if n != c.want || (c.failAt != 0) != errors.Is(err, fail) {
				t.Fatalf("CompactWith = %d, %v; want %d", n, err, c.want)
			}
			if len(got) != len(c.fraction) {
				t.Fatalf("progress %v, want %v", got, c.fraction)
			}
			for i := range got {
				if got[i] != c.fraction[i] {
					t.Fatalf("progress %v, want %v", got, c.fraction)
				}
			}
			if afters[0] != 0 {
				t.Fatalf("the first batch started after %d, want 0", afters[0])
			}
		})
	}
}

// Compact, CompactWith without progress, steps through the table from the
// start until a step says none is left, and sums the rows.
func TestCompact(t *testing.T) {
	var afters []int64
	n, err := Compact(context.Background(), 0, func(_ context.Context, after int64, batch int) (int, int64, error) {
		afters = append(afters, after)
		if batch != DefaultCompactBatch {
			t.Fatalf("batch %d, want the default %d", batch, DefaultCompactBatch)
		}
		if after == 2*DefaultCompactBatch {
			return 1, 0, nil
		}
		return 2, after + DefaultCompactBatch, nil
	})
	if err != nil || n != 5 || len(afters) != 3 || afters[0] != 0 || afters[2] != 2*DefaultCompactBatch {
		t.Fatalf("Compact = %d, %v after %v; want 5 rows in three batches from 0", n, err, afters)
	}
}
