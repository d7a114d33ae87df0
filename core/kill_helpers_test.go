package core_test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// killAt starts this test binary running only the test named run, with env
// added, waits until it prints "AT "+step and kills it there.
func killAt(t *testing.T, run, step string, env ...string) {
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
	reached := false
	for sc := bufio.NewScanner(out); sc.Scan(); {
		if sc.Text() == "AT "+step {
			reached = true
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !reached {
		t.Fatalf("%s never reached %s; stderr:\n%s", run, step, stderr.String())
	}
}
