// Package mmap is the one owner of memory outside the Go heap in kmeta:
// a Region holds one mapping, of a file (File) or anonymous (New, Make,
// Append), hands out slices of it, and gives it back at Free. It is the
// only place in kmeta that maps memory for data (internal/perfevent maps
// the kernel's perf ring buffers, which are not memory to allocate).
//
// Anonymous regions hold large arrays that grow in place (mremap(2) moves
// page tables, not bytes, so growing never holds two copies) and whose
// pages are returned at once when freed, where the heap would keep them
// until the collector's scavenger returns them. They are used only where
// a benchmark shows that the peak memory or the time needs them; see
// BENCH.md for which ones.
//
// # Use after Free
//
// A slice of a Region must not be used after the Region's Free (or after
// a Grow that moved it): the memory is unmapped, so the use faults, or
// reads and writes whatever is mapped there later. Region's own methods
// panic after Free. Built with the kmetadebug tag, or with -race, Free
// does not unmap: it drops the pages and makes the range inaccessible
// (PROT_NONE) for good, and Grow never moves a mapping in place, so that a
// use after Free or after a moving Grow always faults at once.
//
// On systems without mmap(2) (Windows, Plan 9, wasm) a Region is a heap
// slice, and File reads the file into it, so that the packages above work
// everywhere. Without mremap(2) (every system but Linux) anonymous
// regions are heap slices too.
//
// # Concurrency
//
// A Region is not safe for concurrent use; slices of it may be read
// concurrently as any slice.
package mmap
