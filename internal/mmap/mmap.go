// Package mmap maps files read-only into memory. It is the only place in
// kmeta that calls mmap(2). On systems without it (Windows, Plan 9, wasm),
// File reads the file into the heap instead and Growable is a heap slice,
// so that the packages above work everywhere.
package mmap
