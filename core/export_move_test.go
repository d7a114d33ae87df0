package core

import (
	"context"

	"github.com/agentmem/agentmem/core/internal/thread"
)

// WithMoveStep returns ctx with f called after each durable step of
// MoveThread ("marked", "old-vectors-deleted", "moved", "reindexed").
func WithMoveStep(ctx context.Context, f func(step string)) context.Context {
	return thread.WithMoveSteps(ctx, f)
}
