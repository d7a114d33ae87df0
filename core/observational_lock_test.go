package core

import (
	"context"
	"errors"
	"testing"
)

// Waiting for the observation lock ends with the caller's context, reported
// as a *Error that matches both the context error and its code.
func TestObservationLockWaitHonoursContextAsCoreError(t *testing.T) {
	var r omRuntime
	unlock, err := r.lock(context.Background(), "thread:t", true)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = r.lock(ctx, "thread:t", true)
	var e *Error
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrCanceled) || !errors.As(err, &e) {
		t.Fatalf("lock wait = %v (%T); want *Error with CodeCanceled", err, err)
	}
}
