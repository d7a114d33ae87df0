package weaviate_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/core/vector/weaviate"

	"github.com/weaviate/weaviate/entities/models"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// manual is a TenantIdle whose sweeper never runs on its own within a test:
// the test calls SweepIdle. Every tenant used before the call is idle.
var manual = weaviate.TenantIdle{After: time.Nanosecond, Every: time.Hour}

// statuses returns the activity status of every tenant of class.
func statuses(t *testing.T, s *weaviate.Store, class string) map[string]string {
	t.Helper()
	ts, err := s.Client().Schema().TenantsGetter().WithClassName(class).Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, tn := range ts {
		out[tn.Name] = tn.ActivityStatus
	}
	return out
}

// ids returns the record ids of the hits of a vector query in resource.
func ids(h *vectortest.H, resource string) map[string]bool {
	hits := h.Query(vector.Query{Text: vectortest.Queries[0], TopK: 100, Filter: vector.Filter{ResourceID: resource}})
	out := map[string]bool{}
	for _, hit := range hits {
		out[hit.ID] = true
	}
	return out
}

func TestInactiveTenantReadWrite(t *testing.T) {
	host, grpc := server(t)
	s := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc, TenantIdle: manual})
	h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
	class, tenant := s.ClassName(h.Index), weaviate.TenantName("ada")
	h.Upsert(vectortest.Rec("m1", "t", "ada", vectortest.Corpus[0]), vectortest.Rec("m2", "t", "ada", vectortest.Corpus[1]))
	time.Sleep(10 * time.Millisecond) // the newest write must be older than the idle time

	res, err := s.SweepIdle(context.Background())
	if err != nil || res.Retired != 1 {
		t.Fatalf("SweepIdle = %+v, %v; want 1 retired", res, err)
	}
	if st := statuses(t, s, class)[tenant]; st != models.TenantActivityStatusCOLD {
		t.Fatalf("tenant status after the sweep: %q", st)
	}
	if got := ids(h, "ada"); len(got) != 2 || !got["m1#0"] || !got["m2#0"] {
		t.Fatalf("read of the inactive tenant: %v", got)
	}
	if st := statuses(t, s, class)[tenant]; st != models.TenantActivityStatusHOT {
		t.Fatalf("tenant status after the read: %q", st)
	}

	time.Sleep(10 * time.Millisecond)
	if res, err := s.SweepIdle(context.Background()); err != nil || res.Retired != 1 {
		t.Fatalf("second SweepIdle = %+v, %v", res, err)
	}
	h.Upsert(vectortest.Rec("m3", "t", "ada", vectortest.Corpus[2])) // write to the inactive tenant
	if got := ids(h, "ada"); len(got) != 3 || !got["m3#0"] {
		t.Fatalf("after writing to the inactive tenant: %v", got)
	}
	// A retired tenant is not looked at again until it is used.
	if res, err := s.SweepIdle(context.Background()); err != nil || res.Retired != 1 {
		t.Fatalf("third SweepIdle = %+v, %v", res, err)
	}
	if res, err := s.SweepIdle(context.Background()); err != nil || res.Checked != 0 || res.Retired != 0 {
		t.Fatalf("SweepIdle with nothing used since = %+v, %v", res, err)
	}
}

