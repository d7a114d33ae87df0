// Package weaviate is a vector.Store on Weaviate (weaviate-go-client/v5,
// tested against server v1.35.2).
//
// Every index is one collection (class) with multi-tenancy on and one tenant
// per resource, so Weaviate itself isolates resources: a query or delete runs
// inside the resource's tenant and cannot see other tenants' objects. Tenant
// names are derived from a hash of the resource id (tenant names have a
// restricted charset); tenants are created on first write.
//
// With Config.Vectorizer "none" the caller brings vectors (nearVector; hybrid
// sends the query vector along). With a vectorizer module (for instance
// "text2vec-transformers", "text2vec-ollama" or "text2vec-openai") the store
// is self-embedding: Weaviate embeds the "text" property of every object and
// the query text (nearText), and only that property (vectorizeClassName off,
// the id properties skipped).
//
// Objects: text (the record's Text, shown and vectorized, not searched),
// keywords (the record's analyzed Keywords, whitespace tokenization: what
// BM25 and the keyword side of hybrid search match; the class's stopword
// preset is "none" and BM25 k1 1.2, b 0.75, set explicitly, because core's
// analyzer already removed stopwords and stemmed), recordId, messageId,
// threadId, resourceId, role, indexVersion (field tokenization, filterable
// only) and createdAt (date). Each tenant records the index version of its
// records in one marker object (see vector.IndexSpec.Version). The object UUID is a UUIDv5 of the record id, so upserts
// are idempotent. Writes use the batch API (over gRPC when Config.GRPCHost is
// set); per-object batch failures and GraphQL errors, which the client
// reports with a nil error, become memerr.Error values with memerr.CodeVector.
// Deleting a whole resource drops its tenant. Every write is read back
// before Upsert returns, and objects the server acknowledged but lost are
// written again (see putObjects: a 1.35.2 bug when a tenant is retired under
// a write).
//
// On a cluster, Config.ReplicationFactor replicates the classes the store
// creates and Config.Consistency sets how many replicas every read and write
// waits for (QUORUM by default on replicated classes); docs/production.md
// says what a process sees when nodes fail.
//
// An active tenant holds about 11 open files and half a MiB of the server's
// memory. Classes have auto tenant creation and activation on, and the
// store's sweeper (Config.TenantIdle, stopped by Close) sets the tenants
// nobody read or wrote for a while inactive, so a node's open files and
// memory follow the resources in use rather than all of them; the next read
// or write of an inactive tenant reactivates it (tenants.go).
//
// Server notes (v1.35.2): BM25 with BlockMax WAND, the default for new
// collections, silently drops recently written (not yet flushed) objects from
// limited BM25 and hybrid results (upstream weaviate/weaviate#11780: a
// memtable term's block gets a zero score bound); start the server with
// USE_INVERTED_SEARCHABLE=false, as scripts/lib/weaviate.sh does. The server
// decides this for every collection it creates (the class's
// usingBlockMaxWAND is overwritten by it), so it is a deployment setting, not
// one of this store. Its cost is speed: keyword search then reads every
// posting list of the query terms in full (the pre-1.29 WAND), so hybrid
// queries over terms that most records share are far slower than vector
// queries (see BENCHMARKS.md). Hybrid queries therefore leave
// terms held by more than half of the tenant's records out of their keyword
// side (vector.KeywordTerms), judged on a cached sample of the tenant's
// records (sample.go). A server with the fix can switch
// existing collections to BlockMax WAND with REINDEX_MAP_TO_BLOCKMAX_AT_STARTUP. The client is weaviate-go-client/v5: v4 does not compile against the
// weaviate module version this module's graph selects.
package weaviate

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/internal/termsample"

	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"
	wvgrpc "github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"
)

// VectorizerNone is the Config.Vectorizer of a store that is given vectors.
const VectorizerNone = "none"

// DefaultTopK is the number of hits a query with TopK <= 0 returns.
const DefaultTopK = 10

// Config configures a Store.
type Config struct {
	// Host is the REST endpoint, host:port (required), e.g. "127.0.0.1:8080".
	Host string
	// Scheme is "http" (default) or "https".
	Scheme string
	// GRPCHost, when set (host:port), sends batch writes over gRPC.
	GRPCHost string
	// GRPCSecured uses TLS for gRPC.
	GRPCSecured bool
	// Vectorizer is "none" (default; records carry vectors) or a text2vec
	// module enabled on the server, which makes the store self-embedding.
	Vectorizer string
	// ModuleConfig is merged over the defaults {"vectorizeClassName": false,
	// "properties": ["text"]} into the class's moduleConfig[Vectorizer],
	// e.g. {"inferenceUrl": ...} or {"model": ...}.
	ModuleConfig map[string]any
	// ClassPrefix starts every class name (default "Agentmem"); index
	// "memory_messages_384" becomes class "AgentmemMemoryMessages384".
	ClassPrefix string
	// Headers are sent with every request (e.g. a module's API key header).
	Headers map[string]string
	// Timeout bounds every HTTP request (default 60s).
	Timeout time.Duration
	// StartupTimeout makes New wait that long for the server to be ready.
	StartupTimeout time.Duration
	// BatchSize is the number of objects per batch request (default 100).
	BatchSize int
	// TenantIdle configures the sweeper that retires the tenants this
	// process stopped using (on by default; see TenantIdle).
	TenantIdle TenantIdle
	// ReplicationFactor is the number of nodes of a Weaviate cluster that
	// hold each tenant of the classes this store creates (default 1, no
	// replication). A class that exists keeps the factor it has.
	ReplicationFactor int
	// AsyncReplication turns on the server's background repair of replicas
	// (replicationConfig.asyncEnabled) in the classes this store creates; it
	// needs ReplicationFactor above 1. Without it, replicas that missed
	// writes while their node was down are repaired only by reads that find
	// them behind.
	AsyncReplication bool
	// Consistency is the consistency level of every read and write
	// (ConsistencyOne, ConsistencyQuorum or ConsistencyAll): the REST and
	// gRPC batches, object reads and batch deletes, and the GraphQL queries
	// of replicated classes (the server rejects the argument on the others).
	// Empty means QUORUM on replicated classes and the server's default on
	// the others. Tenant creation, status changes and deletion go through
	// the cluster's Raft log, and tenant lookups ask its leader, whatever
	// the level.
	Consistency string
	// MeterProvider receives the tenant lifecycle metrics (tenants retired
	// and reactivated); nil means the global provider.
	MeterProvider metric.MeterProvider
}

