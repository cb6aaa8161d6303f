package dwarf2btf

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// EncodeFile is Encode for the file at path: an ELF file, mapped and read
// in place, or one compressed with gzip, xz or zstd (a .ko.gz, .ko.xz or
// .ko.zst module), decompressed into memory first. Neither may exceed
// opts.MaxSize.
func EncodeFile(ctx context.Context, path string, opts Options, out builder.Options) ([]byte, error) {
	var raw []byte
	err := withFile(ctx, path, opts.MaxSize, func(data []byte, mapped bool) (err error) {
		opts.mapped = mapped
		raw, err = Encode(ctx, data, opts, out)
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
		return pkgerr.Errorf("dwarf2btf: %w", err)
	}
	defer d.Release()
	if format := input.Detect(d.Bytes()); format != input.None {
		in, err := input.Inflate(ctx, format, d.Bytes(), input.Options{Limit: limit, What: path})
		if err != nil {
			return pkgerr.Errorf("dwarf2btf: %s: %w", path, err)
		}
		d.Release()
		d = in
		defer in.Release()
	}
	if err := f(d.Bytes(), d.Mapped); err != nil {
		return pkgerr.Errorf("dwarf2btf: %s: %w", path, err)
	}
	return nil
}

// ByteOrder returns the byte order of the ELF file in data, also
// compressed with gzip, xz or zstd (only its first bytes are inflated):
// the order pahole writes BTF in, which Encode's out.ByteOrder takes for
// pahole's bytes on an input of the other endianness than the host's.
func ByteOrder(data []byte) (binary.ByteOrder, error) {
	if f := input.Detect(data); f != input.None {
		r, _, err := input.Decompress(f, data, input.DefaultLimit)
		if err != nil {
			return nil, pkgerr.Errorf("dwarf2btf: %w", err)
		}
		head := make([]byte, elf.EI_NIDENT)
		n, _ := io.ReadFull(r, head)
		data = head[:n]
	}
	if len(data) < elf.EI_NIDENT || string(data[:4]) != elf.ELFMAG {
		return nil, &FormatError{Offset: 0, Msg: "ELF header: not an ELF file"}
	}
	switch elf.Data(data[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		return binary.LittleEndian, nil
	case elf.ELFDATA2MSB:
		return binary.BigEndian, nil
	}
	return nil, &FormatError{Offset: elf.EI_DATA, Msg: fmt.Sprintf("ELF header: unknown byte order %d", data[elf.EI_DATA])}
}
