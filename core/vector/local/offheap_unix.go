//go:build unix

package local

import (
	"runtime"
	"syscall"
)

// mapsMemory: offHeap maps memory on this system.
const mapsMemory = true

// mapMemory maps size zeroed bytes (anonymous, private), unmapped when the
// returned mapping becomes unreachable; nil when the system refuses.
func mapMemory(size int) *mapping {
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	m := &mapping{mem: mem}
	runtime.AddCleanup(m, func(mem []byte) { syscall.Munmap(mem) }, mem)
	return m
}
