package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shellLines returns the command lines of the sh blocks of the document at
// path, comments stripped.
func shellLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	inBlock := false
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case line == "```sh":
			inBlock = true
		case inBlock && line == "```":
			inBlock = false
		case inBlock:
			if i := strings.Index(line, "   #"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}

// TestReadmeCommandsRun: the commands README.md shows succeed when run in
// order in a fresh clone's place (the quickstart, then the command on the
// memory it wrote), with agentmem and `go run ./cmd/agentmem` meaning the
// command built from this tree. Lines that reach the network (go get, git
// clone), install into the user's environment (go install) or serve until
// stopped (agentmem serve) or run the test suites (go test, scripts/test,
// which would run this test again) are checked to be only those.
func TestReadmeCommandsRun(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "agentmem"), "./cmd/agentmem")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	quickstart := exec.Command("go", "build", "-o", filepath.Join(bin, "quickstart"), "./examples/quickstart")
	quickstart.Dir = root
	if out, err := quickstart.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := t.TempDir()
	ran := 0
	for _, line := range shellLines(t, filepath.Join(root, "README.md")) {
		switch {
		case strings.HasPrefix(line, "go get "), strings.HasPrefix(line, "git clone "), strings.HasPrefix(line, "go install "):
			continue
		case strings.HasPrefix(line, "agentmem serve"):
			continue
		case line == "go test ./..." || line == "scripts/test":
			continue
		}
		cmdline := strings.Replace(line, "go run ./examples/quickstart", "quickstart", 1)
		cmdline = strings.Replace(cmdline, "go run ./cmd/agentmem", "agentmem", 1)
		if strings.HasPrefix(cmdline, "go ") {
			t.Fatalf("README runs %q, which this test does not know how to run offline", line)
		}
		cmd := exec.Command("bash", "-c", cmdline)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"AGENTMEM_DB=", "AGENTMEM_VECTOR=", "AGENTMEM_STATE_DIR="+t.TempDir(), "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("README: %s: %v\n%s", line, err, out)
		}
		if len(strings.TrimSpace(string(out))) == 0 {
			t.Errorf("README: %s printed nothing", line)
		}
		ran++
	}
	if ran < 5 {
		t.Fatalf("ran %d README commands; the quickstart and the command's tour are at least 5", ran)
	}
}
