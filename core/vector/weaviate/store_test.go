package weaviate_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/internal/testenv"
)

// server returns the configured Weaviate host and gRPC host, skipping the
// test when AGENTMEM_WEAVIATE_HOST is empty and failing it when the server is
// unreachable while AGENTMEM_REQUIRE_SERVERS=1.
func server(t testing.TB) (host, grpc string) {
	t.Helper()
	host, grpc = testenv.Weaviate(t)
	c, err := net.DialTimeout("tcp", host, 2*time.Second)
	if err != nil {
		testenv.Unavailable(t, "Weaviate at %s unreachable: %v", host, err)
	}
	c.Close()
	return host, grpc
}

var prefixSeq atomic.Int64

// open returns a store with a class prefix unique to this test run, whose
// classes are dropped when the test ends.
func open(t testing.TB, vectorizer string, moduleConfig map[string]any) *weaviate.Store {
	t.Helper()
	host, grpc := server(t)
	return openWith(t, weaviate.Config{Host: host, GRPCHost: grpc, Vectorizer: vectorizer, ModuleConfig: moduleConfig})
}

// openWith is open with a given configuration (its ClassPrefix is replaced).
func openWith(t testing.TB, cfg weaviate.Config) *weaviate.Store {
	t.Helper()
	prefix := fmt.Sprintf("T%d%dx%d", os.Getpid(), time.Now().UnixNano()%1e6, prefixSeq.Add(1))
	cfg.ClassPrefix = prefix
	ctx := context.Background()
	s, err := weaviate.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		sch, err := s.Client().Schema().Getter().Do(ctx)
		if err != nil {
			return
		}
		for _, c := range sch.Classes {
			if strings.HasPrefix(c.Class, prefix) {
				_ = s.Client().Schema().ClassDeleter().WithClassName(c.Class).Do(ctx)
			}
		}
	})
	return s
}

func TestConformanceVectorizerNone(t *testing.T) {
	server(t)
	vectortest.Run(t, func(t *testing.T) vector.Store { return open(t, weaviate.VectorizerNone, nil) },
		local.NewHashEmbedder(0))
}

func TestConformanceSelfEmbedding(t *testing.T) {
	server(t)
	vectortest.Run(t, func(t *testing.T) vector.Store { return open(t, "text2vec-transformers", nil) }, nil)
}
