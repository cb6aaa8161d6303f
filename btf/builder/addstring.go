package builder

import "github.com/kmeta-dev/kmeta/internal/wire"

// AddString adds s to the Builder's strings, if it is not there already,
// and returns its offset in the string space (for split BTF, a string the
// base holds keeps the base's offset). Strings are written in the order
// they were first added, whether by AddString or by the Add methods, which
// add a record's element names before its own name; an encoder that must
// reproduce another tool's string order adds the names it needs first.
func (b *Builder) AddString(s string) (uint32, error) {
	return b.enc.AddString(s)
}

// AllowManyTypes lifts the limit of about a million types (wire.MaxTypeID)
// that the kernel puts on BTF, for BTF that is deduplicated before it is
// loaded: a DWARF encoder adds every compile unit's copy of each type,
// several million for a vmlinux, as libbpf allows before btf__dedup.
// Ids must still fit in 31 bits, libbpf's limit (BTF_MAX_NR_TYPES). It
// applies to every way of adding types: the Add methods, Copy, CopyTypes
// and CopyAll; WriteCopy and WriteCopyELF, which make their own Builder,
// take it as Options.ManyTypes.
func (b *Builder) AllowManyTypes() { b.many = true }

// lastID returns the largest id the Builder may give a type.
func (b *Builder) lastID() uint64 {
	if b.many {
		return 1<<31 - 1
	}
	return wire.MaxTypeID
}