func TestSweepKeepsTenantsWrittenElsewhere(t *testing.T) {
	host, grpc := server(t)
	a := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc, TenantIdle: weaviate.TenantIdle{After: time.Hour, Every: time.Hour}})
	ha := vectortest.NewH(t, a, local.NewHashEmbedder(0))
	ha.Upsert(vectortest.Rec("m1", "t", "ada", vectortest.Corpus[0]))
	// b shares a's classes and judges ada idle at once; a's fresh write
	// must keep it active.
	b, err := weaviate.New(context.Background(), weaviate.Config{Host: host, ClassPrefix: prefixOf(t, a, ha.Index),
		TenantIdle: weaviate.TenantIdle{After: time.Minute, Every: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	class := a.ClassName(ha.Index)
	res, err := b.RetireIdle(context.Background(), class, time.Minute, "", 0)
	if err != nil || res.Checked != 1 || res.Busy != 1 || res.Retired != 0 {
		t.Fatalf("RetireIdle(1m) = %+v, %v; want the tenant checked and busy", res, err)
	}
	if st := statuses(t, a, class)[weaviate.TenantName("ada")]; st != models.TenantActivityStatusHOT {
		t.Fatalf("status %q", st)
	}
	res, err = b.RetireIdle(context.Background(), class, 0, weaviate.TenantInactive, 10)
	if err != nil || res.Retired != 1 {
		t.Fatalf("RetireIdle(0) = %+v, %v", res, err)
	}
	if got := ids(ha, "ada"); !got["m1#0"] {
		t.Fatalf("read after another store retired the tenant: %v", got)
	}
}

// prefixOf returns the class prefix of s (its class of index without the
// index's words).
func prefixOf(t testing.TB, s *weaviate.Store, index string) string {
	t.Helper()
	class, suffix := s.ClassName(index), weaviate.ClassName("", index)
	return class[:len(class)-len(suffix)]
}

// TestTwoStoresRetireWhileWriting has one store write turns to many
// resources while another, sharing the server, keeps retiring every active
// tenant: no write fails and every record is there afterwards (the server
// can lose writes to a tenant retired under them, which the writer reads
// back and writes again; the log says how many).
func TestTwoStoresRetireWhileWriting(t *testing.T) {
	host, grpc := server(t)
	reader := sdkmetric.NewManualReader()
	w := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	h := vectortest.NewH(t, w, local.NewHashEmbedder(0))
	class := w.ClassName(h.Index)
	r, err := weaviate.New(context.Background(), weaviate.Config{Host: host, ClassPrefix: prefixOf(t, w, h.Index)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const resources, turns = 8, 6
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var retired int
	var retireErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := r.RetireIdle(context.Background(), class, 0, "", 4)
			if err != nil {
				retireErr = err
				return
			}
			retired += res.Retired
		}
	}()
	for turn := range turns {
		for i := range resources {
			res := fmt.Sprintf("user-%d", i)
			id := fmt.Sprintf("%s-m%d", res, turn)
			recs := h.Prepare([]vector.Record{vectortest.Rec(id, "t", res, vectortest.Corpus[(i+turn)%len(vectortest.Corpus)])})
			if err := w.Upsert(context.Background(), h.Index, recs); err != nil {
				t.Errorf("turn %d, %s: %v", turn, res, err)
			}
			if _, err := w.Query(context.Background(), h.Index, vector.Query{Vector: recs[0].Vector, TopK: 1,
				Filter: vector.Filter{ResourceID: res}}); err != nil {
				t.Errorf("query turn %d, %s: %v", turn, res, err)
			}
		}
	}
	close(stop)
	wg.Wait()
	if retireErr != nil {
		t.Errorf("RetireIdle: %v", retireErr)
	}
	if retired == 0 {
		t.Fatal("the second store retired no tenant while the first wrote")
	}
	for i := range resources {
		res := fmt.Sprintf("user-%d", i)
		if got := ids(h, res); len(got) != turns {
			t.Errorf("%s has %d of %d records: %v", res, len(got), turns, got)
		}
	}
	t.Logf("%d tenants retired during %d writes; %d objects written again", retired, resources*turns,
		counters(t, reader)[weaviate.MetricObjectsRewritten])
}

// retiring is a store that retires the tenants of its index before every
// query, so that each query reads an inactive tenant.
type retiring struct {
	*weaviate.Store
	t       *testing.T
	retired int
}

func (r *retiring) Query(ctx context.Context, index string, q vector.Query) ([]vector.Hit, error) {
	res, err := r.RetireIdle(ctx, r.ClassName(index), 0, "", 0)
	if err != nil {
		r.t.Fatalf("RetireIdle: %v", err)
	}
	r.retired += res.Retired
	return r.Store.Query(ctx, index, q)
}

// TestIsolationInactive runs the isolation cases with every query reading a
// tenant that was just set inactive.
func TestIsolationInactive(t *testing.T) {
	host, grpc := server(t)
	r := &retiring{Store: openWith(t, weaviate.Config{Host: host, GRPCHost: grpc}), t: t}
	h := vectortest.NewH(t, r, local.NewHashEmbedder(0))
	vectortest.RunIsolation(h, 60)
	if r.retired < 60 {
		t.Fatalf("%d tenants retired before 60 queries", r.retired)
	}
}

// TestSweeperRetires waits for the background sweeper to retire a tenant,
// then stops it with Close.
func TestSweeperRetires(t *testing.T) {
	host, grpc := server(t)
	s := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc,
		TenantIdle: weaviate.TenantIdle{After: 50 * time.Millisecond, Every: 20 * time.Millisecond}})
	h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
	h.Upsert(vectortest.Rec("m1", "t", "ada", vectortest.Corpus[0]))
	class, tenant := s.ClassName(h.Index), weaviate.TenantName("ada")
	for deadline := time.Now().Add(60 * time.Second); statuses(t, s, class)[tenant] != models.TenantActivityStatusCOLD; {
		if time.Now().After(deadline) {
			res, err := s.LastSweep()
			t.Fatalf("the sweeper did not retire the tenant (last pass %+v, %v)", res, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // twice is fine
		t.Fatal(err)
	}
	// Closed: nothing retires the tenant after this read.
	if got := ids(h, "ada"); !got["m1#0"] {
		t.Fatalf("read: %v", got)
	}
	time.Sleep(200 * time.Millisecond)
	if st := statuses(t, s, class)[tenant]; st != models.TenantActivityStatusHOT {
		t.Fatalf("status after Close and a read: %q", st)
	}
}

func TestEnsureIndexTurnsOnAutoActivation(t *testing.T) {
	host, grpc := server(t)
	s := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc})
	ctx := context.Background()
	index := vector.IndexName(8)
	class := s.ClassName(index)
	old := &models.Class{Class: class, Vectorizer: weaviate.VectorizerNone,
		MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: true}}
	if err := s.Client().Schema().ClassCreator().WithClass(old).Do(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: index, Dimension: 8}); err != nil {
		t.Fatal(err)
	}
	cls, err := s.Client().Schema().ClassGetter().WithClassName(class).Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if mt := cls.MultiTenancyConfig; !mt.AutoTenantCreation || !mt.AutoTenantActivation {
		t.Fatalf("multiTenancyConfig after EnsureIndex: %+v", mt)
	}
}

