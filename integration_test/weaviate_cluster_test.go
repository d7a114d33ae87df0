package integration_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/internal/testenv"

	"github.com/weaviate/weaviate/entities/models"
)

// wvCluster is the Weaviate cluster of scripts/lib/weaviate.sh
// (weaviate_cluster_start): node i (1-based) answers on hosts[i-1] and lives
// in dir/node<i>, with its PID file and restart script.
type wvCluster struct {
	hosts, grpcs []string
	dir          string
}

// weaviateCluster returns the cluster of $AGENTMEM_WEAVIATE_CLUSTER (three
// nodes at least); without one the test fails under
// AGENTMEM_REQUIRE_SERVERS=1 and is skipped otherwise.
func weaviateCluster(t testing.TB) wvCluster {
	t.Helper()
	c := wvCluster{dir: os.Getenv("AGENTMEM_WEAVIATE_CLUSTER_DIR")}
	if h := os.Getenv("AGENTMEM_WEAVIATE_CLUSTER"); h != "" {
		c.hosts = strings.Split(h, ",")
	}
	if g := os.Getenv("AGENTMEM_WEAVIATE_CLUSTER_GRPC"); g != "" {
		c.grpcs = strings.Split(g, ",")
	}
	if len(c.hosts) < 3 || len(c.grpcs) != len(c.hosts) || c.dir == "" {
		msg := "AGENTMEM_WEAVIATE_CLUSTER (3 nodes), _GRPC and _DIR not set (scripts/lib/weaviate.sh weaviate_cluster_start)"
		testenv.Unavailable(t, "%s", msg)
	}
	return c
}

// kill sends SIGKILL to node i and waits until it is gone.
func (c wvCluster) kill(t testing.TB, i int) {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("%s/node%d/weaviate.pid", c.dir, i))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill node%d (pid %d): %v", i, pid, err)
	}
	for syscall.Kill(pid, 0) == nil {
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("node%d (pid %d) killed", i, pid)
}

// restart starts node i again on its data and waits until it is ready.
func (c wvCluster) restart(t testing.TB, i int) {
	t.Helper()
	out, err := exec.Command(fmt.Sprintf("%s/node%d/start.sh", c.dir, i)).Output()
	if err != nil {
		t.Fatalf("restart node%d: %v", i, err)
	}
	t.Logf("node%d restarted as pid %s", i, strings.TrimSpace(string(out)))
}

