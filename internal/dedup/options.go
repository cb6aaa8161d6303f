package dedup

// Options tune NewBase and New.
type Options struct {
	// Workers is how many goroutines a call may use for the work that
	// does not depend on order: the signatures a deduplication files
	// structs and typedefs under. NewBase ignores it: it computes a
	// Base's signatures and string index when first needed.
	// What libbpf does in order (which candidate is canonical, the output
	// order) stays on the calling goroutine, so the result is the same for
	// any number. 0 and 1 use the calling goroutine alone.
	Workers int
	// Compat is the libbpf version whose deduplication a Merger
	// reproduces where versions differ; the zero value is
	// CompatLibbpf18. NewBase ignores it: a Base serves Mergers of any
	// Compat.
	Compat Compat
}

func (o Options) workers() int { return max(o.Workers, 1) }
