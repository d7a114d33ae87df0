package modeltest

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core/vector/local"
)

// The CLI's export and import (cmd/agentmem) round-trip a memory: a seed
// runs on SQLite, the agentmem binary exports the file to JSON Lines and
// imports them into a fresh database, and there every thread, message and
// working memory is the model's.
func TestModelExportImport(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "agentmem")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/agentmem/agentmem/cmd/agentmem").CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	for _, seed := range ciSeeds[:2] {
		dir := t.TempDir()
		st, err := openSQLite(t, filepath.Join(dir, "memory.db"), filepath.Join(dir, "vectors.bin"), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := &runner{ctx: context.Background(), be: sqliteBackend(), st: st, mod: newModel(), set: setupOf(seed),
			emb: &flakyEmbedder{HashEmbedder: local.NewHashEmbedder(dim)}}
		if err := r.open(); err != nil {
			t.Fatal(err)
		}
		for i, o := range genOps(seed, ciSteps) {
			if err := r.apply(i, o); err != nil {
				t.Fatalf("seed %d step %d %v: %v", seed, i, o, err)
			}
		}
		if err := r.mem.Close(r.ctx); err != nil {
			t.Fatal(err)
		}
		st.close()
		export := filepath.Join(dir, "memory.jsonl")
		cli(t, bin, "--db", filepath.Join(dir, "memory.db"), "export", "-o", export)
		cli(t, bin, "--db", filepath.Join(dir, "copy.db"), "--write", "import", export)
		r.st, err = openSQLite(t, filepath.Join(dir, "copy.db"), filepath.Join(dir, "copy-vectors.bin"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.open(); err != nil {
			t.Fatal(err)
		}
		for _, check := range []func() error{r.checkThreads, r.checkMessages, r.checkWorkingMemory, r.checkPrompts} {
			if err := check(); err != nil {
				t.Errorf("seed %d, imported from its export: %v", seed, err)
			}
		}
		_ = r.mem.Close(r.ctx)
		r.st.close()
	}
}

// cli runs the agentmem binary and fails the test when it fails.
func cli(t *testing.T, bin string, args ...string) {
	t.Helper()
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("agentmem %v: %v\n%s", args, err, out)
	}
}
