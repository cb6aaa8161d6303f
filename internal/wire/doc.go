// Package wire is the only place in kmeta that knows the byte layout of BTF:
// the header, the kind numbers, the fixed and variable parts of each type
// record, and the optional layout section that describes them.
//
// It is also kmeta's one record layer: Record is the view of a record in
// bytes (WordRecord in host-order words, as dedup holds them), Shapes says
// where every kind keeps its type ids and names, the visitors ForRefs,
// ForNames and RemapRefs walk and rewrite them, and Sizes.Iter walks a
// type section with one bounds check per record.
//
// Package btf, its subpackages (builder, cdump, distill, ext, btfids) and
// the deduplication engine (internal/dedup) decode records here, and
// nowhere else. They get the bytes from btf's documented raw view
// (Spec.TypeSection, Type.Record and the NameOffset methods) and read them
// with Record and Sizes in their hot loops, where a btf.Type per field
// would cost an index lookup each. The package lives under internal/ at
// the module's root, not under btf/, because the deduplication engine that
// dwarf2btf streams into is there too.
//
// All functions work on data in the host's byte order; data in the other
// order is converted once with Swap. Nothing here allocates per type.
//
// The format is described in the kernel's Documentation/bpf/btf.rst and
// include/uapi/linux/btf.h.
package wire
