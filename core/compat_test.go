package core_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	oldstoretest "github.com/agentmem/agentmem/core/storetest"
	oldvectortest "github.com/agentmem/agentmem/core/vectortest"
)

// oldStore is the Store interface as it was before the contracts moved out of
// core: one 22-method shape. A third-party store written against it must keep
// compiling and working.
type oldStore interface {
	SaveThread(ctx context.Context, t core.Thread) (core.Thread, error)
	GetThread(ctx context.Context, id string) (core.Thread, error)
	ListThreads(ctx context.Context, q core.ThreadQuery) (core.ThreadPage, error)
	UpdateThread(ctx context.Context, id string, title *string, metadata map[string]any) (core.Thread, error)
	DeleteThread(ctx context.Context, id string) error
	SaveMessages(ctx context.Context, msgs []core.Message) ([]core.Message, error)
	ListMessages(ctx context.Context, q core.MessageQuery) (core.MessagePage, error)
	GetMessages(ctx context.Context, ids []string) ([]core.Message, error)
	DeleteMessages(ctx context.Context, ids []string) error
	GetResource(ctx context.Context, id string) (core.Resource, error)
	UpdateResource(ctx context.Context, id string, metadata map[string]any) (core.Resource, error)
	GetWorkingMemory(ctx context.Context, scope core.Scope, id string) (core.WorkingMemory, error)
	PutWorkingMemory(ctx context.Context, scope core.Scope, id, data string, expectVersion int64) (core.WorkingMemory, error)
	AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand core.Boundary) (core.Boundary, error)
	ListResourceMessages(ctx context.Context, q core.ResourceMessageQuery) ([]core.Message, error)
	GetObservations(ctx context.Context, key string) (core.ObservationRecord, error)
	PutObservations(ctx context.Context, rec core.ObservationRecord, expectVersion int64) (core.ObservationRecord, error)
	ListObservationGenerations(ctx context.Context, key string) ([]core.ObservationRecord, error)
	MarkUnindexed(ctx context.Context, ids []string) error
	ClearUnindexed(ctx context.Context, ids []string) error
	ListUnindexed(ctx context.Context, resourceID string, limit int) ([]core.Message, error)
	Close() error
}

// legacyStore has exactly the old method set (no CreateThread).
type legacyStore struct{ oldStore }

// The names that moved to core/message, core/store, core/vector and
// core/memerr still compile from core, and the old suite paths still exist.
var (
	_ core.Store           = legacyStore{}
	_ core.Observations    = legacyStore{}
	_ core.IndexQueue      = legacyStore{}
	_ core.Resources       = legacyStore{}
	_ core.VectorStore     = (core.VectorStore)(nil)
	_ core.Embedder        = (core.Embedder)(nil)
	_                      = core.VectorRecord{Meta: core.VectorMeta{Role: core.RoleUser}}
	_                      = core.VectorQuery{Mode: core.SearchHybrid, Filter: core.VectorFilter{ResourceID: "r"}}
	_                      = core.VectorHit{}
	_                      = core.IndexSpec{Name: core.IndexName(384), Config: core.IndexConfig{Metric: "cosine"}}
	_                      = core.ChunkText
	_                      = core.NormalizeThreadQuery
	_                      = core.NormalizeMessageQuery
	_                      = core.MergeBoundary
	_                      = core.CheckObservationWrite
	_                      = core.ParseObservationKey
	_                      = core.ValidateID
	_                      = core.Less
	_                      = core.CloneMetadata
	_                      = core.ToolGroups
	_                      = core.WrapStorage
	_                      = core.Content{Parts: []core.Part{core.TextPart("x")}}
	_                      = core.ToolInvocation{State: core.ToolStateResult}
	_ oldstoretest.Opener  = func(*testing.T) core.Store { return memstore.New() }
	_ oldvectortest.Opener = nil
	_                      = oldstoretest.Run
	_                      = oldvectortest.Run
)

// A store with the old method set works as before, observational memory
// included; CloneThread falls back to check-then-save without CreateThread.
func TestLegacyStoreKeepsWorking(t *testing.T) {
	m, err := core.New(core.Options{Store: legacyStore{memstore.New()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "t", NewThreadID: "c"}); err != nil {
		t.Fatal(err)
	}
	_, _, err = m.CloneThread(ctx, core.CloneOptions{SourceThreadID: "t", NewThreadID: "c"})
	if !errors.Is(err, core.ErrThreadExists) {
		t.Fatalf("second clone = %v, want ErrThreadExists", err)
	}
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeThreadExists {
		t.Fatalf("errors.As = %#v", e)
	}
}

// A store without an optional capability is refused by New when a configured
// feature needs it, and its capability calls report ErrUnsupported.
func TestMissingCapability(t *testing.T) {
	bare := struct{ core.Store }{memstore.New()}
	_, err := core.New(core.Options{Store: bare, Vector: nopVectors{}, Embedder: nopEmbedder{},
		Config: core.Config{SemanticRecall: &core.SemanticRecall{}}})
	if !errors.Is(err, core.ErrUnsupported) {
		t.Fatalf("New with recall over a store without IndexQueue = %v, want ErrUnsupported", err)
	}
	if _, err := core.Check(bare).GetObservations(ctx, "thread:t"); !errors.Is(err, core.ErrUnsupported) {
		t.Fatalf("GetObservations = %v, want ErrUnsupported", err)
	}
}

type nopVectors struct{}

func (nopVectors) SelfEmbedding() bool                                       { return false }
func (nopVectors) EnsureIndex(context.Context, core.IndexSpec) error         { return nil }
func (nopVectors) Upsert(context.Context, string, []core.VectorRecord) error { return nil }
func (nopVectors) Query(context.Context, string, core.VectorQuery) ([]core.VectorHit, error) {
	return nil, nil
}
func (nopVectors) Delete(context.Context, string, core.VectorFilter) error { return nil }

type nopEmbedder struct{}

func (nopEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return make([][]float32, len(texts)), nil
}
