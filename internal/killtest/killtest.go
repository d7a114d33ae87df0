// Package killtest runs one test of the calling test binary as a child
// process and kills it (SIGKILL) at a point it announces, so that crash
// tests can stop a process between two durable writes and check what a new
// process finds.
package killtest

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// At starts this test binary running only the test named run, with env
// added to its environment, reads its standard output until a line for
// which reached is true, and kills the process there. The test fails,
// showing the child's output and standard error, if no such line came.
func At(t testing.TB, run string, reached func(line string) bool, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+run+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	found := false
	for sc := bufio.NewScanner(out); sc.Scan(); {
		lines = append(lines, sc.Text())
		if found = reached(sc.Text()); found {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !found {
		t.Fatalf("%s never reached its kill point: %s\nstderr:\n%s", run, strings.Join(lines, "\n"), stderr.String())
	}
}
