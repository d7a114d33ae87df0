package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

// Two runs on one database: the second process continues the conversation.
func TestTwoRuns(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "memory.db")
	for i := 0; i < 2; i++ {
		if err := run(ctx, db, false, ""); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
	}
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: threadID, PerPage: store.PerPageAll})
	if err != nil || len(page.Messages) != 4 {
		t.Fatalf("thread holds %d messages after two runs, want 4: %v", len(page.Messages), err)
	}
	if got := page.Messages[3].Text(); got != "You like green tea." {
		t.Fatalf("second run answered %q", got)
	}
}
