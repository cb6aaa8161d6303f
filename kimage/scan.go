package kimage

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// A kernel image that is not an ELF file (an arm64 or riscv64 Image, the
// s390 and 32-bit arm kernels inside their decompressors) is the vmlinux's
// loaded sections laid end to end ("objcopy -O binary"): nothing in it
// says where .BTF lies. The BTF is found by its magic number, and a match
// counts only if it is BTF all through: a header that kmeta reads, a
// string section that starts and ends with a NUL byte and closes the BTF
// (pahole and libbpf write it last), and types that btf.Parse checks
// against it. The magic also occurs in code and in other data (three times
// in Debian's riscv64 kernel); those matches fail the checks.

// Magic numbers of BTF in either byte order, with version 1 and no flags:
// a header's first four bytes.
var (
	btfMagicLE = []byte{0x9f, 0xeb, 1, 0}
	btfMagicBE = []byte{0xeb, 0x9f, 1, 0}
)

// maxBTFHeader is more than any BTF header kmeta reads.
const maxBTFHeader = 256

// btfAt returns the BTF that starts at img[off:], if a valid one does.
func btfAt(img []byte, off int) ([]byte, error) {
	head := img[off:min(len(img), off+maxBTFHeader)]
	h, err := btf.ParseHeader(head)
	strOff, strLen := h.Strings()
	if err != nil {
		return nil, err
	}
	end := int64(off) + strOff + strLen
	if strLen == 0 || end > int64(len(img)) {
		return nil, fmt.Errorf("kimage: its string section [%d, +%d) does not fit in the image", strOff, strLen)
	}
	raw := img[off:end]
	if raw[strOff] != 0 || raw[len(raw)-1] != 0 {
		return nil, errors.New("kimage: its string section does not start and end with a NUL byte")
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		return nil, err
	}
	s.Close()
	return raw, nil
}

// maxListed is how many offsets of valid BTF an error lists: an image
// made of candidates has them by the hundred thousand.
const maxListed = 8

// btfScan is what scanBTF finds: the first valid BTF, how many there are
// and the first maxListed offsets, and how often the magic occurs. It
// holds no more for an image full of candidates than for a real one.
type btfScan struct {
	first   []byte
	count   int
	offsets []int
	seen    int
}

// offsetList returns the offsets of s for an error: the first few, and
// how many more there are.
func (s *btfScan) offsetList() string {
	if s.count > len(s.offsets) {
		return fmt.Sprintf("%v and %d more", s.offsets, s.count-len(s.offsets))
	}
	return fmt.Sprint(s.offsets)
}

// scanBTF finds the valid BTF in img (btfAt), by offset, and counts how
// many times the magic number occurs.
func scanBTF(img []byte) *btfScan {
	s := &btfScan{}
	for _, magic := range [][]byte{btfMagicLE, btfMagicBE} {
		for i := 0; ; i++ {
			j := bytes.Index(img[i:], magic)
			if j < 0 {
				break
			}
			i += j
			s.seen++
			raw, err := btfAt(img, i)
			if err != nil {
				continue
			}
			if s.count == 0 {
				s.first = raw
			}
			if s.count++; len(s.offsets) < maxListed {
				s.offsets = append(s.offsets, i)
			}
		}
	}
	slices.Sort(s.offsets)
	return s
}

// findBTF returns a copy of the BTF in img, a kernel's loaded sections
// laid end to end. With sm (from the kernel's System.map, nil if there is
// none), the BTF is the bytes between __start_BTF and __stop_BTF, which
// must be valid BTF of exactly that length; without, a scan must find
// exactly one BTF.
func findBTF(img []byte, sm *sysMap) ([]byte, error) {
	if sm != nil {
		return mappedBTF(img, sm)
	}
	s := scanBTF(img)
	switch s.count {
	case 0:
		return nil, pkgerr.Errorf("kimage: %w in the %d-byte kernel: its magic occurs %d times, never at the start of valid BTF", btf.ErrNoBTF, len(img), s.seen)
	case 1:
		return bytes.Clone(s.first), nil
	}
	return nil, fmt.Errorf("kimage: valid BTF at %d offsets of the kernel (%s): which is the kernel's is not known without a System.map", s.count, s.offsetList())
}

// mappedBTF returns the BTF that System.map places in img, after checking
// that it is valid and exactly as long as the symbols say. (A scan may
// find more: System.map says which is the kernel's.)
func mappedBTF(img []byte, sm *sysMap) ([]byte, error) {
	off, size := sm.start-sm.base, sm.stop-sm.start
	if off >= uint64(len(img)) || size > uint64(len(img))-off {
		return nil, fmt.Errorf("kimage: System.map puts __start_BTF at offset %d and %d bytes of BTF in a %d-byte kernel", off, size, len(img))
	}
	raw, err := btfAt(img, int(off))
	if err != nil {
		return nil, pkgerr.Errorf("kimage: no valid BTF where System.map puts __start_BTF (offset %d; the scan found it at %s): %w", off, scanBTF(img).offsetList(), err)
	}
	if uint64(len(raw)) != size {
		return nil, fmt.Errorf("kimage: the BTF at offset %d is %d bytes long, System.map says %d", off, len(raw), size)
	}
	return bytes.Clone(raw), nil
}
