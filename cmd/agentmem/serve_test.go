package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a goroutine-safe writer for the server's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.WriteString(string(p))
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve starts the command with args and returns the base URL and a stop function.
func serve(t *testing.T, b backend, args ...string) (string, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(bg)
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append(append([]string{}, b.flags...), append([]string{"serve"}, args...)...), strings.NewReader(""), io.Discard, &stderr)
	}()
	urlRE := regexp.MustCompile(`http://\S+`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if u := urlRE.FindString(stderr.String()); u != "" {
			return u, func() int { cancel(); return <-done }
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited with %d: %s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("serve did not start: %s", stderr.String())
	return "", nil
}

// serve shows the thread list on loopback and stops cleanly on cancel.
func TestServe(t *testing.T) {
	b := sqliteBackend(t)
	seed(t, b.store)
	base, stop := serve(t, b, "--addr", "127.0.0.1:0")
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "agentmem") {
		t.Fatalf("GET / = %d\n%s", resp.StatusCode, body)
	}
	if code := stop(); code != 0 && code != 130 {
		t.Fatalf("serve exited with %d after cancel", code)
	}
}

// serve refuses a non-loopback address without a token, as a usage-free
// error with the inspector's code.
func TestServeNeedsToken(t *testing.T) {
	b := sqliteBackend(t)
	seed(t, b.store)
	r := b.agentmem(t, "", "--json", "serve", "--addr", "0.0.0.0:0", "--token", "")
	if r.code != 1 || !strings.Contains(r.stderr, "INSPECTOR_NEEDS_TOKEN") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
}
