package dedup

import (
	"math"
	"math/bits"
)

// keySketch estimates how many distinct keys the main table will be asked
// to file, so that its index is sized for its chains, not for its types.
//
// keepHint expects a Spec's types to be kept, as a kernel's BTF, deduplicated
// when it was made, is: half of them, for which the index would take 24
// bytes a type (two 12-byte slots, kept at most half full). A Spec that
// repeats one anonymous chain under many names (the tenth red team's
// deep-vars: 2.2 million types, 65,535 typedefs and VARs) keeps a few
// percent, yet its 4.2 million slots were all populated once a few
// thousand chains were filed, since hashes spread the chains over every
// page: 50 MB that libbpf, whose hash map grows by need, never holds.
//
// The number of distinct keys bounds the chains: canonical types of one
// key share one slot. It is estimated before the passes (sketchKeys),
// from the keys' head words, with a HyperLogLog of 2^12 one-byte registers
// (Flajolet, Fusy, Gandouet and Meunier, 2007; standard error 1.6%), one
// per worker, merged by maximum. An estimate too low only makes the index
// grow (table.rehash), as it did before from any hint; the bucket order
// libbpf's output shows does not depend on the slots.
type keySketch [1 << sketchBits]uint8

const sketchBits = 12

// add records key h.
func (s *keySketch) add(h uint64) {
	// The keys are products (mix); their low bits are weak, so they are
	// scrambled first (the finalizer of SplitMix64).
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	rank := uint8(bits.LeadingZeros64(h<<sketchBits|1<<(sketchBits-1))) + 1
	if i := h >> (64 - sketchBits); rank > s[i] {
		s[i] = rank
	}
}

// merge makes s the sketch of its keys and o's.
func (s *keySketch) merge(o *keySketch) {
	for i, r := range o {
		s[i] = max(s[i], r)
	}
}

// estimate returns the estimated number of distinct keys added.
func (s *keySketch) estimate() int {
	const m = float64(len(s))
	sum, zeros := 0.0, 0
	for _, r := range s {
		sum += 1 / float64(uint64(1)<<r) // r <= 65-sketchBits
		if r == 0 {
			zeros++
		}
	}
	e := 0.7213 / (1 + 1.079/m) * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros)) // linear counting, small ranges
	}
	return int(e)
}

// sketchFrom is the bytes of index keepHint would give below which no
// sketch is made: its registers, their sum and the keys' hashes were
// 0.85% of the instructions of a small input's deduplication (`btf min`),
// and such an index costs at most this much.
const sketchFrom = 256 << 10

// chainHint returns the chains to size the main table's index for: the
// estimate of s with a margin of 1/8 (about eight standard errors) plus
// enums, which are filed by a hash sketchKeys does not compute, one
// each, never more than hint; hint without a sketch (s nil).
func (s *keySketch) chainHint(enums, hint int) int {
	if s == nil {
		return hint
	}
	e := s.estimate()
	return min(hint, e+e/8+enums+64)
}
