package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
)

// TestThreadsOddIDs: threads shows ids and titles holding control characters
// escaped on their row (a newline does not break it, a terminal escape is
// not sent to the terminal) and a long id cut with an ellipsis, so one id
// does not widen every row; --json has the values whole.
func TestThreadsOddIDs(t *testing.T) {
	long := strings.Repeat("x", 1000)
	threads := []core.Thread{
		{ID: "line1\nline2", ResourceID: "ada", Title: "Red \x1b[31mtitle\x1b[0m", CreatedAt: at(0)},
		{ID: long, ResourceID: "tab\there", Title: "Long", CreatedAt: at(100)},
		{ID: "plain", ResourceID: "ada", Title: "Plain", CreatedAt: at(200)},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, th := range threads {
			th.UpdatedAt = th.CreatedAt.Add(time.Hour)
			if _, err := b.store.SaveThread(bg, th); err != nil {
				t.Fatal(err)
			}
		}
		golden(t, "threads-odd-ids.txt", b.agentmem(t, "", "threads").ok(t).stdout)
		doc := jsonDoc(t, b.agentmem(t, "", "--json", "threads").ok(t))
		got := map[string]bool{}
		for _, th := range doc["threads"].([]any) {
			got[th.(map[string]any)["id"].(string)] = true
		}
		for _, th := range threads {
			if !got[th.ID] {
				t.Errorf("--json threads lacks id %q", th.ID)
			}
		}
	})
}
