package kimage_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/kimage"
)

// TestErrorPrefix: the errors of the entry points on bad files and
// streams start with "kimage: " once, also where they wrap btf's errors
// or internal/input's (a missing file, a directory).
func TestErrorPrefix(t *testing.T) {
	ctx := context.Background()
	fuzztest.CheckFiles(t, "kimage", func(path string) error {
		_, err := kimage.OpenBTF(ctx, path, btf.Options{})
		return err
	})
	fuzztest.CheckFiles(t, "kimage", func(path string) error {
		_, err := kimage.OpenPackage(ctx, path, kimage.Options{})
		return err
	})
	for _, data := range [][]byte{nil, []byte("text\n"), []byte("!<arch>\ndebian-binary   0           0     0     100644  4         `\n2.0\n")} {
		_, err := kimage.ReadBTF(ctx, bytes.NewReader(data), btf.Options{MaxSize: 100})
		fuzztest.CheckError(t, "kimage", err)
		_, err = kimage.ReadPackage(ctx, bytes.NewReader(data), kimage.Options{MaxSize: 100})
		fuzztest.CheckError(t, "kimage", err)
		_, _, err = kimage.Kernel(ctx, data, kimage.Options{})
		fuzztest.CheckError(t, "kimage", err)
		_, _, err = kimage.Vmlinuz(ctx, data, kimage.Options{})
		fuzztest.CheckError(t, "kimage", err)
		_, _, err = kimage.Payload(data)
		fuzztest.CheckError(t, "kimage", err)
		for _, f := range []kimage.Format{kimage.Gzip, kimage.Bzip2, kimage.Lzma, kimage.Xz, kimage.Lzo, kimage.Lz4, kimage.Zstd} {
			_, _, err = kimage.Decompress(data, f, kimage.Options{})
			fuzztest.CheckError(t, "kimage", err)
		}
	}
}