// Store is the Weaviate vector store; it is safe for concurrent use.
type Store struct {
	cfg    Config
	client *wv.Client

	mu             sync.Mutex
	classes        map[string]bool            // classes known to exist
	tenants        map[string]map[string]bool // class -> tenants known to exist
	versions       map[string]string          // class -> IndexSpec.Version of the last EnsureIndex
	tenantVersions map[string]tenantState     // "class/tenant" -> its recorded version
	samples        *termsample.Cache          // "class/tenant" -> its term sample (see sample.go)

	// Tenant lifecycle (tenants.go, sweeper.go).
	idle         TenantIdle
	lastUse      map[string]time.Time // "class/tenant" -> last read or write by this process
	retired      map[string]bool      // "class/tenant" retired by this process, not used since
	metrics      tenantMetrics
	lastSweep    SweepResult
	lastSweepErr error
	stopSweeper  context.CancelFunc
	sweeperDone  chan struct{}
	closeOnce    sync.Once

	factors map[string]int64 // class -> its replication factor (replication.go)

	// Metadata filtering (metafilter.go).
	props map[string]map[string]bool // class -> its property names
}

var _ vector.Store = (*Store)(nil)

// New connects to the server of cfg and checks that it is ready.
func New(ctx context.Context, cfg Config) (*Store, error) {
	const op = "New"
	if cfg.Host == "" {
		return nil, vector.Fail("weaviate."+op, "Config.Host is required", nil)
	}
	if cfg.Scheme == "" {
		cfg.Scheme = "http"
	}
	if cfg.Vectorizer == "" {
		cfg.Vectorizer = VectorizerNone
	}
	if cfg.ClassPrefix == "" {
		cfg.ClassPrefix = "Agentmem"
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 100
	}
	if err := cfg.checkReplication(); err != nil {
		return nil, err
	}
	idle, err := cfg.TenantIdle.withDefaults()
	if err != nil {
		return nil, vector.Fail("weaviate."+op, err.Error(), nil)
	}
	wc := wv.Config{Host: cfg.Host, Scheme: cfg.Scheme, Headers: cfg.Headers, Timeout: cfg.Timeout,
		StartupTimeout: cfg.StartupTimeout}
	if cfg.GRPCHost != "" {
		wc.GrpcConfig = &wvgrpc.Config{Host: cfg.GRPCHost, Secured: cfg.GRPCSecured}
	}
	client, err := wv.NewClient(wc)
	if err != nil {
		return nil, vector.Fail("weaviate."+op, "connect to "+cfg.Host, err)
	}
	ready, err := client.Misc().ReadyChecker().Do(ctx)
	if err == nil && !ready {
		err = errors.New("server not ready")
	}
	if err != nil {
		return nil, vector.Fail("weaviate."+op, "connect to "+cfg.Host, err)
	}
	s := &Store{cfg: cfg, client: client, classes: map[string]bool{}, tenants: map[string]map[string]bool{},
		versions: map[string]string{}, tenantVersions: map[string]tenantState{}, samples: &termsample.Cache{TTL: sampleTTL, Max: maxSamples},
		factors: map[string]int64{}, idle: idle, lastUse: map[string]time.Time{}, retired: map[string]bool{}, metrics: newTenantMetrics(cfg.MeterProvider)}
	if idle.After > 0 {
		// Not ctx: the sweeper outlives New and stops with Close.
		sctx, stop := context.WithCancel(context.Background())
		s.stopSweeper, s.sweeperDone = stop, make(chan struct{})
		go s.sweeper(sctx, s.sweeperDone)
	}
	return s, nil
}

// Client returns the underlying client (for administration and tests).
func (s *Store) Client() *wv.Client { return s.client }

// SelfEmbedding reports whether Weaviate embeds the text (Vectorizer != "none").
func (s *Store) SelfEmbedding() bool { return s.cfg.Vectorizer != VectorizerNone }

// SearchModes lists the supported VectorQuery modes.
func (s *Store) SearchModes() []string {
	return []string{vector.SearchVector, vector.SearchBM25, vector.SearchHybrid}
}

// ClassName returns the class of index in this store (see ClassName).
func (s *Store) ClassName(index string) string { return ClassName(s.cfg.ClassPrefix, index) }

// ClassName returns the class of an index: the prefix followed by the
// CamelCase words of the index name ("Agentmem", "memory_messages_384" ->
// "AgentmemMemoryMessages384"), starting with "C" if it would not start with
// an upper-case letter.
func ClassName(prefix, index string) string {
	var b strings.Builder
	for _, part := range []string{prefix, index} {
		for _, w := range strings.FieldsFunc(part, func(r rune) bool { return !isAlnum(r) }) {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	name := b.String()
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		name = "C" + name
	}
	return name
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
