package local

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/agentmem/agentmem/core/vector"
)

// DefaultDimension is the output dimension of NewHashEmbedder(0).
const DefaultDimension = 384

// HashEmbedder is an offline, deterministic lexical embedder: signed feature
// hashing (FNV-1a) of lowercased words and their character 3-grams,
// L2-normalized. English function words ("the", "what", "did", ...) are left
// out unless a text has nothing else. It captures word overlap and spelling similarity only, not
// meaning: it is a development and test stand-in for a real embedding model,
// needing no network, no model files and no GPU. The zero value is not usable;
// call NewHashEmbedder. It is safe for concurrent use.
type HashEmbedder struct {
	dim int
}

var _ vector.Embedder = (*HashEmbedder)(nil)

// NewHashEmbedder returns a HashEmbedder of dim dimensions (DefaultDimension
// when dim <= 0).
func NewHashEmbedder(dim int) *HashEmbedder {
	if dim <= 0 {
		dim = DefaultDimension
	}
	return &HashEmbedder{dim: dim}
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
	words := Tokenize(text)
	content := words[:0:0]
	for _, w := range words {
		if !functionWords[w] {
			content = append(content, w)
		}
	}
	if len(content) > 0 {
		words = content
	}
	for _, w := range words {
		add("w:"+w, 1.0)
		rs := []rune(" " + w + " ")
		for i := 0; i+3 <= len(rs); i++ {
			add("c:"+string(rs[i:i+3]), 0.5)
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, h.dim)
	if norm == 0 {
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// Tokenize splits text into lowercased words: maximal runs of letters and
// digits. It is the tokenizer of HashEmbedder and of the store's BM25.
func Tokenize(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// functionWords carry no topic; HashEmbedder ignores them.
var functionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because
		been before being below between both but by can could did do does doing down during each few for from
		further had has have having he her here hers herself him himself his how i if in into is it its itself
		just me more most my myself no nor not now of off on once only or other our ours ourselves out over own
		same she should so some such than that the their theirs them themselves then there these they this
		those through to too under until up very was we were what when where which while who whom why will
		with would you your yours yourself yourselves s t d ll m re ve don let`) {
		functionWords[w] = true
	}
}
