package btf

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/ulikunitz/xz"
)

// MaxDecompressed bounds how much data Open and Read accept after
// decompressing a .gz, .xz or .zst file, so that a small malicious file
// cannot make them allocate without limit.
const MaxDecompressed = 2 << 30

// maxRead bounds how much Read takes from a stream of raw BTF or ELF.
const maxRead = 4 << 30

// Open reads BTF from the file at path: raw BTF (such as
// /sys/kernel/btf/vmlinux), or an ELF file (vmlinux, a .ko, a BPF object)
// whose .BTF section is used, also compressed as .gz, .xz or .zst. Raw BTF
// and uncompressed ELF files are memory-mapped and read in place; where
// mmap fails the file is read into memory. Close the Spec to release the
// mapping.
func Open(path string) (*Spec, error) {
	return OpenSplit(path, nil)
}

// OpenSplit is Open for split BTF on top of base (module BTF on vmlinux).
// A nil base makes it the same as Open.
func OpenSplit(path string, base *Spec) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, unmap, err := mapOrRead(f)
	if err != nil {
		return nil, err
	}
	s, err := parseAny(data, base)
	if err != nil {
		if unmap != nil {
			unmap()
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if unmap != nil && s.aliases(data) {
		s.closeFn = unmap
	} else if unmap != nil {
		unmap() // decompressed or byte-swapped: the Spec owns a copy
	}
	return s, nil
}

// mapOrRead maps a regular file, or reads it when it cannot be mapped (sysfs
// on older kernels, pipes). unmap is nil when the data was read.
func mapOrRead(f *os.File) (data []byte, unmap func() error, err error) {
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		if data, unmap, err := mmap.File(f, fi.Size()); err == nil {
			return data, unmap, nil
		}
	}
	data, err = readFile(f)
	return data, nil, err
}

// readFile reads f whole. When stat gives a size (sysfs module BTF files
// have one but cannot be mapped), the buffer is allocated once at that size
// instead of growing.
func readFile(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= 0 || fi.Size() > maxRead {
		return readLimited(f, maxRead)
	}
	buf := make([]byte, 0, fi.Size()+1) // +1: see EOF without growing
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			rest, err := readLimited(f, maxRead-int64(len(buf)))
			return append(buf, rest...), err
		}
	}
}

// Read reads BTF (raw, ELF, or compressed, as Open accepts) from r, on top
// of base if it is not nil. The data is read into memory.
func Read(r io.Reader, base *Spec) (*Spec, error) {
	data, err := readLimited(r, maxRead)
	if err != nil {
		return nil, err
	}
	return parseAny(data, base)
}

func readLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("input larger than %d bytes", limit)
	}
	return data, nil
}

// aliases reports whether the Spec reads its records from data in place.
func (s *Spec) aliases(data []byte) bool {
	if len(s.data) == 0 || len(data) == 0 {
		return false
	}
	lo, hi := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[len(data)-1]))
	p := uintptr(unsafe.Pointer(&s.data[0]))
	return lo <= p && p <= hi
}

// Magic numbers of the formats parseAny recognizes.
var (
	magicELF  = []byte("\x7fELF")
	magicGzip = []byte{0x1f, 0x8b}
	magicXz   = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	magicZstd = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// parseAny recognizes raw BTF, ELF, and compressed data by their magic
// numbers.
func parseAny(data []byte, base *Spec) (*Spec, error) {
	switch {
	case bytes.HasPrefix(data, magicELF):
		sec, err := elfBTF(data)
		if err != nil {
			return nil, err
		}
		return ParseSplit(sec, base)
	case bytes.HasPrefix(data, magicGzip), bytes.HasPrefix(data, magicXz), bytes.HasPrefix(data, magicZstd):
		plain, err := decompress(data)
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(plain, magicGzip) || bytes.HasPrefix(plain, magicXz) || bytes.HasPrefix(plain, magicZstd) {
			return nil, errors.New("btf: nested compression is not supported")
		}
		return parseAny(plain, base)
	}
	return ParseSplit(data, base)
}

func decompress(data []byte) ([]byte, error) {
	var r io.Reader
	var err error
	switch {
	case bytes.HasPrefix(data, magicGzip):
		r, err = gzip.NewReader(bytes.NewReader(data))
	case bytes.HasPrefix(data, magicXz):
		r, err = xz.NewReader(bytes.NewReader(data))
	default:
		var d *zstd.Decoder
		d, err = zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxDecompressed))
		if err == nil {
			defer d.Close()
			r = d
		}
	}
	if err != nil {
		return nil, fmt.Errorf("btf: decompress: %w", err)
	}
	plain, err := readLimited(r, MaxDecompressed)
	if err != nil {
		return nil, fmt.Errorf("btf: decompress: %w", err)
	}
	return plain, nil
}

// elfBTF returns the .BTF section of an ELF image, in place when it is
// stored uncompressed.
func elfBTF(data []byte) ([]byte, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, &FormatError{Section: "elf", Offset: -1, Err: err}
	}
	sec := f.Section(".BTF")
	if sec == nil {
		return nil, ErrNoBTF
	}
	if sec.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("%w: the section has no data (SHT_NOBITS)", ErrNoBTF)
	}
	if sec.Flags&elf.SHF_COMPRESSED == 0 {
		end := sec.Offset + sec.FileSize
		if end < sec.Offset || end > uint64(len(data)) {
			return nil, &FormatError{Section: "elf", Offset: int64(sec.Offset), Msg: ".BTF section lies outside the file"}
		}
		return data[sec.Offset:end], nil
	}
	b, err := sec.Data()
	if err != nil {
		return nil, &FormatError{Section: "elf", Offset: int64(sec.Offset), Msg: "reading compressed .BTF", Err: err}
	}
	return b, nil
}
