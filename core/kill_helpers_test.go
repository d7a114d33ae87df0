package core_test

import (
	"testing"

	"github.com/agentmem/agentmem/internal/killtest"
)

// killAt starts this test binary running only the test named run, with env
// added, waits until it prints "AT "+step and kills it there.
func killAt(t *testing.T, run, step string, env ...string) {
	t.Helper()
	killtest.At(t, run, func(line string) bool { return line == "AT "+step }, env...)
}
