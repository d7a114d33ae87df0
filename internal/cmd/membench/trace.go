package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"
)

// tracer finds out what a run's peak RSS is made of (-trace dir): it
// samples the process's resident memory (anonymous and file-backed) and the
// Go heap every 50 ms into dir/samples.tsv, and at the end of every phase
// writes a heap profile (dir/heap-PHASE.pprof, inuse and alloc space as of
// the last collection) and prints the phase's peaks to stderr. Without
// -trace its methods do nothing.
type tracer struct {
	mu    sync.Mutex
	dir   string
	phase string
	out   *os.File
	peak  map[string]sample
}

// sample is one measurement, in KiB.
type sample struct{ rss, anon, file, heapInuse, heapIdleKept, offHeap uint64 }

func startTrace(dir string) *tracer {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatalf("membench: %v", err)
	}
	out, err := os.Create(filepath.Join(dir, "samples.tsv"))
	if err != nil {
		log.Fatalf("membench: %v", err)
	}
	fmt.Fprintln(out, "phase\trss_kb\tanon_kb\tfile_kb\theap_inuse_kb\theap_idle_kept_kb\tanon_outside_heap_kb")
	t := &tracer{dir: dir, phase: "start", out: out, peak: map[string]sample{}}
	go func() {
		for {
			t.sample()
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return t
}

// status returns the named fields of /proc/self/status in KiB (0 where
// there is no such file).
func status(names ...string) []uint64 {
	b, _ := os.ReadFile("/proc/self/status")
	out := make([]uint64, len(names))
	for _, l := range bytes.Split(b, []byte("\n")) {
		for i, n := range names {
			if f := bytes.Fields(l); len(f) > 1 && string(f[0]) == n+":" {
				out[i], _ = strconv.ParseUint(string(f[1]), 10, 64)
			}
		}
	}
	return out
}

func (t *tracer) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st := status("VmRSS", "RssAnon", "RssFile")
	s := sample{rss: st[0], anon: st[1], file: st[2], heapInuse: ms.HeapInuse >> 10,
		heapIdleKept: (ms.HeapIdle - ms.HeapReleased) >> 10}
	// Anonymous memory the Go runtime does not account for: the local
	// store's arrays outside the heap, SQLite's allocations (modernc libc).
	if goKB := (ms.Sys - ms.HeapReleased) >> 10; s.anon > goKB {
		s.offHeap = s.anon - goKB
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.peak[t.phase]; s.rss > p.rss {
		t.peak[t.phase] = s
	}
	fmt.Fprintf(t.out, "%s\t%d\t%d\t%d\t%d\t%d\t%d\n", t.phase, s.rss, s.anon, s.file, s.heapInuse, s.heapIdleKept, s.offHeap)
}

// endPhase closes the current phase and starts the named one.
func (t *tracer) endPhase(next string) {
	if t == nil {
		return
	}
	t.sample()
	t.mu.Lock()
	done, p := t.phase, t.peak[t.phase]
	t.phase = next
	t.mu.Unlock()
	f, err := os.Create(filepath.Join(t.dir, "heap-"+done+".pprof"))
	if err != nil {
		log.Fatalf("membench: %v", err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		log.Fatalf("membench: %v", err)
	}
	fmt.Fprintf(os.Stderr, "phase %-6s peak RSS %4d MiB: anonymous %d (Go heap in use %d, heap free not yet returned %d, outside Go's accounting %d), file-backed %d\n",
		done, p.rss>>10, p.anon>>10, p.heapInuse>>10, p.heapIdleKept>>10, p.offHeap>>10, p.file>>10)
}
