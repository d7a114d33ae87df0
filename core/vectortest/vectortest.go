// Package vectortest is the former path of the VectorStore conformance
// suite; it forwards to core/vector/vectortest.
//
// Deprecated: import github.com/agentmem/agentmem/core/vector/vectortest.
package vectortest

import (
	"testing"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// LoCoMoTurn is one dialog turn; ID is its dialog id ("D3:7").
type LoCoMoTurn = vectortest.LoCoMoTurn

// LoCoMoQuestion is one QA item with its evidence dialog ids.
type LoCoMoQuestion = vectortest.LoCoMoQuestion

// LoCoMoConversation is one LoCoMo sample: its turns in order and questions.
type LoCoMoConversation = vectortest.LoCoMoConversation

// RecallResult is the evidence recall of one search configuration.
type RecallResult = vectortest.RecallResult

// ModeLister is optionally implemented by stores to list the VectorQuery
// modes they support.
type ModeLister = vectortest.ModeLister

// RunOptions tunes Run.
type RunOptions = vectortest.RunOptions

// Opener returns a fresh, empty store.
type Opener = vectortest.Opener

// H is a test harness around one store: it embeds for stores that do not,
// and fails the test on unexpected errors.
type H = vectortest.H

// Variables of package vectortest.
var (
	Corpus       = vectortest.Corpus
	Queries      = vectortest.Queries
	HybridAlphas = vectortest.HybridAlphas
)

// RunIsolation writes identical texts (and thread ids) to two resources and
// runs n random queries (default 200) over every supported mode, with and
// without a thread filter, failing on any hit of the other resource or thread.
func RunIsolation(h *H, n int) { vectortest.RunIsolation(h, n) }

// LoCoMoPath returns $AGENTMEM_LOCOMO, else ../shared/data/locomo-dev.json
// relative to the module root (the directory holding go.mod).
func LoCoMoPath() string { return vectortest.LoCoMoPath() }

// LoadLoCoMo loads the data set at LoCoMoPath, skipping the test when the
// file is absent (or under -short, unless AGENTMEM_REQUIRE_SERVERS=1).
func LoadLoCoMo(t testing.TB) []LoCoMoConversation { return vectortest.LoadLoCoMo(t) }

// ParseLoCoMo parses the LoCoMo JSON (a list of samples with "qa" and
// "conversation" holding session_<n> turn lists and session_<n>_date_time).
func ParseLoCoMo(raw []byte) ([]LoCoMoConversation, error) { return vectortest.ParseLoCoMo(raw) }

// IndexLoCoMo writes one record per dialog turn: resource = sample id,
// thread = session, message id = dialog id, record id = "<dialog id>#0",
// text = the turn's text (without the speaker's name).
func IndexLoCoMo(h *H, convs []LoCoMoConversation) { vectortest.IndexLoCoMo(h, convs) }

// EvalLoCoMo queries every question (TopK 4, resource scope), expands each
// hit by messageRange 1 (the neighbouring turns of its session) and measures
// the share of evidence dialog ids retrieved.
func EvalLoCoMo(h *H, convs []LoCoMoConversation, mode string, alpha float64) RecallResult {
	return vectortest.EvalLoCoMo(h, convs, mode, alpha)
}

// Report logs r and prints it as one machine-readable line
// "LOCOMO_RECALL {json}" on stdout, also appended to $AGENTMEM_LOCOMO_OUT when set.
func Report(t testing.TB, store string, r RecallResult) { vectortest.Report(t, store, r) }

// SweepLoCoMo evaluates BM25, vector and hybrid (every HybridAlphas) search
// when the store supports them, reports every result, and returns the BM25
// result and the best hybrid result (zero values when unsupported).
func SweepLoCoMo(h *H, convs []LoCoMoConversation, store string) (bm25, bestHybrid RecallResult) {
	return vectortest.SweepLoCoMo(h, convs, store)
}

// Run runs every conformance case against fresh stores from open.
func Run(t *testing.T, open Opener, emb vector.Embedder, opts ...RunOptions) {
	vectortest.Run(t, open, emb, opts...)
}

// NewH returns a harness whose index (vector.IndexName of the embedder's
// dimension, or of 0 for self-embedding stores) exists.
func NewH(t testing.TB, s vector.Store, emb vector.Embedder) *H { return vectortest.NewH(t, s, emb) }

// Rec returns a one-chunk record of message msg ("<msg>#0").
func Rec(msg, thread, resource, text string) vector.Record {
	return vectortest.Rec(msg, thread, resource, text)
}

// IDs returns the hit ids in order.
func IDs(hits []vector.Hit) []string { return vectortest.IDs(hits) }
