package postgres

// The outage test runs its own throwaway cluster, created and driven with
// $AGENTMEM_PG_CTL (pg_ctl init/start/stop), so stopping it never disturbs
// the shared server that other tests and packages use at the same time.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// cluster is a private PostgreSQL cluster for fault injection.
type cluster struct {
	ctl, dir, data string
	dsn            string
}

// ctl runs pg_ctl on the cluster, bounded in time.
func (c *cluster) run(t *testing.T, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg(), 90*time.Second)
	defer cancel()
	full := append([]string{"-D", c.data, "-l", filepath.Join(c.dir, "server.log")}, args...)
	out, err := exec.CommandContext(ctx, c.ctl, full...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl %v: %v: %s", args, err, out)
	}
	return nil
}

// privateCluster creates and starts a cluster in a temp dir (owned by user
// postgres when running as root, as pg_ctl refuses to run as root and the
// AGENTMEM_PG_CTL of scripts/lib/pg.sh switches to postgres).
func privateCluster(t *testing.T) *cluster {
	t.Helper()
	testDSN(t)
	ctl := os.Getenv("AGENTMEM_PG_CTL")
	if ctl == "" {
		if os.Getenv("AGENTMEM_REQUIRE_SERVERS") == "1" {
			t.Fatal("AGENTMEM_PG_CTL is needed for the outage test")
		}
		t.Skip("AGENTMEM_PG_CTL not set")
	}
	dir, err := os.MkdirTemp("", "agentmem-pgfault-")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{ctl: ctl, dir: dir, data: filepath.Join(dir, "data")}
	t.Cleanup(func() {
		_ = c.run(t, "-m", "immediate", "-w", "-t", "30", "stop")
		_ = os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(c.data, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs user postgres: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, p := range []string{dir, c.data} {
			if err := os.Chown(p, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := c.run(t, "init", "-s", "-o", "-U postgres -A trust -E UTF8 --no-locale --no-sync"); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	conf, err := os.OpenFile(filepath.Join(c.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fmt.Fprintf(conf, "\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\nfsync = off\nmax_connections = 40\n", port, dir)
	if cerr := conf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := c.run(t, "-w", "-t", "60", "start"); err != nil {
		t.Fatal(err)
	}
	c.dsn = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return c
}

type call struct {
	worker, batch int
	start, end    time.Time
	err           error
}

// TestServerOutage stops a private server with pg_ctl (immediate mode) in
// the middle of a write load. Calls during the outage fail with
// core.ErrStorageUnavailable, no batch is ever half saved, and after a restart the same
// *Store (its pgxpool reconnecting) works again. Every wait is bounded.
func TestServerOutage(t *testing.T) {
	c := privateCluster(t)
	s, err := Open(bg(), c.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}

	const workers, size = 4, 5
	deadline := time.Now().Add(2 * time.Minute) // hard bound on the load
	var (
		mu       sync.Mutex
		calls    []call
		stopLoad = make(chan struct{})
		wg       sync.WaitGroup
	)
	okSince := func(since time.Time) (n int, perWorker map[int]bool) {
		mu.Lock()
		defer mu.Unlock()
		perWorker = map[int]bool{}
		for _, c := range calls {
			if c.err == nil && c.start.After(since) {
				n++
				perWorker[c.worker] = true
			}
		}
		return n, perWorker
	}
	base := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for b := 0; time.Now().Before(deadline); b++ {
				select {
				case <-stopLoad:
					return
				default:
				}
				batch := make([]message.Message, size)
				for i := range batch {
					m := message.NewMessage(message.RoleUser, "load")
					m.ID, m.ThreadID, m.ResourceID = fmt.Sprintf("w%d-b%05d-%d", w, b, i), "t", "r"
					m.CreatedAt = base.Add(time.Duration(b) * time.Millisecond)
					batch[i] = m
				}
				ctx, cancel := context.WithTimeout(bg(), 3*time.Second)
				c := call{worker: w, batch: b, start: time.Now()}
				_, c.err = s.SaveMessages(ctx, batch)
				c.end = time.Now()
				cancel()
				mu.Lock()
				calls = append(calls, c)
				mu.Unlock()
				if c.err != nil {
					time.Sleep(20 * time.Millisecond)
				}
			}
		}(w)
	}
	defer func() {
		close(stopLoad)
		wg.Wait()
	}()
	waitFor := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		end := time.Now().Add(limit)
		for !cond() {
			if time.Now().After(end) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	waitFor("load to run", 30*time.Second, func() bool { n, _ := okSince(time.Time{}); return n >= 40 })
	if err := c.run(t, "-m", "immediate", "-w", "-t", "60", "stop"); err != nil {
		t.Fatal(err)
	}
	down := time.Now()
	time.Sleep(1500 * time.Millisecond)
	// Outside calls fail too, and as an unavailable storage.
	_, err = s.ListMessages(bg(), store.MessageQuery{ThreadID: "t", PerPage: 1})
	if !errors.Is(err, memerr.ErrStorageUnavailable) {
		t.Fatalf("ListMessages during outage: %v", err)
	}
	upStart := time.Now()
	if err := c.run(t, "-w", "-t", "60", "start"); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	waitFor("every worker to succeed after the restart", 60*time.Second, func() bool {
		_, per := okSince(up)
		return len(per) == workers
	})
	close(stopLoad)
	wg.Wait()
	stopLoad = make(chan struct{}) // for the deferred close

	// Calls made entirely during the outage failed with core.ErrStorageUnavailable.
	mu.Lock()
	done := append([]call(nil), calls...)
	mu.Unlock()
	outage, succeeded, failedAfter := 0, 0, 0
	var firstOK time.Time
	for _, c := range done {
		if c.err == nil {
			succeeded++
			if c.start.After(up) && (firstOK.IsZero() || c.end.Before(firstOK)) {
				firstOK = c.end
			}
			continue
		}
		if c.start.After(up) {
			failedAfter++
			if failedAfter <= 3 {
				t.Logf("failure after restart: %v", c.err)
			}
		}
		if !errors.Is(c.err, memerr.ErrStorageUnavailable) {
			t.Errorf("worker %d batch %d: error %v is not core.ErrStorageUnavailable", c.worker, c.batch, c.err)
		}
		if c.start.After(down) && c.end.Before(upStart) {
			outage++
		}
	}
	if outage == 0 {
		t.Fatal("no call was made during the outage")
	}
	for _, c := range done {
		if c.start.After(down) && c.end.Before(upStart) && c.err == nil {
			t.Errorf("worker %d batch %d succeeded while the server was down", c.worker, c.batch)
		}
	}

	// No batch is half saved; every acknowledged batch is complete.
	p, err := s.ListMessages(bg(), store.MessageQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, m := range p.Messages {
		count[m.ID[:len(m.ID)-2]]++ // strip "-i"
	}
	for key, n := range count {
		if n != size {
			t.Errorf("batch %s half saved: %d of %d messages", key, n, size)
		}
	}
	for _, c := range done {
		if key := fmt.Sprintf("w%d-b%05d", c.worker, c.batch); c.err == nil && count[key] != size {
			t.Errorf("acknowledged batch %s has %d of %d messages", key, count[key], size)
		}
	}
	t.Logf("%d calls: %d succeeded, %d failed during the outage, %d failed after the restart; %d batches stored; outage %v, first success %v after the restart",
		len(done), succeeded, outage, failedAfter, len(count), upStart.Sub(down).Round(time.Millisecond), firstOK.Sub(up).Round(time.Millisecond))

	// The same store keeps working.
	if _, err := s.AdvanceBoundary(bg(), "t", "r", store.Boundary{CreatedAt: base, MaxTokens: 1}); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}
