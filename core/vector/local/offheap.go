package local

import "unsafe"

// The largest arrays of a partition (its vector codes and its graph's
// bottom layer, about 60 MiB at 100k records of 384 dimensions) hold no
// pointers and live as long as the partition, so they are kept outside the
// Go heap: the garbage collector lets the heap grow to twice its live size
// between collections (GOGC 100), which would count them twice in the
// process's resident memory. Each such array comes with a *mapping that owns
// its memory; the memory is unmapped once the mapping is unreachable, so a
// structure that keeps such an array keeps its mapping beside it.

// mapping owns memory mapped outside the Go heap (see offHeap).
type mapping struct{ mem []byte }

// offHeapMin is the size from which offHeap maps memory; smaller arrays
// (small partitions) come from the heap.
const offHeapMin = 64 << 10

// offHeap returns n zeroed Ts and the mapping owning them, or a slice from
// the heap and nil when n Ts are fewer than offHeapMin bytes or the memory
// cannot be mapped. T must hold no pointers.
func offHeap[T int8 | int16 | int32 | uint8](n int) ([]T, *mapping) {
	size := n * int(unsafe.Sizeof(*new(T)))
	if size < offHeapMin {
		return make([]T, n), nil
	}
	m := mapMemory(size)
	if m == nil {
		return make([]T, n), nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(m.mem))), n), m
}
