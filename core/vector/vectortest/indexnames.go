package vectortest

import (
	"slices"

	"github.com/agentmem/agentmem/core/vector"
)

// testIndexNames: a store that lists its indexes (vector.IndexLister) lists
// every index EnsureIndex created, of any dimension, and each name maps back
// to its dimension (vector.IndexDimension).
func testIndexNames(h *H) {
	l, ok := h.S.(vector.IndexLister)
	if !ok {
		h.T.Skip("store does not list its indexes")
	}
	dim := 0
	if !h.S.SelfEmbedding() {
		dim = len(h.embed("x")[0])
	}
	other := vector.IndexSpec{Name: vector.IndexName(dim + 8), Dimension: dim + 8}
	if h.S.SelfEmbedding() {
		other.Dimension = 0
	}
	if err := h.S.EnsureIndex(h.Ctx, other); err != nil {
		h.T.Fatalf("EnsureIndex %s: %v", other.Name, err)
	}
	names, err := l.IndexNames(h.Ctx)
	if err != nil {
		h.T.Fatalf("IndexNames: %v", err)
	}
	for _, name := range []string{h.Index, other.Name} {
		if !slices.Contains(names, name) {
			h.T.Fatalf("IndexNames = %v, want %s among them", names, name)
		}
	}
	if d, ok := vector.IndexDimension(other.Name); !ok || d != dim+8 {
		h.T.Fatalf("IndexDimension(%s) = %d, %v", other.Name, d, ok)
	}
}
