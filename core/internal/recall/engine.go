// Package recall is semantic recall's engine: it owns the indexing state of
// a Memory (the embedding dimension, the indexes known, the unindexed
// messages this process holds or found cleared), embeds and indexes saved
// messages (inline, jointly with the save, or apart when one message is
// refused), retries and reindexes what failed, searches the index for a
// turn, for Recall and for the recall tool, and deletes the vectors of
// deleted or moved messages. Package core holds one Engine per Memory and
// delegates to it; the records themselves are made by package indexing and
// the tool's model-facing side is package retrieval.
package recall

import (
	"context"
	"log/slog"
	"sync"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/retrieval"
	"github.com/agentmem/agentmem/core/internal/telemetry"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// Deps are what an Engine works with, fixed for its life.
type Deps struct {
	Vector   vector.Store    // nil: no semantic recall (deletes do nothing)
	Embedder vector.Embedder // nil when Vector embeds itself
	// Dimension is the configured embedding dimension (0: probed once).
	Dimension int
	Recipe    *indexing.Recipe
	Store     *store.Checked // nil without storage
	Tel       *telemetry.T
	Log       *slog.Logger
	// Tokens counts the recall tool's result.
	Tokens retrieval.Counter
	// Skipped is told of the messages a search reads from the store (the
	// Memory reports those with parts it could not decode).
	Skipped Skipped
}

// Skipped reports stored messages whose decoding dropped parts.
type Skipped interface {
	Report(ctx context.Context, msgs []message.Message)
}

// Engine is semantic recall over one vector store. It is safe for
// concurrent use.
type Engine struct {
	d        Deps
	dimMu    sync.Mutex
	dim      int       // probed embedding dimension
	others   *[]string // indexes of other dimensions (otherIndexes), under dimMu
	indexes  sync.Map  // index names this process knows (vectors to delete): true once ensured
	dimClean sync.Map  // resources without records in others (staleIndexes)
	pending  indexing.Pending
	clean    indexing.Clean
	failed   indexing.Failed
	owners   owners
}

// New returns the engine over d.
func New(d Deps) *Engine { return &Engine{d: d, dim: d.Dimension} }

// Analyzer returns the text analyzer of the index's keywords.
func (e *Engine) Analyzer() *analysis.Analyzer { return e.d.Recipe.Analyzer }

// Settings are semantic recall's resolved settings (core's SemanticRecall
// after defaults), for one call.
type Settings struct {
	TopK          int
	Window        Window // the neighbours read with each hit
	Scope         store.Scope
	MaxChunkChars int
	Threshold     float64
	IndexConfig   vector.IndexConfig
	Mode          string  // "": hybrid where the store lists it (or Hybrid), else vector
	Hybrid        bool    // hybrid asked for without a Mode
	Alpha         float64 // hybrid weight of the vector ranking
	Filter        message.Filter
	Diversity     *Diversity // nil: relevance order
	Tool          *Tool      // nil: no recall tool
}

// Window is how many neighbours of a hit are read with it.
type Window struct{ Before, After int }

// Diversity is the resolved MMR re-rank.
type Diversity struct {
	Lambda     float64
	Candidates int
}

// Tool is the resolved recall tool.
type Tool struct{ TopK, MaxTokens int }

// Write is the settings an indexing call runs under.
type Write struct {
	*Settings
	// Gen is Generation when the caller's operation began, before it saved
	// or read its messages (see settle).
	Gen int64
	// Bulk: a large load, indexed through the vector store's
	// vector.BulkLoader when it has one.
	Bulk bool
}

// messageIDs returns the ids of msgs.
func messageIDs(msgs []message.Message) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].ID
	}
	return out
}
