package weaviate_test

import (
	"context"
	"os"
	"testing"

	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/core/vectortest"
)

func TestDbg(t *testing.T) {
	convs := vectortest.LoadLoCoMo(t)[:1]
	s, err := weaviate.New(context.Background(), weaviate.Config{Host: os.Getenv("AGENTMEM_WEAVIATE_HOST"), GRPCHost: os.Getenv("AGENTMEM_WEAVIATE_GRPC"), ClassPrefix: "Dbg"})
	if err != nil {
		t.Fatal(err)
	}
	h := vectortest.NewH(t, s, local.NewHashEmbedder(0))
	vectortest.IndexLoCoMo(h, convs)
	t.Log(weaviate.TenantName(convs[0].SampleID))
}
