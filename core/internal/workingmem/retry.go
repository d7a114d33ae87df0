package workingmem

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
)

// MaxAttempts bounds the read-compute-write retries of one update when other
// writers (in this or another process) change working memory meanwhile.
const MaxAttempts = 10

// Backoff waits before retry number attempt (1-based) of a lost
// compare-and-set: a random delay under a ceiling that doubles up to 64ms,
// so that writers that collided do not collide again. It returns the
// context's error, as a memerr, when ctx ends first.
func Backoff(ctx context.Context, attempt int) error {
	ceiling := time.Millisecond << min(attempt, 6)
	t := time.NewTimer(time.Duration(rand.Int64N(int64(ceiling))) + time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return memerr.Context(ToolName, ctx.Err())
	case <-t.C:
		return nil
	}
}
