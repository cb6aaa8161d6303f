// Package ext reads the .BTF.ext section of BPF ELF objects: the
// func_info, line_info and CO-RE relocation records that clang writes
// beside .BTF, grouped by the ELF section (program section) they describe.
//
// Parse validates the section as libbpf's btf_ext__new does (magic,
// version, flags, header length, record sizes, record counts, bounds,
// 4-byte alignment), and more: with the object's BTF given, every string
// offset (section names, file names, source lines, access strings) and
// every type id is checked against it, so that consumers never meet a
// dangling reference. Records are read in place through small views;
// nothing is allocated per record.
//
// Data in the byte order opposite to the host's is accepted when its
// record sizes are the standard ones (as libbpf requires), and converted
// into a copy in host order.
//
// The CO-RE relocation kinds are those of the kernel's
// enum bpf_core_relo_kind; Kind's String spells them as libbpf's logs do
// ("byte_off", "type_matches", ...).
//
// # Concurrency
//
// Every call runs on the caller's goroutine; the package starts none.
// An Ext and its Sections are immutable after Parse and safe for
// concurrent use. They read the object's BTF Spec, which must stay open.
//
// # Security
//
// Every length, offset, count and record size is checked before use;
// errors are *FormatError values that name the part, the byte offset and
// what is wrong. The only allocations are one Section per described ELF
// section (at most one per 8 bytes of input) and, for foreign byte order,
// one copy of the data. FuzzParse exercises these paths.
package ext
