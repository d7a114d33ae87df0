package main

import (
	"context"
	"testing"
)

// The quickstart runs offline and finishes without error.
func TestQuickstart(t *testing.T) {
	if err := run(context.Background()); err != nil {
		t.Fatal(err)
	}
}
