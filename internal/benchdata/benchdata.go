// Package benchdata is the data of the Mastra-shaped benchmarks
// (scripts/mastra/bench.mjs, hashembed.mjs), shared by agentmem's side
// (internal/cmd/membench) and the engine-alone side (internal/cmd/limitbench)
// so that both write and search exactly the same messages and vectors.
package benchdata

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentmem/agentmem/core/vector"
)

// Words is the vocabulary of the texts and queries.
var Words = strings.Fields("alpha beta gamma delta order ship tomorrow cat dog weather paris berlin invoice refund account password reset")

// Text is bench.mjs's text(i): message i's 30-word text.
func Text(i int) string {
	s := make([]string, 30)
	for k := range s {
		s[k] = Words[(i*7+k*13)%len(Words)]
	}
	return fmt.Sprintf("message %d: %s", i, strings.Join(s, " "))
}

// Query is bench-vec.mjs's query(r) over n messages.
func Query(r, n int) string {
	return "what did I say about " + Words[(r*3)%len(Words)] + " and " + Words[(r*5+1)%len(Words)] +
		" in message " + strconv.Itoa((r*7919)%n)
}

// HashEmbedder is hashembed.mjs's hashEmbed, the embedder both sides of the
// vector benchmarks use: signed FNV-1a 32-bit feature hashing of the
// lowercased maximal [a-z0-9] runs, L2-normalized; no tokens give the first
// basis vector.
type HashEmbedder struct{ Dim int }

// Dimension implements vector.Embedder.
func (e HashEmbedder) Dimension() int { return e.Dim }

// Embed implements vector.Embedder.
func (e HashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.EmbedOne(t)
	}
	return out, nil
}

// EmbedOne returns the vector of one text.
func (e HashEmbedder) EmbedOne(text string) []float32 {
	v := make([]float64, e.Dim)
	isTok := func(r rune) bool { return r < unicode.MaxASCII && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }
	for _, tok := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isTok(r) }) {
		h := fnv.New32a()
		h.Write([]byte(tok))
		s := h.Sum32()
		if s>>31 == 1 {
			v[s%uint32(e.Dim)]--
		} else {
			v[s%uint32(e.Dim)]++
		}
	}
	return vector.UnitVector(v)
}

var _ vector.Embedder = HashEmbedder{}

// StartCPUProfile writes a CPU profile of the process to path until the
// returned stop is called; with an empty path it does nothing.
func StartCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
