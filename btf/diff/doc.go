// Package diff compares two BTFs by kind and name, never by type id: which
// types were added or removed, which structs and unions changed size,
// members, member offsets or member types, which enums changed values,
// which functions changed prototype and which typedefs point elsewhere.
//
// Types that share a kind and a name in one BTF (a kernel has several
// "struct fib_table" from different files) are compared as a group: the
// group is unchanged when the same layouts are on both sides, whatever
// their number of copies, order and ids.
//
// Types are spelled in C by btf/cdump's Namer, so member types read as in
// a vmlinux.h.
//
// # Concurrency
//
// Compare runs on the caller's goroutine unless Options.Workers is 2 or
// more: then it indexes the two BTFs at once and compares a big BTF on up
// to Workers goroutines. It keeps its state in the call; several calls
// may share Specs, which must stay open while they run. A caller that
// reads mapped Specs with debug.SetPanicOnFault on (btf's doc) has the
// setting taken over by those goroutines, and a fault in one is raised on
// the caller's goroutine.
//
// # Security
//
// Compare accepts any Specs that btf.Parse accepts. Memory is proportional
// to the number of named types; walks through anonymous members are
// bounded in depth (4,096 levels, as btf layout's), and naming a type is
// bounded as cdump's Write is. A struct whose members' facts are long
// (many members, or paths deep in anonymous members) is compared as they
// are spelled, holding a bit for each member, not the facts; when
// members the two structs share come in different orders, or one
// repeats a name, it holds 128-bit hashes of the facts (24 bytes a fact
// of the new struct, a few bits a fact of the old), and refuses in one
// error a struct of more facts than twice the BTF plus 2 MB allows at
// that cost. The seeds are random, and facts of equal hashes are taken
// for equal: n facts give a wrong detail with a chance of about
// n*n/2^129 (10^-27 for a million; as for a 128-bit cryptographic hash,
// taking maphash for a random function of its seed).
package diff
