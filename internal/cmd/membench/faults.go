package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// faultCounter counts minor page faults: this process's, and on
// PostgreSQL those of the database's backends when their /proc entries are
// readable (a server on this machine, read as its owner or root). A first
// touch of memory costs ~12 µs on the project's machine, so the first
// batches of a fresh process and backend are largely their faults
// (BENCHMARKS.md, "The first batches are page faults").
type faultCounter struct {
	pids []int // the backends; nil when unknown or unreadable
}

// newFaultCounter finds the backends of the store's database; it counts
// this process's faults only on SQLite or when a backend cannot be read.
func newFaultCounter(ctx context.Context, b *bench) *faultCounter {
	fc := &faultCounter{}
	if b.pg == nil {
		return fc
	}
	rows, err := b.pg.Pool().Query(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
	if err != nil {
		return fc
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) != nil {
			return fc
		}
		fc.pids = append(fc.pids, pid)
	}
	for _, pid := range fc.pids {
		if _, ok := procFaults(pid); !ok {
			fc.pids = nil
			break
		}
	}
	return fc
}

// counts returns the faults so far of this process and of the backends
// (-1 when the backends are not counted).
func (fc *faultCounter) counts() (client, server int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	server = -1
	if fc.pids != nil {
		server = 0
		for _, pid := range fc.pids {
			n, _ := procFaults(pid)
			server += n
		}
	}
	return int64(ru.Minflt), server
}

// cpu returns the CPU time so far, in µs, of this process and of the
// backends (from /proc/pid/schedstat; 0 when they are not counted).
func (fc *faultCounter) cpu() (client, server int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	client = ru.Utime.Sec*1e6 + int64(ru.Utime.Usec) + ru.Stime.Sec*1e6 + int64(ru.Stime.Usec)
	for _, pid := range fc.pids {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			server += n / 1000
		}
	}
	return client, server
}

// procFaults reads the minor faults of a process from /proc/pid/stat.
func procFaults(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	// After the command: state, ppid, pgrp, sid, tty_nr, tpgid, flags, minflt.
	f := strings.Fields(s[i+1:])
	if len(f) < 8 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[7], 10, 64)
	return n, err == nil
}

// faultCost measures what a first touch of a page of memory costs this
// machine, in µs: the median of three runs that each map 2,000 fresh
// anonymous pages and write one byte to each. On the project's virtual
// machine every such fault exits to the hypervisor (~14 µs); on bare metal
// one costs a fraction of a microsecond (with the kernel's zeroing of the
// page). It is 0 when memory cannot be mapped.
func faultCost() float64 {
	const pages = 2000
	var runs []float64
	for range 3 {
		b, err := syscall.Mmap(-1, 0, pages*4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			return 0
		}
		t0 := time.Now()
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		runs = append(runs, float64(time.Since(t0).Nanoseconds())/1e3/pages)
		_ = syscall.Munmap(b)
	}
	return percentile(runs, 0.5)
}

// lessFaults returns batch i's time in ms less its faults (the process's
// and the backends', counted at j) at cost µs each: what the batch would
// take where faults are cheap. ok is false for a batch that did not run
// or whose faults were not counted.
func lessFaults(batchMs []float64, i, j int, client, server []int64, cost float64) (ms float64, ok bool) {
	if i >= len(batchMs) || j >= len(client) {
		return 0, false
	}
	f := client[j]
	if j < len(server) && server[j] > 0 {
		f += server[j]
	}
	return round3(batchMs[i] - float64(f)*cost/1000), true
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