// TestClusterNodeLoss writes turns for many resources through Memory to a
// three-node cluster at replication factor 3 (QUORUM reads and writes, async
// repair, the tenant sweeper retiring idle tenants every few seconds) while
// nodes are SIGKILLed and brought back: with one node down every write is
// indexed and recall answers; with two down the vector writes fail with
// ErrVector, the saves keep their messages recorded unindexed and the next
// write of each resource indexes them; once the nodes are back and repaired,
// every node holds every record exactly once.
func TestClusterNodeLoss(t *testing.T) {
	c := weaviateCluster(t)
	ctx := context.Background()
	prefix := fmt.Sprintf("Clu%d", rand.Int64N(1<<40))
	ws, err := weaviate.New(ctx, weaviate.Config{Host: c.hosts[0], GRPCHost: c.grpcs[0], ClassPrefix: prefix,
		ReplicationFactor: 3, AsyncReplication: true, Timeout: 20 * time.Second,
		TenantIdle: weaviate.TenantIdle{After: 2 * time.Second, Every: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	defer dropClasses(ws, prefix)
	emb := local.NewHashEmbedder(384)
	mem, err := core.New(core.Options{Store: memstore.New(), Vector: ws, Embedder: emb,
		Config: core.Config{SemanticRecall: &core.SemanticRecall{}}})
	if err != nil {
		t.Fatal(err)
	}
	const resources = 24
	res := func(r int) string { return fmt.Sprintf("user-%d", r) }
	// Texts of few shared words, so that a turn's question is its own best hit.
	text := func(r, n int, role string) string {
		w := strconv.FormatInt(int64(r*1000+n+1)*7919, 36)
		return fmt.Sprintf("%s %s %sq %sr", role, w, w, w)
	}
	want := map[string][]string{} // resource -> ids of its records
	turn := func(r, n int) {
		t.Helper()
		thread := "t-" + res(r)
		if n == 0 {
			if _, err := mem.CreateThread(ctx, core.ThreadInput{ID: thread, ResourceID: res(r)}); err != nil {
				t.Fatal(err)
			}
		}
		msgs := []core.Message{
			core.NewMessage(core.RoleUser, text(r, n, "question")),
			core.NewMessage(core.RoleAssistant, text(r, n, "answer")),
		}
		for i := range msgs {
			msgs[i].ThreadID, msgs[i].ResourceID = thread, res(r)
		}
		t0 := time.Now()
		saved, err := mem.SaveMessages(ctx, msgs, nil)
		if d := time.Since(t0); d > time.Second {
			t.Logf("save turn %d of %s took %v", n, res(r), d)
		}
		if err != nil {
			t.Fatalf("save turn %d of %s: %v", n, res(r), err)
		}
		for _, m := range saved {
			want[res(r)] = append(want[res(r)], m.ID+"#0")
		}
	}
	unindexed := func(r int) int {
		t.Helper()
		n, err := mem.Unindexed(ctx, res(r))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	recall := func(r, n int) {
		t.Helper()
		q := text(r, n, "question")
		got, err := mem.Recall(ctx, core.RecallQuery{ThreadID: "t-" + res(r), ResourceID: res(r), VectorSearch: q,
			Config: onlySemantic(core.SemanticRecall{TopK: 4, MessageRange: &core.MessageRange{}})})
		if err != nil {
			t.Fatalf("recall in %s: %v", res(r), err)
		}
		var texts []string
		for _, m := range got.Messages {
			if m.Text() == q {
				return
			}
			texts = append(texts, m.Text())
		}
		t.Fatalf("recall in %s: %q, want %q among them", res(r), texts, q)
	}

	for r := range resources {
		turn(r, 0)
		turn(r, 1)
	}
	class := ws.ClassName(fmt.Sprintf("memory_messages_%d", 384))
	cls, err := ws.Client().Schema().ClassGetter().WithClassName(class).Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rc := cls.ReplicationConfig; rc == nil || rc.Factor != 3 || !rc.AsyncEnabled ||
		rc.DeletionStrategy != models.ReplicationConfigDeletionStrategyTimeBasedResolution {
		t.Fatalf("class replication %+v", rc)
	}

	// One node down: QUORUM (2 of 3) writes and reads go on, tenants are
	// retired by the sweeper and reactivated by the next use.
	c.kill(t, 3)
	for r := range resources {
		turn(r, 2)
		recall(r, 1)
	}
	time.Sleep(4 * time.Second) // every tenant idle: the sweeper retires them
	if n := inactive(t, ws, class); n == 0 {
		t.Fatal("the sweeper retired no tenant while node3 was down")
	}
	for r := range resources {
		turn(r, 3)
		recall(r, 0)
		if n := unindexed(r); n != 0 {
			t.Fatalf("%s: %d messages unindexed with one node down", res(r), n)
		}
	}

	// Two nodes down: no quorum. Writes fail with a typed error; Memory
	// keeps the messages and records them unindexed.
	c.kill(t, 2)
	vec, _ := emb.Embed(ctx, []string{"direct write"})
	err = ws.Upsert(ctx, "memory_messages_384", []vector.Record{{ID: "direct", Text: "direct write", Vector: vec[0],
		Meta: vector.Meta{ResourceID: res(0), ThreadID: "t-" + res(0)}}})
	if !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("Upsert without quorum: %v, want ErrVector", err)
	}
	t.Logf("without quorum: %v", err)
	const lost = 2 // resources written without quorum
	for r := range lost {
		turn(r, 4)
		if n := unindexed(r); n != 2 {
			t.Fatalf("%s: %d messages unindexed without quorum, want 2", res(r), n)
		}
	}

	// Quorum back: the writes of each resource index what waited (the
	// first ones may still fail while the restarted node catches up).
	c.restart(t, 2)
	deadline := time.Now().Add(2 * time.Minute)
	for r := range resources {
		for n := 5; ; n++ {
			turn(r, n)
			if unindexed(r) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d messages still unindexed 2 minutes after quorum came back", res(r), unindexed(r))
			}
			time.Sleep(time.Second)
		}
	}
	c.restart(t, 3)
	for r := range resources {
		recall(r, 3)
	}

	// Every node holds every record once repaired (async replication).
	for i := range c.hosts {
		node := fmt.Sprintf("node%d", i+1)
		deadline := time.Now().Add(2 * time.Minute)
		for {
			missing := missingOn(t, ws, class, node, want)
			if missing == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s still lacks %d records after 2 minutes", node, missing)
			}
			time.Sleep(time.Second)
		}
	}
	// Nothing duplicated, nothing extra: each resource's records are those
	// written, once each.
	for r := range resources {
		vq, _ := emb.Embed(ctx, []string{"lighthouse"})
		hits, err := ws.Query(ctx, "memory_messages_384", vector.Query{Vector: vq[0], TopK: 1000, Filter: vector.Filter{ResourceID: res(r)}})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, h := range hits {
			seen[h.ID]++
		}
		for _, id := range want[res(r)] {
			if seen[id] != 1 {
				t.Errorf("%s: record %s found %d times", res(r), id, seen[id])
			}
		}
		// The direct write without quorum may have reached node1 alone,
		// and been repaired to the others since.
		if n := len(hits) - seen["direct"]; n != len(want[res(r)]) || seen["direct"] > 1 {
			t.Errorf("%s: %d hits for %d records", res(r), len(hits), len(want[res(r)]))
		}
	}
}

// inactive counts the tenants of class that are not active.
func inactive(t *testing.T, ws *weaviate.Store, class string) int {
	t.Helper()
	ts, err := ws.Client().Schema().TenantsGetter().WithClassName(class).Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tn := range ts {
		if tn.ActivityStatus != models.TenantActivityStatusHOT && tn.ActivityStatus != models.TenantActivityStatusACTIVE {
			n++
		}
	}
	return n
}

// missingOn counts the records of want that node does not hold, reading
// its own replica (node_name) object by object.
func missingOn(t *testing.T, ws *weaviate.Store, class, node string, want map[string][]string) int {
	t.Helper()
	missing := 0
	for res, ids := range want {
		for _, id := range ids {
			objs, err := ws.Client().Data().ObjectsGetter().WithClassName(class).WithTenant(weaviate.TenantName(res)).
				WithID(weaviate.ObjectID(id)).WithNodeName(node).Do(context.Background())
			if err != nil || len(objs) != 1 {
				missing++
			}
		}
	}
	return missing
}