func TestTenantIdleBadInput(t *testing.T) {
	host, _ := server(t)
	_, err := weaviate.New(context.Background(), weaviate.Config{Host: host, TenantIdle: weaviate.TenantIdle{Status: "FROZEN"}})
	if !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("New with status FROZEN: %v", err)
	}
	s := openWith(t, weaviate.Config{Host: host})
	if _, err := s.RetireIdle(context.Background(), "NoSuchClass", 0, "", 0); !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("RetireIdle of a missing class: %v", err)
	}
	if _, err := s.RetireIdle(context.Background(), "NoSuchClass", 0, "HOT", 0); !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("RetireIdle to HOT: %v", err)
	}
}

// TestIsolationWhileSweeping runs the isolation cases while the store's own
// sweeper retires every tenant as soon as it can, so that queries meet
// tenants being retired.
func TestIsolationWhileSweeping(t *testing.T) {
	host, grpc := server(t)
	s := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc,
		TenantIdle: weaviate.TenantIdle{After: time.Nanosecond, Every: time.Millisecond}})
	h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
	vectortest.RunIsolation(h, 100)
}

// TestSweepAfterClassDropped: a class dropped by another process is
// forgotten, and the other classes are still swept.
func TestSweepAfterClassDropped(t *testing.T) {
	host, grpc := server(t)
	s := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc, TenantIdle: manual})
	ctx := context.Background()
	keep := vectortest.NewH(t, s, local.NewHashEmbedder(0))
	keep.Upsert(vectortest.Rec("m1", "t", "ada", vectortest.Corpus[0]))
	dropped := vector.IndexName(8)
	if err := s.EnsureIndex(ctx, vector.IndexSpec{Name: dropped, Dimension: 8}); err != nil {
		t.Fatal(err)
	}
	if err := s.Client().Schema().ClassDeleter().WithClassName(s.ClassName(dropped)).Do(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	if res, err := s.SweepIdle(ctx); err != nil || res.Retired != 1 {
		t.Fatalf("SweepIdle = %+v, %v; want the other class's tenant retired", res, err)
	}
	if res, err := s.SweepIdle(ctx); err != nil || res.Checked != 0 {
		t.Fatalf("second SweepIdle = %+v, %v", res, err)
	}
}

// TestOffloadWithoutModule: OFFLOADED needs an offload module on the server;
// the test server has none, so retiring that way fails with a vector error
// and leaves the tenant active and readable.
func TestOffloadWithoutModule(t *testing.T) {
	host, grpc := server(t)
	s := openWith(t, weaviate.Config{Host: host, GRPCHost: grpc, TenantIdle: weaviate.TenantIdle{After: -1}})
	h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
	h.Upsert(vectortest.Rec("m1", "t", "ada", vectortest.Corpus[0]))
	class := s.ClassName(h.Index)
	_, err := s.RetireIdle(context.Background(), class, 0, weaviate.TenantOffloaded, 0)
	if !errors.Is(err, memerr.ErrVector) {
		t.Fatalf("RetireIdle OFFLOADED without an offload module: %v", err)
	}
	t.Logf("%v", err)
	if st := statuses(t, s, class)[weaviate.TenantName("ada")]; st != models.TenantActivityStatusHOT {
		t.Fatalf("status %q", st)
	}
	if got := ids(h, "ada"); !got["m1#0"] {
		t.Fatalf("read: %v", got)
	}
}
