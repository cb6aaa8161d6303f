package dedup

// strFilter is a Bloom filter of a Base's strings, made from its string
// index: the names Prepare looks up in the base are, for modules, never
// there (pahole leaves the base's strings out of split BTF), and a miss
// probes an index of megabytes at random. The filter's 128 KB answer most
// of them. Its bits come from the 32 hash bits the index keeps (see
// strtab.Set.HashTags), so it holds no string and is made without
// hashing one.
type strFilter bitPairs

func newStrFilter(index *strset) strFilter {
	f := strFilter(newBitPairs())
	index.HashTags(f.add)
	return f
}

// bits returns the two bits of hash h (strset.hash).
func (strFilter) bits(h uint64) (uint32, uint32) {
	// The index keeps the top 32 bits, but 1 for a hash whose top bits
	// are all zero (a zero slot is empty): take them as it does.
	t := max(h>>32, 1)
	return uint32(t) & (bitPairsLen - 1), uint32(t>>12) & (bitPairsLen - 1)
}

func (f strFilter) add(h uint64) { bitPairs(f).set(f.bits(h)) }

// mayHold reports whether the index may hold a string of hash h; false
// is certain.
func (f strFilter) mayHold(h uint64) bool { return bitPairs(f).has(f.bits(h)) }

// bitPairs is the bit array of the Bloom filters here (keyFilter,
// strFilter), which set two bits per key, each picked its own way from
// the key's hash: 1<<20 bits, 128 KB, which stay in the cache.
type bitPairs []uint64

const bitPairsLen = 1 << 20

func newBitPairs() bitPairs { return make(bitPairs, bitPairsLen/64) }

func (f bitPairs) set(a, b uint32) {
	f[a/64] |= 1 << (a % 64)
	f[b/64] |= 1 << (b % 64)
}

func (f bitPairs) has(a, b uint32) bool {
	return f[a/64]&(1<<(a%64)) != 0 && f[b/64]&(1<<(b%64)) != 0
}
