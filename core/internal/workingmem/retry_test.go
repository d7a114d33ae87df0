package workingmem

import (
	"context"
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
)

func TestBackoff(t *testing.T) {
	for attempt := 1; attempt <= 8; attempt++ {
		if err := Backoff(context.Background(), attempt); err != nil {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Backoff(ctx, 6)
	var me *memerr.Error
	if !errors.Is(err, context.Canceled) || !errors.As(err, &me) {
		t.Fatalf("canceled backoff = %v, want a memerr wrapping context.Canceled", err)
	}
}
