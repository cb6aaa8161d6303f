package input

import (
	"bytes"
	"compress/gzip"
	"context"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzInflate feeds arbitrary bytes to every decompressor, and to the .xz
// index scan, under a 1 MiB limit: errors are fine, panics and output over
// the limit are not. Seeds: each format's output for a BTF-like input, and
// two .xz streams back to back.
func FuzzInflate(f *testing.F) {
	plain := append([]byte{0x9f, 0xeb, 1, 0, 24}, bytes.Repeat([]byte("task_struct\x00"), 50)...)
	x := xzData(f, plain, 1<<20)
	f.Add(x)
	f.Add(append(append(bytes.Clone(x), 0, 0, 0, 0), x...))
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	f.Add(gz.Bytes())
	enc, _ := zstd.NewWriter(nil)
	f.Add(enc.EncodeAll(plain, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		xzScan(data)
		for _, format := range []Format{Gzip, Xz, Zstd, Zlib} {
			d, err := Inflate(context.Background(), format, data, Options{Limit: 1 << 20})
			if err == nil {
				if len(d.Bytes()) > 1<<20 {
					t.Fatalf("%v: %d bytes over the limit", format, len(d.Bytes()))
				}
				d.Release()
			}
		}
	})
}
