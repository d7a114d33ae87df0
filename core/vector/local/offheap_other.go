//go:build !unix

package local

// mapsMemory: offHeap maps memory on this system.
const mapsMemory = false

// mapMemory maps nothing on this system: offHeap's arrays come from the heap.
func mapMemory(size int) *mapping { return nil }
