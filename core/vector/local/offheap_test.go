package local

import (
	"runtime"
	"testing"
)

// Large arrays come zeroed and writable from a mapping (on this system),
// small ones from the heap.
func TestOffHeap(t *testing.T) {
	small, m := offHeap[int32](16)
	if len(small) != 16 || m != nil {
		t.Fatalf("16 int32s: len %d, mapping %v; want the heap", len(small), m)
	}
	big, m := offHeap[int32](offHeapMin)
	if len(big) != offHeapMin || (m != nil) != mapsMemory {
		t.Fatalf("%d int32s: len %d, mapping %v", offHeapMin, len(big), m)
	}
	for i := range big {
		if big[i] != 0 {
			t.Fatalf("element %d is %d, not zero", i, big[i])
		}
		big[i] = int32(i)
	}
	if big[len(big)-1] != offHeapMin-1 {
		t.Fatal("write lost")
	}
	runtime.KeepAlive(m)
}
