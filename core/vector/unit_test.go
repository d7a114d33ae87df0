package vector_test

import (
	"math"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
)

func TestUnitVector(t *testing.T) {
	got := vector.UnitVector([]float64{3, 0, -4})
	if math.Abs(float64(got[0])-0.6) > 1e-6 || got[1] != 0 || math.Abs(float64(got[2])+0.8) > 1e-6 {
		t.Fatalf("vector.UnitVector(3,0,-4) = %v", got)
	}
	if zero := vector.UnitVector(make([]float64, 3)); zero[0] != 1 || zero[1] != 0 || zero[2] != 0 {
		t.Fatalf("zero vector = %v, want the first basis vector", zero)
	}
	if empty := vector.UnitVector(nil); len(empty) != 0 {
		t.Fatalf("empty = %v", empty)
	}
}
