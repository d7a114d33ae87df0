package local

import (
	"context"
	"hash/fnv"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// gram is the length of the character grams HashEmbedder hashes.
const gram = 4

// DefaultDimension is the output dimension of NewHashEmbedder(0).
const DefaultDimension = 384

// HashEmbedder is an offline, deterministic lexical embedder: signed feature
// hashing (FNV-1a) of the character 4-grams of the analyzed terms of a text
// (see package analysis: stopwords out, stems; a term is padded with a space
// on each side), L2-normalized. Character grams rather than whole terms make
// its ranking differ from BM25's (partial and compound word matches), which
// is what hybrid search gains from; on LoCoMo this beat whole-term and
// 3-gram features (BENCHMARKS.md). A text
// made only of stopwords is hashed by its plain terms. It captures word
// overlap and spelling similarity only, not meaning: it is a development and
// test stand-in for a real embedding model, needing no network, no model
// files and no GPU. The zero value is not usable; call NewHashEmbedder. It is
// safe for concurrent use.
type HashEmbedder struct {
	dim int
	an  *analysis.Analyzer
}

var _ vector.Embedder = (*HashEmbedder)(nil)

// NewHashEmbedder returns a HashEmbedder of dim dimensions (DefaultDimension
// when dim <= 0) with the English analyzer.
func NewHashEmbedder(dim int) *HashEmbedder {
	if dim <= 0 {
		dim = DefaultDimension
	}
	return &HashEmbedder{dim: dim, an: analysis.Must(analysis.English)}
}

// Dimension returns the length of every vector the embedder produces.
func (h *HashEmbedder) Dimension() int { return h.dim }

// Embed returns one unit vector per text. It never fails except when ctx is done.
func (h *HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = h.EmbedOne(t)
	}
	return out, nil
}

// EmbedOne returns the unit vector of one text. A text without letters or
// digits maps to the first basis vector (never a zero vector, whose cosine
// similarity is undefined).
func (h *HashEmbedder) EmbedOne(text string) []float32 {
	v := make([]float64, h.dim)
	add := func(feature string, w float64) {
		f := fnv.New64a()
		f.Write([]byte(feature))
		s := f.Sum64()
		if s>>63 == 1 {
			w = -w
		}
		v[s%uint64(h.dim)] += w
	}
	terms := h.an.Terms(text)
	if len(terms) == 0 {
		terms = analysis.Plain.Terms(text)
	}
	for _, w := range terms {
		rs := []rune(" " + w + " ")
		for i := 0; i+gram <= len(rs); i++ {
			add("c:"+string(rs[i:i+gram]), 1)
		}
	}
	return vector.UnitVector(v)
}
