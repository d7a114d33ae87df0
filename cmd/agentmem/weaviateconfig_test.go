package main

import "testing"

// TestWeaviateConfigReplication: the address carries the replication
// settings of a cluster; a factor that is not a number is a usage error.
func TestWeaviateConfigReplication(t *testing.T) {
	cfg, err := weaviateConfig("http://w:8080?grpc=w:50051&replication=3&async-replication=true&consistency=ALL")
	if err != nil || cfg.ReplicationFactor != 3 || !cfg.AsyncReplication || cfg.Consistency != "ALL" || cfg.GRPCHost != "w:50051" {
		t.Fatalf("weaviateConfig = %+v, %v", cfg, err)
	}
	if cfg, err := weaviateConfig("http://w:8080"); err != nil || cfg.ReplicationFactor != 0 || cfg.Consistency != "" {
		t.Fatalf("without settings: %+v, %v", cfg, err)
	}
	if _, err := weaviateConfig("http://w:8080?replication=three"); err == nil {
		t.Fatal("replication=three accepted")
	}
}
