package weaviate_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// TestServerRestart stops the server, checks that calls fail with
// core.ErrVector, restarts it with $AGENTMEM_WEAVIATE_START and checks the
// same Store works again on the persisted data. It disturbs every other user
// of the server, so it only runs with AGENTMEM_WEAVIATE_FAULTS=1.
func TestServerRestart(t *testing.T) {
	if os.Getenv("AGENTMEM_WEAVIATE_FAULTS") != "1" {
		t.Skip("set AGENTMEM_WEAVIATE_FAULTS=1 to stop and restart the shared server")
	}
	start, dir := os.Getenv("AGENTMEM_WEAVIATE_START"), os.Getenv("AGENTMEM_WEAVIATE_DIR")
	if start == "" || dir == "" {
		t.Skip("AGENTMEM_WEAVIATE_START/AGENTMEM_WEAVIATE_DIR not set (scripts/lib/weaviate.sh)")
	}
	s := open(t, "none", nil)
	h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
	h.Upsert(vectortest.Rec("m1", "t", "r", vectortest.Corpus[0]))

	raw, err := os.ReadFile(dir + "/weaviate.pid")
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	p, err := os.FindProcess(pid)
	if err != nil || p.Signal(syscall.SIGTERM) != nil {
		t.Fatalf("stop pid %d: %v", pid, err)
	}
	for i := 0; i < 200 && p.Signal(syscall.Signal(0)) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.Query(ctx, h.Index, vector.Query{Text: "x", Vector: h.Prepare([]vector.Record{{Text: "x"}})[0].Vector,
		TopK: 1, Filter: vector.Filter{ResourceID: "r"}}); !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("Query while the server is down: %v", err)
	}
	out, err := exec.Command(start).Output()
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Logf("restarted as pid %s", strings.TrimSpace(string(out)))
	hits := h.Query(vector.Query{Text: vectortest.Queries[0], TopK: 5, Filter: vector.Filter{ResourceID: "r"}})
	if len(hits) != 1 || hits[0].ID != "m1#0" {
		t.Fatalf("after restart: %+v", hits)
	}
	h.Upsert(vectortest.Rec("m2", "t", "r", vectortest.Corpus[1]))
}
