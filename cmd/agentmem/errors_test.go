package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/core"
)

// checkErrorLine fails unless r is a failure with exit code want whose
// stderr is one "agentmem: " line with the program name said once.
func checkErrorLine(t *testing.T, what string, r result, want int) {
	t.Helper()
	if r.code != want {
		t.Errorf("%s: exit %d, want %d (stderr %q)", what, r.code, want, r.stderr)
	}
	if !strings.HasPrefix(r.stderr, "agentmem: ") || strings.Count(r.stderr, "\n") != 1 ||
		strings.Contains(r.stderr, "agentmem: agentmem") || strings.Contains(r.stderr, "for \"agentmem\"") {
		t.Errorf("%s: stderr %q: want one line starting with a single \"agentmem: \"", what, r.stderr)
	}
}

// leafCommands returns the path of every runnable command below root.
func leafCommands(root *cobra.Command) [][]string {
	var out [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			p := append(append([]string{}, path...), sub.Name())
			if sub.Runnable() {
				out = append(out, p)
			}
			walk(sub, p)
		}
	}
	walk(root, nil)
	return out
}

// TestUsageErrors: every command's usage errors (an unknown flag, a wrong
// number of arguments) exit 2 with one "agentmem: " prefix, and so does an
// unknown command.
func TestUsageErrors(t *testing.T) {
	b := sqliteBackend(t)
	checkErrorLine(t, "unknown command", runCmd(t, "", "bogus"), 2)
	checkErrorLine(t, "unknown global flag", runCmd(t, "", "--bogus", "threads"), 2)
	cmds := leafCommands(newApp(nil, nil, nil).rootCommand())
	if len(cmds) < 10 {
		t.Fatalf("found %d commands: %v", len(cmds), cmds)
	}
	for _, path := range cmds {
		name := strings.Join(path, " ")
		args := append(append([]string{"--write"}, path...), "--no-such-flag")
		checkErrorLine(t, name+" --no-such-flag", b.agentmem(t, "", args...), 2)
		if name == "delete-thread" || name == "move-thread" { // take any number of threads
			continue
		}
		// Every other command takes fewer than nine arguments.
		args = append(append([]string{"--write"}, path...), strings.Fields("a b c d e f g h i")...)
		r := b.agentmem(t, "", args...)
		checkErrorLine(t, name+" with nine arguments", r, 2)
		if !strings.Contains(r.stderr, name+":") && !strings.Contains(r.stderr, "unknown command") {
			t.Errorf("%s: stderr %q does not name the command", name, r.stderr)
		}
	}
}

// TestRuntimeErrorsPrefixedOnce: errors that are not usage errors (a missing
// thread, a missing import source, a bad --from) also say "agentmem" once.
func TestRuntimeErrorsPrefixedOnce(t *testing.T) {
	b := sqliteBackend(t)
	seed(t, b.store)
	checkErrorLine(t, "export of a missing thread", b.agentmem(t, "", "export", "--thread", "nope"), 1)
	checkErrorLine(t, "wm get without --thread", b.agentmem(t, "", "wm", "get"), 2)
	checkErrorLine(t, "import of a missing file", b.agentmem(t, "", "--write", "import", filepath.Join(t.TempDir(), "none.jsonl")), 2)
	checkErrorLine(t, "import --from bogus", b.agentmem(t, "", "--write", "import", "--from", "bogus", "x"), 2)
	checkErrorLine(t, "write without --write", b.agentmem(t, "", "delete-thread", "food"), 2)
}

// TestDBIsDirectory: --db naming a directory says so, and creates nothing.
func TestDBIsDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"threads"}, {"--write", "import", "-"}} {
		r := runCmd(t, "", append([]string{"--db", dir}, args...)...)
		checkErrorLine(t, "--db DIR "+strings.Join(args, " "), r, 2)
		if !strings.Contains(r.stderr, "is a directory") {
			t.Errorf("--db DIR %v: %q does not say it is a directory", args, r.stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("--db DIR created %d entries in it", len(entries))
	}
}

// TestErrorWording: the errors a new user meets first say in one line what
// happened and what to do (the wording is in testdata/golden/errors.txt): an
// unreachable server (not as a migration failure), a database or index
// address of a scheme agentmem does not speak (without repeating it, as it
// may hold a password), a --vector file that does not exist and an unknown
// thread.
func TestErrorWording(t *testing.T) {
	b := sqliteBackend(t)
	seed(t, b.store)
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"--db", "postgres://nobody@127.0.0.1:1/none?connect_timeout=2", "threads"}, 1},
		{[]string{"--db", "mysql://app:secret@db.example/app", "threads"}, 2},
		{append(b.flags, "--vector", "redis://cache.example/0", "search", "ada", "x"), 2},
		{append(b.flags, "--vector", filepath.Join("testdata", "none.vectors"), "search", "ada", "x"), 1},
		{append(b.flags, "show", "nope"), 1},
	}
	var got strings.Builder
	for _, c := range cases {
		r := runCmd(t, "", c.args...)
		what := strings.Join(c.args[len(c.args)-3:], " ")
		checkErrorLine(t, what, r, c.code)
		if strings.Contains(r.stderr, "secret") {
			t.Errorf("%s: the error repeats the password: %s", what, r.stderr)
		}
		got.WriteString(r.stderr)
	}
	golden(t, "errors.txt", got.String())
}

// TestJSONErrorCodeOfSentinel: under --json an error returned as a bare
// sentinel (core.ErrNoVectorStore) keeps its code instead of the generic
// AGENTMEM_ERROR.
func TestJSONErrorCodeOfSentinel(t *testing.T) {
	var out, errb strings.Builder
	a := newApp(nil, &out, &errb)
	a.flags.json = true
	a.printError(fmt.Errorf("search: %w", core.ErrNoVectorStore))
	if !strings.Contains(errb.String(), `"code": "MEMORY_NO_VECTOR_STORE"`) {
		t.Errorf("--json error of a sentinel: %s", errb.String())
	}
}
