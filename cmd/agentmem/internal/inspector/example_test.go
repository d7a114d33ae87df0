package inspector_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/inspector"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// New returns the inspector as an http.Handler, here mounted on a test
// server; Serve does the same on an address and stops with its context.
func ExampleNew() {
	ctx := context.Background()
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	if _, err := mem.CreateThread(ctx, core.ThreadInput{ID: "thread-1", ResourceID: "user-1", Title: "Hello"}); err != nil {
		panic(err)
	}
	h, err := inspector.New(inspector.Options{Memory: mem}) // read-only, no token: loopback only
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/thread?id=thread-1")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))
	// Output: 200 text/html; charset=utf-8
}

// Serve refuses to expose memory beyond this machine without a token.
func ExampleServe() {
	mem, _ := core.New(core.Options{Store: memstore.New()})
	err := inspector.Serve(context.Background(), "0.0.0.0:7700", inspector.Options{Memory: mem})
	fmt.Println(err != nil, errors.Is(err, inspector.ErrNeedsToken))
	// Output: true true
}
