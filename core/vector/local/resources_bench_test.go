package local_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
)

// envInt returns the positive integer in the environment variable name, or def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// heapAlloc returns the live heap after a full collection.
func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkManyResources measures the store's partition per resource at
// many resources: $AGENTMEM_RESOURCES resources (default 10,000) of
// $AGENTMEM_PER records (default 20) each, random unit vectors of 64 and of
// 384 dimensions and 12 keywords a record from a vocabulary of 2,000, each
// resource written by one Upsert into a buffered file store. It reports the
// live heap per idle partition after the writes and again after reopening
// the file, the file's bytes per resource after Flush, and the p50 of a
// vector query (TopK 10) of a random resource.
//
//	go test ./core/vector/local/ -run '^$' -bench ManyResources -benchtime 1x -timeout 30m
func BenchmarkManyResources(b *testing.B) {
	for _, dim := range []int{64, local.DefaultDimension} {
		b.Run(fmt.Sprintf("dim=%d", dim), func(b *testing.B) {
			for range b.N {
				benchManyResources(b, dim)
			}
		})
	}
}

func benchManyResources(b *testing.B, dim int) {
	resources, per := envInt("AGENTMEM_RESOURCES", 10_000), envInt("AGENTMEM_PER", 20)
	rng := rand.New(rand.NewPCG(41, uint64(dim)))
	unit := func() []float32 {
		v := make([]float32, dim)
		var n float64
		for i := range v {
			x := rng.NormFloat64()
			v[i], n = float32(x), n+x*x
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	words := make([]string, 12)
	keywords := func() string {
		for i := range words {
			words[i] = "w" + strconv.Itoa(rng.IntN(2000))
		}
		return strings.Join(words, " ")
	}
	path := filepath.Join(b.TempDir(), "vectors.bin")
	ctx := b.Context()
	spec := vector.IndexSpec{Name: "many", Dimension: dim}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

	before := heapAlloc()
	s, err := local.OpenBuffered(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.EnsureIndex(ctx, spec); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	recs := make([]vector.Record, per)
	for r := range resources {
		res := "r" + strconv.Itoa(r)
		for i := range recs {
			recs[i] = vector.Record{ID: fmt.Sprintf("m%d#0", i), Vector: unit(), Keywords: keywords(),
				Meta: vector.Meta{MessageID: fmt.Sprintf("m%d", i), ThreadID: "t" + strconv.Itoa(i%2), ResourceID: res,
					Role: message.RoleUser, CreatedAt: at.Add(time.Duration(i) * time.Second)}}
		}
		if err := s.Upsert(ctx, "many", recs); err != nil {
			b.Fatal(err)
		}
	}
	load := time.Since(t0)
	clear(recs)
	written := heapAlloc()
	t0 = time.Now()
	if err := s.Flush(); err != nil {
		b.Fatal(err)
	}
	flush := time.Since(t0)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	s = nil
	closed := heapAlloc()

	t0 = time.Now()
	s, err = local.OpenBuffered(path)
	if err != nil {
		b.Fatal(err)
	}
	open := time.Since(t0)
	opened := heapAlloc()

	lat := make([]time.Duration, 0, 200)
	for n := range 201 {
		res := "r" + strconv.Itoa(rng.IntN(resources))
		q := vector.Query{Vector: unit(), TopK: 10, Filter: vector.Filter{ResourceID: res}}
		start := time.Now()
		hits, err := s.Query(ctx, "many", q)
		d := time.Since(start)
		if err != nil || len(hits) != min(10, per) {
			b.Fatalf("query of %s: %d hits, %v", res, len(hits), err)
		}
		if n > 0 { // the first query warms caches
			lat = append(lat, d)
		}
	}
	slices.Sort(lat)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	runtime.KeepAlive(s)

	perPart := func(after, base uint64) float64 { return (float64(after) - float64(base)) / float64(resources) }
	b.ReportMetric(perPart(written, before), "heap-bytes/partition")
	b.ReportMetric(perPart(opened, closed), "opened-heap-bytes/partition")
	b.ReportMetric(perPart(written, before)/float64(per), "heap-bytes/record")
	b.ReportMetric(float64(fi.Size())/float64(resources), "file-bytes/resource")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "query-p50-ms")
	b.ReportMetric(load.Seconds(), "upsert-s")
	b.ReportMetric(flush.Seconds(), "flush-s")
	b.ReportMetric(open.Seconds(), "open-s")
}
