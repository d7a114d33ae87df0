package observe

import (
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/store"
)

// Mastra: packages/memory/src/processors/observational-memory/__tests__/
// thresholds.test.ts, describe 'resolveBufferTokens' and 'resolveBlockAfter'
// (each case named after its it()).
func TestResolveBufferTokensAndBlockAfter(t *testing.T) {
	cases := []struct {
		name                       string
		in                         BufferInput
		bufferTokens, blockAfter   int
		activation, reflActivation float64
	}{
		{"converts fractional values to absolute using simple threshold", BufferInput{MessageTokens: 20000, ReflectTokens: 40000, BufferTokens: 0.25}, 5000, 24000, 0.8, 0.5},
		{"returns absolute values as-is", BufferInput{MessageTokens: 30000, ReflectTokens: 40000, BufferTokens: 5000}, 5000, 36000, 0.8, 0.5},
		{"returns 1 as-is (not fractional — boundary)", BufferInput{MessageTokens: 30000, ReflectTokens: 40000, BufferTokens: 1}, 1, 36000, 0.8, 0.5},
		{"handles very small fractions", BufferInput{MessageTokens: 100000, ReflectTokens: 40000, BufferTokens: 0.01}, 1000, 120000, 0.8, 0.5},
		{"converts multipliers to absolute values", BufferInput{MessageTokens: 20000, ReflectTokens: 40000, BufferTokens: 0.2, BlockAfter: 1.5}, 4000, 30000, 0.8, 0.5},
		{"treats 1.0 as a multiplier (exactly at threshold)", BufferInput{MessageTokens: 20000, ReflectTokens: 40000, BufferTokens: 0.2, BlockAfter: 1}, 4000, 20000, 0.8, 0.5},
		{"treats values >= 100 as absolute token counts", BufferInput{MessageTokens: 20000, ReflectTokens: 40000, BufferTokens: 0.2, BlockAfter: 50000}, 4000, 50000, 0.8, 0.5},
		{"rounds the result", BufferInput{MessageTokens: 33333, ReflectTokens: 40000, BufferTokens: 0.2, BlockAfter: 1.3}, 6667, 43333, 0.8, 0.5},
		{"absolute retention", BufferInput{MessageTokens: 30000, ReflectTokens: 40000, BufferTokens: 0.2, Activation: 5000}, 6000, 36000, 5000, 0.5},
	}
	for _, c := range cases {
		s, err := ResolveBuffer(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s.BufferTokens != c.bufferTokens || s.BlockAfter != c.blockAfter || s.Activation != c.activation || s.ReflectActivation != c.reflActivation {
			t.Errorf("%s: got %+v", c.name, s)
		}
	}
	if s, err := ResolveBuffer(BufferInput{MessageTokens: 30000, ReflectTokens: 40000}); s != nil || err != nil {
		t.Fatalf("nothing set: %+v, %v; want no buffering", s, err)
	}
	s, err := ResolveBuffer(BufferInput{MessageTokens: 30000, ReflectTokens: 40000, ReflectActivation: 0.5})
	if err != nil || s.BufferTokens != 0 || s.ReflectActivation != 0.5 || s.ReflectBlockAfter != 48000 {
		t.Fatalf("reflection buffering alone: %+v, %v", s, err)
	}
}

// Mastra: the errors of validateBufferConfig (packages/memory/src/
// processors/observational-memory/observational-memory.ts), each a refused
// configuration naming its field.
func TestResolveBufferRefuses(t *testing.T) {
	base := BufferInput{MessageTokens: 30000, ReflectTokens: 40000}
	cases := []struct {
		field string
		mod   func(*BufferInput)
	}{
		{"bufferTokens", func(b *BufferInput) { b.BufferTokens = -1 }},
		{"bufferTokens", func(b *BufferInput) { b.BufferTokens = 30000 }},
		{"bufferActivation", func(b *BufferInput) { b.BufferTokens, b.Activation = 0.2, -0.5 }},
		{"bufferActivation", func(b *BufferInput) { b.BufferTokens, b.Activation = 0.2, 500 }},
		{"bufferActivation", func(b *BufferInput) { b.BufferTokens, b.Activation = 0.2, 30000 }},
		{"blockAfter", func(b *BufferInput) { b.BufferTokens, b.BlockAfter = 0.2, 0.5 }},
		{"blockAfter", func(b *BufferInput) { b.BufferTokens, b.BlockAfter = 0.2, 20000 }},
		{"blockAfter", func(b *BufferInput) { b.BlockAfter = 1.5 }},
		{"blockAfter", func(b *BufferInput) { b.BufferTokens, b.BlockAfter = 0.2, -1 }},
		{"reflection.bufferActivation", func(b *BufferInput) { b.ReflectActivation = 1.5 }},
		{"reflection.bufferActivation", func(b *BufferInput) { b.ReflectActivation = -0.1 }},
		{"reflection.blockAfter", func(b *BufferInput) { b.ReflectBlockAfter = 1.5 }},
		{"reflection.blockAfter", func(b *BufferInput) { b.ReflectActivation, b.ReflectBlockAfter = 0.5, 30000 }},
		{"scope", func(b *BufferInput) { b.BufferTokens, b.ResourceScope = 0.2, true }},
	}
	for i, c := range cases {
		in := base
		c.mod(&in)
		_, err := ResolveBuffer(in)
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("case %d (%+v): err = %v, want one naming %s", i, in, err, c.field)
		}
	}
}

func chunksOf(tokens ...int) []store.BufferedChunk {
	var out []store.BufferedChunk
	for _, n := range tokens {
		out = append(out, store.BufferedChunk{MessageTokens: n})
	}
	return out
}

// Mastra: thresholds.test.ts, describe 'calculateProjectedMessageRemoval'
// (each case named after its it()): the activated chunks' message tokens.
func TestActivationCountMatchesMastra(t *testing.T) {
	cases := []struct {
		name       string
		chunks     []int
		activation float64
		threshold  int
		pending    int
		want       int // message tokens activated
	}{
		{"returns 0 for empty chunks", nil, 0.7, 30000, 25000, 0},
		{"returns 0 when already within retention floor", []int{5000, 5000}, 0.7, 30000, 5000, 0},
		{"selects the best over-boundary when within safeguards", []int{5000, 5000, 5000}, 0.7, 30000, 25000, 15000},
		{"prefers over-boundary when close to target", []int{8000, 9000}, 0.7, 30000, 25000, 17000},
		{"falls back to under-boundary when over would overshoot too much", []int{3000, 25000}, 0.7, 30000, 25000, 3000},
		{"returns first chunk for single chunk", []int{10000}, 0.7, 30000, 25000, 10000},
		{"handles activation ratio of 1.0 (remove everything)", []int{5000, 5000}, 1.0, 30000, 10000, 10000},
		{"handles absolute retention floor (>= 1000)", []int{4000, 4000, 4000}, 5000, 30000, 15000, 12000},
	}
	for _, c := range cases {
		chunks := chunksOf(c.chunks...)
		n := activationCount(chunks, &BufferSettings{MessageTokens: c.threshold, Activation: c.activation}, c.pending)
		got := 0
		for _, ch := range chunks[:n] {
			got += ch.MessageTokens
		}
		if got != c.want {
			t.Errorf("%s: activated %d tokens (%d chunks), want %d", c.name, got, n, c.want)
		}
	}
}
