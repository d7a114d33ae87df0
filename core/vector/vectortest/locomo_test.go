package vectortest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// stopRecorder records how a helper stopped the test it was given: Skip and
// Fatal end the helper (by a panic the caller recovers) instead of the test.
type stopRecorder struct {
	testing.TB
	skipped, failed string
}

func (r *stopRecorder) Helper()           {}
func (r *stopRecorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...); panic(r) }
func (r *stopRecorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...); panic(r) }
func (r *stopRecorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	panic(r)
}

// stops runs fn on a recorder and returns it once fn stopped or returned.
func stops(t *testing.T, fn func(tb testing.TB)) (r *stopRecorder) {
	r = &stopRecorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
	}()
	fn(r)
	return r
}

// TestLoCoMoMissing: without the data set the LoCoMo tests skip saying where
// the file was looked for and how to give it, and fail when it was asked for
// or missing parts must fail.
func TestLoCoMoMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locomo-dev.json")
	r := stops(t, func(tb testing.TB) { loadLoCoMoAt(tb, path, false) })
	if r.failed != "" || !strings.Contains(r.skipped, path) || !strings.Contains(r.skipped, "AGENTMEM_LOCOMO") {
		t.Errorf("missing data set: skipped %q, failed %q: want a skip naming the path and AGENTMEM_LOCOMO", r.skipped, r.failed)
	}
	r = stops(t, func(tb testing.TB) { loadLoCoMoAt(tb, path, true) })
	if r.skipped != "" || !strings.Contains(r.failed, path) {
		t.Errorf("missing data set, strict: skipped %q, failed %q: want a failure naming the path", r.skipped, r.failed)
	}
}
