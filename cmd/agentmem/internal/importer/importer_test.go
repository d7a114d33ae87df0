package importer

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/internal/testenv"
)

// TestRoundTrip exports a memory, imports the file into an empty one, and
// exports that: the two exports are byte-identical, and the plan and the
// importer's counts say what was read and written. A second import writes
// nothing new.
func TestRoundTrip(t *testing.T) {
	src := store.Check(memstore.New())
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, th := range []core.Thread{{ID: "t1", ResourceID: "ada"}, {ID: "t2", ResourceID: "bob"}} {
		th.CreatedAt, th.UpdatedAt = at, at
		if _, err := src.SaveThread(bg, th); err != nil {
			t.Fatal(err)
		}
		var msgs []core.Message
		for i, text := range []string{"hello", "hi there", "bye"} {
			m := core.NewMessage([]core.Role{core.RoleUser, core.RoleAssistant}[i%2], text)
			m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = th.ID+"-"+text, th.ID, th.ResourceID, at.Add(time.Duration(i)*time.Second)
			msgs = append(msgs, m)
		}
		if _, err := src.SaveMessages(bg, msgs); err != nil {
			t.Fatal(err)
		}
	}
	var first bytes.Buffer
	if _, err := export.Write(bg, src, &first, "", ""); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(path, first.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	raw := memstore.New()
	mem, err := core.New(core.Options{Store: raw, Tokenizer: testenv.ByteTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	dst := store.Check(raw)
	for run := range 2 {
		in, sp, p, err := checkFile(t, path, dst)
		if err != nil {
			t.Fatal(err)
		}
		if p.Threads != 2 || p.Messages != 6 {
			t.Fatalf("run %d: plan %+v, want 2 threads and 6 messages", run, p)
		}
		im := &Importer{Memory: mem, Store: dst, Batch: 2}
		if _, err := im.Run(bg, sp.Replay(in), 0); err != nil {
			t.Fatal(err)
		}
		if run == 0 && (im.Threads.Load() != 2 || im.Saved.Load() != 6) {
			t.Fatalf("imported %d threads and %d messages, want 2 and 6", im.Threads.Load(), im.Saved.Load())
		}
	}
	var second bytes.Buffer
	if _, err := export.Write(bg, dst, &second, "", ""); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatalf("export after import differs:\n%s\n---\n%s", first.String(), second.String())
	}
}

// TestCheckRefusesBadInput: a bad line fails the check with its line
// number and CodeBadInput, before anything is written.
func TestCheckRefusesBadInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	body := `{"kind":"agentmem-export","version":1}` + "\n" + `{"kind":"message","message":{"id":"m1"}}` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := memstore.New()
	_, _, _, err := checkFile(t, path, store.Check(raw))
	var e *core.Error
	if !errors.As(err, &e) || e.Code != "AGENTMEM_BAD_INPUT" || !bytes.Contains([]byte(err.Error()), []byte("line 2")) {
		t.Fatalf("Check of a message outside a thread: %v", err)
	}
	threads, err := store.Check(raw).ListThreads(bg, store.ThreadQuery{})
	if err != nil || len(threads.Threads) != 0 {
		t.Fatalf("after a refused input: %v, %v", threads, err)
	}
}

// checkFile checks the export file at path against s, as import does
// first; the source and spool last as long as the test.
func checkFile(t *testing.T, path string, s *store.Checked) (*Source, *Spool, Plan, error) {
	t.Helper()
	in, cleanup, err := JSONL(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	sp, err := NewSpool()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Close)
	p, err := Check(bg, in, s, sp)
	return in, sp, p, err
}
