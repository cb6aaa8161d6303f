// Package layout prints the memory layout of structs and unions as pahole
// does: each member with its offset and size, bitfield positions, holes,
// padding, cacheline boundaries, and a summary per struct.
//
// Write's output is byte for byte what "pahole -F btf FILE" prints with
// Debian's dwarves 1.24, including pahole's own spelling of types ("struct
// list_head * *", "const char  *"), its inference of
// __attribute__((__packed__)) and __attribute__((__aligned__(N))) from
// offsets alone (BTF records no alignment), and its way of printing each
// layout once when several types share a name and a layout. The rules
// follow pahole's dwarves_fprintf.c, dwarves.c and btf_loader.c, written
// anew in Go; comments name the pahole function that each part mirrors.
//
// Layouts gives the same facts as data, and WriteJSON as JSON.
//
// pahole 1.24 cannot read BTF with DECL_TAG or TYPE_TAG records (kernels
// from about 5.17 on); this package reads them, skips declaration tags and
// sees through type tags as through qualifiers.
//
// # Concurrency
//
// Every call runs on the caller's goroutine; the package starts none.
// Write, WriteJSON and Layouts keep their state in the call; several calls
// may share a Spec, which must stay open while they run.
//
// # Security
//
// Any Spec that btf.Parse accepts is printed without panicking: walks along
// reference chains and nesting are bounded, and sizes wrap as pahole's do
// rather than growing allocations. Memory is a few bytes per type of the
// Spec plus the members of the structs printed; output streams through a
// fixed buffer.
package layout
