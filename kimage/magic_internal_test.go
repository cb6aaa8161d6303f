package kimage

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMagicIndexLinear walks images dense with payload magics, as an s390
// image or an arm zImage whose decompressor is full of false candidates
// would be: every candidate is found, in order, and the bytes searched
// stay within a few times the image per magic, however many candidates
// there are (searching every magic again from each candidate made a
// 1 MB image of "BZh" cost seconds, a 4 MB one minutes).
func TestMagicIndexLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mixed := []byte{}
	for len(mixed) < 1<<20 {
		mixed = append(mixed, payloadMagics[rng.IntN(len(payloadMagics))]...)
		mixed = append(mixed, make([]byte, rng.IntN(3))...)
	}
	for name, img := range map[string][]byte{
		"bzip2":  bytes.Repeat([]byte("BZh"), 1<<20/3),
		"gzip":   bytes.Repeat([]byte{0x1f, 0x8b, 0x08}, 1<<20/3),
		"mixed":  mixed,
		"none":   make([]byte, 1<<20),
		"sparse": append(make([]byte, 1<<20), lzopMagic...),
	} {
		m := newMagicIndex(img)
		var got []int
		for i := m.next(0); i >= 0; i = m.next(i + 1) {
			got = append(got, i)
		}
		if want := bruteMagics(img); !slices.Equal(got, want) {
			t.Errorf("%s: %d candidates, want %d", name, len(got), len(want))
		}
		if bound := int64(len(payloadMagics)+2) * int64(len(img)); m.searched > bound {
			t.Errorf("%s: searched %d bytes for %d candidates in %d, more than %d", name, m.searched, len(got), len(img), bound)
		}
	}
}

// bruteMagics lists every offset of img where a payload magic starts.
func bruteMagics(img []byte) []int {
	var out []int
	for i := range img {
		for _, magic := range payloadMagics {
			if bytes.HasPrefix(img[i:], magic) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}
