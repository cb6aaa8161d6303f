package kimage_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kimage"
)

// TestCutPayload: a bzImage whose payload is cut (redteam13) says so,
// whatever its last four bytes, which are then any four of its data, claim:
// not that it claims more than the limit (raising it would not help), nor
// "bad magic" of a stream that failed before its first bytes (lz4). A
// payload that does inflate past the limit is still the limit's error.
func TestCutPayload(t *testing.T) {
	ctx := context.Background()
	elf := vmlinux(t)
	for _, f := range []kimage.Format{kimage.Gzip, kimage.Xz, kimage.Lzma, kimage.Lz4, kimage.Zstd} {
		z := goCompress(t, f, elf)
		cut := z[:len(z)/2]
		for _, claim := range []uint32{1000, 1<<32 - 1} {
			p := bytes.Clone(cut)
			if f == kimage.Gzip { // its ISIZE ends the stream
				binary.LittleEndian.PutUint32(p[len(p)-4:], claim)
			} else {
				p = binary.LittleEndian.AppendUint32(p, claim)
			}
			_, err := kimage.ReadBTF(ctx, bytes.NewReader(testfixtures.BzImage(p)), btf.Options{})
			// xz's index is read before its blocks: "malformed stream
			// layout" says it.
			want := "kimage: the " + f.String() + " payload is truncated or corrupt: "
			if f == kimage.Xz {
				want = "kimage: xz payload: xz: malformed stream layout"
			}
			if err == nil || !strings.HasPrefix(err.Error(), want) || errors.Is(err, btf.ErrTooLarge) {
				t.Errorf("%v cut, claiming %d: %v; want %q...", f, claim, err, want)
			}
		}
		// Whole, its size over the limit: the limit's error.
		p := z
		if f != kimage.Gzip {
			p = sizeAppend(z, len(elf))
		}
		limit := int64(len(elf) / 2)
		_, err := kimage.ReadBTF(ctx, bytes.NewReader(testfixtures.BzImage(p)), btf.Options{MaxSize: limit})
		switch {
		case f == kimage.Lzma: // its 8 MiB dictionary is refused first
			if err == nil || !strings.Contains(err.Error(), "a dictionary of 8 MiB, more than the 1 MiB allowed under an input limit of ") {
				t.Errorf("lzma whole under a limit of %d: %v, want the dictionary's error", limit, err)
			}
		case !errors.Is(err, btf.ErrTooLarge):
			t.Errorf("%v whole under a limit of %d: %v, want the limit's error", f, limit, err)
		}
	}
}
