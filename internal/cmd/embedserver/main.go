// Command embedserver serves local.HashEmbedder on a loopback port with the
// text2vec-transformers inference contract (see package embedserver), as the
// offline embedding endpoint of a Weaviate test server.
//
//	embedserver -addr 127.0.0.1:8090 [-dim 384]
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/embedserver"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "loopback host:port to listen on (port 0 picks one)")
	dim := flag.Int("dim", local.DefaultDimension, "embedding dimension")
	failOn := flag.String("fail-on", "", "texts containing this string fail with status 500 (tests)")
	flag.Parse()

	host, _, err := net.SplitHostPort(*addr)
	if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
		log.Fatalf("embedserver: -addr must be a loopback host:port, got %q", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("embedserver: %v", err)
	}
	srv := embedserver.New(local.NewHashEmbedder(*dim), fmt.Sprintf("agentmem-hashembed-%d", *dim))
	srv.FailOn = *failOn
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stdout, "embedserver listening on http://%s (dim %d)\n", ln.Addr(), *dim)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-stop
		hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("embedserver: %v", err)
	}
}
