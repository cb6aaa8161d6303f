//go:build !kmetadebug && !race

package mmap

// debug is whether Free and Grow keep every range they give up, made
// inaccessible, so that a use after Free faults (see the package
// documentation).
const debug = false
