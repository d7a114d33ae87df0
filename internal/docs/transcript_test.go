package docs

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the outputs of the console blocks in docs/cli.md")

// transcriptDoc is the document whose console blocks are run.
const transcriptDoc = "docs/cli.md"

// runTranscript runs every "$ command" line of the console blocks of doc in
// one fresh directory (holding memory.jsonl, the command tests' export, and
// mastra.db, a file Mastra's LibSQLStore wrote) with
// the agentmem binary first on PATH, and returns the document with each
// command's output as it ran.
func runTranscript(t *testing.T, root, doc string) string {
	t.Helper()
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "agentmem"), "./cmd/agentmem")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := t.TempDir()
	export, err := os.ReadFile(filepath.Join(root, "cmd", "agentmem", "testdata", "golden", "export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "memory.jsonl"), export, 0o644); err != nil {
		t.Fatal(err)
	}
	mastra, err := os.ReadFile(filepath.Join(root, "cmd", "agentmem", "testdata", "mastra", "mastra.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "mastra.db"), mastra, 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	inBlock := false
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case line == "```console":
			inBlock = true
		case inBlock && line == "```":
			inBlock = false
		case inBlock && strings.HasPrefix(line, "$ "):
			if n := len(out); n > 0 && out[n-1] != "```console" {
				out = append(out, "")
			}
			out = append(out, line)
			cmd := exec.Command("bash", "-c", "exec 2>&1; "+strings.TrimPrefix(line, "$ "))
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"AGENTMEM_DB=", "AGENTMEM_VECTOR=", "AGENTMEM_STATE_DIR="+t.TempDir(), "NO_COLOR=1")
			got, _ := cmd.Output() // a failing command is part of the transcript
			if s := strings.TrimRight(string(got), "\n"); s != "" {
				out = append(out, s)
			}
			continue
		case inBlock:
			continue // the output recorded last time; replaced by this run's
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// TestCommandTranscripts: the console blocks of docs/cli.md are what the
// command prints when they are run in order (go test -update rewrites them).
func TestCommandTranscripts(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go command is needed to build agentmem")
	}
	root := filepath.Join("..", "..")
	got := runTranscript(t, root, transcriptDoc)
	path := filepath.Join(root, transcriptDoc)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s:%d: the command printed\n  %s\nwhere the document says\n  %s\n(go test -update ./internal/docs rewrites it)", transcriptDoc, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: %d lines as run, %d in the document (go test -update ./internal/docs rewrites it)", transcriptDoc, len(gl), len(wl))
	}
}
