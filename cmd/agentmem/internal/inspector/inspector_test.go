package inspector

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
)

func TestNewValidates(t *testing.T) {
	if _, err := New(Options{}); !errors.Is(err, core.ErrInvalidArgument) {
		t.Errorf("no memory: %v", err)
	}
	mem, err := core.New(core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Memory: mem}); !errors.Is(err, core.ErrNoStorage) {
		t.Errorf("memory without a store: %v", err)
	}
	mem, err = core.New(core.Options{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Memory: mem, Vector: local.New()}); !errors.Is(err, core.ErrInvalidArgument) {
		t.Errorf("vector store without an embedder: %v", err)
	}
}

func TestServeRefusesPublicAddressWithoutToken(t *testing.T) {
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:7700", "example.com:7700", "no-port"} {
		err := Serve(bg, addr, Options{Memory: mem})
		var ce *core.Error
		if !errors.Is(err, ErrNeedsToken) || !errors.As(err, &ce) || ce.Code != CodeNeedsToken {
			t.Errorf("%s: %v, want ErrNeedsToken", addr, err)
		}
	}
}

func TestServeLoopbackAndShutdown(t *testing.T) {
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr, token string
	}{{"127.0.0.1:0", ""}, {"localhost:0", ""}, {"0.0.0.0:0", token}} {
		ctx, cancel := context.WithCancel(bg)
		addrs := make(chan net.Addr, 1)
		done := make(chan error, 1)
		go func() {
			done <- Serve(ctx, tc.addr, Options{Memory: mem, Token: tc.token, OnListen: func(a net.Addr) { addrs <- a }})
		}()
		var a net.Addr
		select {
		case a = <-addrs:
		case err := <-done:
			t.Fatalf("%s: Serve returned early: %v", tc.addr, err)
		}
		port := a.(*net.TCPAddr).Port
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+itoa(port)+"/", nil)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(body) == 0 {
			t.Errorf("%s: GET / → %d", tc.addr, resp.StatusCode)
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: Serve after cancel: %v", tc.addr, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Serve did not stop after cancel", tc.addr)
		}
	}
	// A busy address is an error, not a hang.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := Serve(bg, ln.Addr().String(), Options{Memory: mem}); err == nil {
		t.Error("Serve on a busy port succeeded")
	}
}
