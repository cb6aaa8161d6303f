package mmap

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// fileMapping is a live file mapping that Release may be asked to drop
// pages of: its address range, and whether the kernel refused to.
type fileMapping struct {
	lo, hi  uintptr
	refuses atomic.Bool
}

// mappings are the live mappings that File made, so that Release, given a
// slice, finds the mapping it lies in. A process holds a handful at once.
type mappings struct {
	mu sync.Mutex
	m  []*fileMapping
}

// refusals holds every live mapping that File made.
var refusals mappings

// add records r's mapping.
func (ms *mappings) add(r *Region) {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(r.b)))
	fm := &fileMapping{lo: lo, hi: lo + uintptr(len(r.b))}
	ms.mu.Lock()
	ms.m = append(ms.m, fm)
	ms.mu.Unlock()
	r.mapping = fm
}

// remove forgets fm, whose mapping is being unmapped.
func (ms *mappings) remove(fm *fileMapping) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for i, m := range ms.m {
		if m == fm {
			ms.m[i] = ms.m[len(ms.m)-1]
			ms.m[len(ms.m)-1] = nil
			ms.m = ms.m[:len(ms.m)-1]
			return
		}
	}
}

// find returns the live mapping that holds address p, or nil.
func (ms *mappings) find(p uintptr) *fileMapping {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for _, m := range ms.m {
		if p >= m.lo && p < m.hi {
			return m
		}
	}
	return nil
}
