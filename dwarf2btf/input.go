package dwarf2btf

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// MaxDecompressed bounds the size of a compressed input (.ko.gz, .ko.xz,
// .ko.zst) once decompressed.
const MaxDecompressed = 4 << 30

// EncodeFile is Encode for the file at path: an ELF file, mapped and read
// in place, or one compressed with gzip, xz or zstd (a .ko.gz, .ko.xz or
// .ko.zst module), decompressed into memory first.
func EncodeFile(ctx context.Context, path string, opts Options) (*builder.Builder, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var data []byte
	if fi.Mode().IsRegular() && fi.Size() > 0 {
		m, unmap, err := mmap.File(f, fi.Size())
		if err == nil {
			defer unmap()
			data = m
		}
	}
	if data == nil {
		if data, err = readAll(f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if data, err = decompress(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b, err := Encode(ctx, data, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

func readAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxDecompressed+1))
	if err == nil && len(data) > MaxDecompressed {
		err = fmt.Errorf("input larger than %d bytes", MaxDecompressed)
	}
	return data, err
}

// decompress returns data itself unless it starts with the gzip, xz or
// zstd magic number.
func decompress(data []byte) ([]byte, error) {
	var r io.Reader
	var err error
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		r, err = gzip.NewReader(bytes.NewReader(data))
	case bytes.HasPrefix(data, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		r, err = xz.NewReader(bytes.NewReader(data))
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		var d *zstd.Decoder
		d, err = zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxDecompressed))
		if err == nil {
			defer d.Close()
			r = d
		}
	default:
		return data, nil
	}
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	out, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	return out, nil
}
