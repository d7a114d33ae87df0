package core

import "context"

// WithMoveStep returns ctx with f called after each durable step of
// MoveThread ("marked", "old-vectors-deleted", "moved", "reindexed").
func WithMoveStep(ctx context.Context, f func(step string)) context.Context {
	return context.WithValue(ctx, moveStepKey{}, f)
}
