package kimage_test

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/pierrec/lz4/v4"

	"github.com/kmeta-dev/kmeta/kimage"
)

// TestLz4LegacyMemory inflates 96 MiB of a legacy lz4 payload (a kernel
// image's: 12 chunks of 8 MiB) and checks that the reader allocates one
// chunk's buffer, not one for each chunk: pierrec/lz4's stream reader
// took a fresh 8 MiB buffer per chunk, which put an image's peak 58 MB
// above its limit (issue 37, red team six).
func TestLz4LegacyMemory(t *testing.T) {
	const size = 96 << 20
	var b bytes.Buffer
	w := lz4.NewWriter(&b)
	if err := w.Apply(lz4.LegacyOption(true)); err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("kernel text "), 1<<16)
	for n := 0; n < size; n += len(chunk) {
		w.Write(chunk)
	}
	w.Close()
	p := sizeAppend(b.Bytes(), size)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, claim, err := kimage.Decompress(p, kimage.Lz4, kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyBuffer(io.Discard, r, make([]byte, 1<<20))
	runtime.ReadMemStats(&after)
	if err != nil || n < size || claim != size {
		t.Fatalf("read %d bytes (claim %d), %v; want %d", n, claim, err, size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*(8<<20) {
		t.Errorf("inflating %d MiB allocated %d MiB, more than a few chunks' buffers", size>>20, alloc>>20)
	}
}
