package dwarf2btf

import (
	"context"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/input"
)

// EncodeFile is Encode for the file at path: an ELF file, mapped and read
// in place, or one compressed with gzip, xz or zstd (a .ko.gz, .ko.xz or
// .ko.zst module), decompressed into memory first. Neither may exceed
// opts.MaxInput.
func EncodeFile(ctx context.Context, path string, opts Options) (*builder.Builder, error) {
	var b *builder.Builder
	err := withFile(ctx, path, opts.MaxInput, func(data []byte, mapped bool) (err error) {
		opts.mapped = mapped
		b, err = Encode(ctx, data, opts)
		return err
	})
	return b, err
}

// DedupFile is Dedup for the file at path, read as EncodeFile reads it.
func DedupFile(ctx context.Context, path string, opts Options, out builder.Options) ([]byte, error) {
	var raw []byte
	err := withFile(ctx, path, opts.MaxInput, func(data []byte, mapped bool) (err error) {
		opts.mapped = mapped
		raw, err = Dedup(ctx, data, opts, out)
		return err
	})
	return raw, err
}

// withFile calls f with the contents of the file at path, decompressed if
// they are compressed, through internal/input's one bounded path; mapped
// tells that they are the file's read-only mapping.
func withFile(ctx context.Context, path string, limit int64, f func(data []byte, mapped bool) error) error {
	d, err := input.File(ctx, path, input.Options{Limit: limit})
	if err != nil {
		return err
	}
	defer d.Release()
	if format := input.Detect(d.Bytes()); format != input.None {
		in, err := input.Inflate(ctx, format, d.Bytes(), input.Options{Limit: limit, What: path})
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		d.Release()
		d = in
		defer in.Release()
	}
	if err := f(d.Bytes(), d.Mapped); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
