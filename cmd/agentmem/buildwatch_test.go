package main

import (
	"testing"

	"github.com/agentmem/agentmem/core/vector/local"
)

// TestBuildWatch: graph build reports reach the function watching, and
// nobody before or after.
func TestBuildWatch(t *testing.T) {
	var w buildWatch
	var got []local.BuildProgress
	w.report(local.BuildProgress{Done: 1, Total: 9})
	w.watch(func(b local.BuildProgress) { got = append(got, b) })
	w.report(local.BuildProgress{Resource: "r", Done: 2, Total: 9})
	w.watch(nil)
	w.report(local.BuildProgress{Done: 3, Total: 9})
	if len(got) != 1 || got[0].Resource != "r" || got[0].Done != 2 {
		t.Fatalf("watched reports = %v, want the one sent while watching", got)
	}
	(&progress{}).showGraph("reindex")(local.BuildProgress{Done: 5000, Total: 10000}) // off a terminal: shows nothing
}
