package weaviate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/core/vector/weaviate"
)

// serverUsage returns the resident memory (MiB) and open files of the
// server process pid.
func serverUsage(b *testing.B, pid int) (rssMiB float64, files int) {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			rssMiB = kb / 1024
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		b.Fatal(err)
	}
	return rssMiB, len(fds)
}

// BenchmarkWeaviateTenants writes $AGENTMEM_SCALE_RESOURCES (default
// 10,000) resources × 20 records to one node whose process id is
// $AGENTMEM_WEAVIATE_PID (scripts/bench --weaviate-tenants starts a fresh
// one), with the sweeper retiring tenants idle for
// $AGENTMEM_SCALE_IDLE (default 5s), and compares the server's open files
// and memory with 500 resources all active. It reports: failed writes; RSS
// and open files with 500 resources active (before) and with all resources
// written and 500 of them active again (after); query p50 on an active
// tenant before and after; the p50 of the first query of an inactive tenant.
func BenchmarkWeaviateTenants(b *testing.B) {
	pid, _ := strconv.Atoi(os.Getenv("AGENTMEM_WEAVIATE_PID"))
	if os.Getenv("AGENTMEM_SCALE") != "1" || pid == 0 {
		b.Skip("scripts/bench --weaviate-tenants runs this on a fresh server (AGENTMEM_SCALE=1, AGENTMEM_WEAVIATE_PID)")
	}
	total := 10000
	if v, err := strconv.Atoi(os.Getenv("AGENTMEM_SCALE_RESOURCES")); err == nil && v > 0 {
		total = v
	}
	idle := 5 * time.Second
	if v, err := time.ParseDuration(os.Getenv("AGENTMEM_SCALE_IDLE")); err == nil && v > 0 {
		idle = v
	}
	// The Go runtime of the server returns freed memory to the system only
	// after a forced GC (every 2 minutes when idle) and its scavenger, so
	// memory is measured again after the server was left alone that long.
	settle := 150 * time.Second
	if v, err := time.ParseDuration(os.Getenv("AGENTMEM_SCALE_SETTLE")); err == nil && v >= 0 {
		settle = v
	}
	settled := func() float64 {
		time.Sleep(settle)
		rss, _ := serverUsage(b, pid)
		return rss
	}
	const active, perResource, workers = 500, 20, 4
	host, grpc := server(b)
	ctx := context.Background()
	// The writer keeps tenants active; the sweeper runs in a store of its
	// own, as in a deployment where another process owns it.
	w := openWith(b, weaviate.Config{Host: host, GRPCHost: grpc, TenantIdle: weaviate.TenantIdle{After: -1}})
	emb := local.NewHashEmbedder(0)
	h := vectortest.NewH(b, w, emb)
	resource := func(i int) string { return fmt.Sprintf("user-%05d", i) }
	recs := func(i int) []vector.Record {
		out := make([]vector.Record, perResource)
		for j := range out {
			out[j] = vectortest.Rec(fmt.Sprintf("%s-m%d", resource(i), j), fmt.Sprintf("t%d", j%2), resource(i),
				vectortest.Corpus[(i+j)%len(vectortest.Corpus)])
		}
		return h.Prepare(out)
	}
	queryVec := h.Prepare([]vector.Record{{Text: vectortest.Queries[0]}})[0].Vector
	query := func(i int) time.Duration {
		t0 := time.Now()
		hits, err := w.Query(ctx, h.Index, vector.Query{Vector: queryVec, TopK: 5, Filter: vector.Filter{ResourceID: resource(i)}})
		d := time.Since(t0)
		if err != nil || len(hits) == 0 {
			b.Fatalf("query %s: %d hits, %v", resource(i), len(hits), err)
		}
		return d
	}
	p50 := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	var failed atomic.Int64
	write := func(from, to int) time.Duration {
		t0 := time.Now()
		next := atomic.Int64{}
		next.Store(int64(from))
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < to; i = int(next.Add(1) - 1) {
					if err := w.Upsert(ctx, h.Index, recs(i)); err != nil {
						if failed.Add(1) <= 3 {
							b.Logf("write %s: %v", resource(i), err)
						}
					}
				}
			})
		}
		wg.Wait()
		return time.Since(t0)
	}
	activeP50 := func() float64 {
		var ds []time.Duration
		for i := range 200 {
			ds = append(ds, query(i%active))
		}
		return p50(ds)
	}
	idleRSS, idleFiles := serverUsage(b, pid)

	b.ResetTimer()
	// Before: the first 500 resources, all active.
	write(0, active)
	beforeP50 := activeP50()
	beforeRSS, beforeFiles := serverUsage(b, pid)
	beforeSettled := settled()
	b.Logf("500 active: RSS %.0f MiB (%.0f MiB settled), %d open files (idle server: %.0f MiB, %d files); query p50 %.2f ms",
		beforeRSS, beforeSettled, beforeFiles, idleRSS, idleFiles, beforeP50)

	// The rest, with a sweeper retiring what was not used for idle.
	sw, err := weaviate.New(ctx, weaviate.Config{Host: host, ClassPrefix: prefixOf(b, w, h.Index),
		TenantIdle: weaviate.TenantIdle{After: idle, Every: idle / 5}})
	if err != nil {
		b.Fatal(err)
	}
	defer sw.Close()
	if err := sw.EnsureIndex(ctx, vector.IndexSpec{Name: h.Index, Dimension: emb.Dimension()}); err != nil {
		b.Fatal(err)
	}
	took := write(active, total)
	peakRSS, peakFiles := serverUsage(b, pid)
	b.Logf("wrote %d resources in %s (%.0f resources/s), %d failed; at the end RSS %.0f MiB, %d open files",
		total-active, took.Round(time.Second), float64(total-active)/took.Seconds(), failed.Load(), peakRSS, peakFiles)

	// Wait until every tenant was retired.
	class := w.ClassName(h.Index)
	deadline := time.Now().Add(10*idle + time.Minute)
	for {
		hot := 0
		ts, err := w.Client().Schema().TenantsGetter().WithClassName(class).Do(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range ts {
			if t.ActivityStatus == "HOT" {
				hot++
			}
		}
		if hot == 0 {
			break
		}
		if time.Now().After(deadline) {
			res, err := sw.LastSweep()
			b.Fatalf("%d tenants still active (last sweep %+v, %v)", hot, res, err)
		}
		time.Sleep(idle / 5)
	}
	sw.Close() // the rest is measured with the active set the queries make
	allRetiredRSS, allRetiredFiles := serverUsage(b, pid)

	// First query of inactive tenants, then 500 active again.
	rng := rand.New(rand.NewPCG(7, 9))
	perm := rng.Perm(total)[:active]
	var first []time.Duration
	for _, i := range perm {
		first = append(first, query(i))
	}
	firstP50 := p50(first)
	var again []time.Duration
	for _, i := range perm[:200] {
		again = append(again, query(i))
	}
	afterP50 := p50(again)
	afterRSS, afterFiles := serverUsage(b, pid)
	afterSettled := settled()
	b.StopTimer()
	b.Logf("all %d retired: RSS %.0f MiB, %d open files; 500 active again: RSS %.0f MiB (%.0f MiB settled), %d open files",
		total, allRetiredRSS, allRetiredFiles, afterRSS, afterSettled, afterFiles)
	b.Logf("query p50: active %.2f ms before, %.2f ms after; first query of an inactive tenant %.2f ms",
		beforeP50, afterP50, firstP50)
	b.ReportMetric(float64(failed.Load()), "failed-writes")
	b.ReportMetric(float64(total-active)/took.Seconds(), "resources/s")
	b.ReportMetric(beforeRSS, "MiB-500-active")
	b.ReportMetric(float64(beforeFiles), "files-500-active")
	b.ReportMetric(afterRSS, "MiB-all-500-active")
	b.ReportMetric(float64(afterFiles), "files-all-500-active")
	b.ReportMetric(beforeSettled, "MiB-500-active-settled")
	b.ReportMetric(afterSettled, "MiB-all-500-active-settled")
	b.ReportMetric(allRetiredRSS, "MiB-all-retired")
	b.ReportMetric(float64(allRetiredFiles), "files-all-retired")
	b.ReportMetric(beforeP50, "ms-p50-active-before")
	b.ReportMetric(afterP50, "ms-p50-active-after")
	b.ReportMetric(firstP50, "ms-p50-first-inactive")
	if failed.Load() > 0 {
		b.Errorf("%d writes failed", failed.Load())
	}
}
