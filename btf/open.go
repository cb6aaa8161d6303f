package btf

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"unsafe"

	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/elfscan"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// DefaultMaxSize is the input size limit when Options.MaxSize is zero:
// 1 GiB.
const DefaultMaxSize = 1 << 30

// ErrTooLarge matches (errors.Is) the error for input over the size
// limit, whether the data ran over it or claimed to (a compressed file's
// header, an ELF compression header).
var ErrTooLarge = errors.New("btf: input over the size limit")

func init() {
	input.RegisterTooLarge(ErrTooLarge)
	btfmem.Register(btfmem.Funcs[*Spec]{Evict: (*Spec).evict, EvictTypes: (*Spec).evictTypes, EvictStrings: (*Spec).evictStrings, TypesMapped: (*Spec).typesMapped, TypesToFile: (*Spec).typesToFile, LastReader: (*Spec).markLastReader, DoneReading: (*Spec).doneReading, Discard: (*Spec).discard, RecordSizes: (*Spec).recordSizes})
	btfmem.RegisterOpening(func(o Options) Options { o.evictWalk = true; return o })
}

// Options say how Open, Read and Parse read BTF. The zero value reads
// standalone BTF, with every record checked, under DefaultMaxSize, on the
// caller's goroutine.
type Options struct {
	// Base is the base Spec of split BTF (a module's BTF on vmlinux's),
	// or nil. It must stay open while the split Spec is used.
	Base *Spec
	// MaxSize bounds every input: a file, a stream, and what compressed
	// data (a .gz, .xz or .zst file, a compressed .BTF section) inflates
	// to. Zero means DefaultMaxSize. Parse, whose input is in memory,
	// ignores it.
	MaxSize int64
	// Lazy makes opening check only what finding records needs: the
	// header, the string section's ends, and every record's kind and
	// bounds. The type ids and string offsets that a record refers to
	// are checked when a view of it is handed out (TypeByID, Find,
	// FindFlavors, the iterations), with the errors a full check would
	// give: TypeByID returns the error, an iteration stops before the
	// record, and Err reports the first such error from then on. Opening
	// a big BTF to read a few of its types costs less (see btf/core's
	// minimal BTF for CO-RE). Lazy is ignored for split BTF (Base set).
	Lazy bool
	// Flavors, for a Lazy open, are the names and kinds of a FindFlavors
	// search to make during the walk that opening does anyway: a later
	// FindFlavors for some of these names and kinds reads what was found
	// instead of walking the records again.
	Flavors FlavorQuery
	// Workers is the number of goroutines that may check a big type
	// section (a vmlinux's): 0 or 1 is the caller's alone; 2 or more lets
	// a second goroutine walk the second half of the records while the
	// caller walks the first. Small sections are always walked on the
	// caller's goroutine.
	Workers int
	// PointerSize is the pointer size of the BTF's target, 4 or 8, for
	// raw BTF taken out of an ELF file whose class gave it (ExtractAll's
	// Extracted.PointerSize): a Spec read from the ELF file itself has
	// it from the class, as libbpf's btf_parse_elf sets it, and raw BTF
	// otherwise has it deduced from "long" (KnownPointerSize). Zero
	// deduces it; an ELF file's class takes precedence over it.
	PointerSize uint32

	// evictWalk makes the walk that checks a file's mapped records
	// release them behind it (internal/btfmem's EvictWhileOpening).
	evictWalk bool
}

// Open reads BTF from the file at path: raw BTF (such as
// /sys/kernel/btf/vmlinux), or an ELF file (vmlinux, a .ko, a BPF object)
// whose .BTF section is used, also compressed as .gz, .xz or .zst. Raw BTF
// and uncompressed ELF files are memory-mapped and read in place; where
// mmap fails the file is read into memory. Close the Spec to release the
// mapping.
//
// Open opens path without blocking (O_NONBLOCK) and refuses what is not a
// regular file, a FIFO or a character device; a FIFO is read once a writer
// has opened it. ctx stops the wait for a writer, the reading of a stream
// and decompression; the error is then ctx's cause.
func Open(ctx context.Context, path string, opts Options) (*Spec, error) {
	check := func(head []byte) error { // input.File's other errors name path
		if err := checkOuter(head); err != nil {
			return pkgerr.Errorf("btf: %s: %w", path, err)
		}
		return nil
	}
	d, err := input.File(ctx, path, input.Options{Limit: opts.MaxSize, Check: check, CheckLen: magicLen})
	if err != nil {
		return nil, pkgerr.Errorf("btf: %w", err)
	}
	s, err := opts.parseAny(ctx, d)
	if err != nil {
		return nil, pkgerr.Errorf("btf: %s: %w", path, err)
	}
	return s, nil
}

// Read reads BTF (raw, ELF, or compressed, as Open accepts) from r. The
// data is read into memory, which Close releases. ctx stops the reading and
// decompression, as for Open.
func Read(ctx context.Context, r io.Reader, opts Options) (*Spec, error) {
	d, err := input.ReadAll(ctx, r, input.Options{Limit: opts.MaxSize, What: "input", Check: checkOuter, CheckLen: magicLen})
	if err != nil {
		return nil, pkgerr.Errorf("btf: %w", err)
	}
	return opts.parseAny(ctx, d)
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

// Magic numbers of the formats parseAny recognizes, besides BTF's and
// the compression formats input.Detect knows.
var magicELF = []byte("\x7fELF")

// magicLen is how many first bytes checkOuter and checkInner look at:
// enough for a tar archive's magic (BTFHub's RELEASE.btf.tar.xz).
const magicLen = input.TarHeadLen

// shownLen is how many first bytes an error about a bad magic shows.
const shownLen = 6

// checkInner accepts data that starts as BTF or ELF: what compressed
// input must inflate to.
func checkInner(head []byte) error {
	if bytes.HasPrefix(head, magicELF) || input.IsTar(head) {
		return nil
	}
	if len(head) >= 2 && (binary.LittleEndian.Uint16(head) == wire.Magic || binary.BigEndian.Uint16(head) == wire.Magic) {
		return nil
	}
	if input.Detect(head) != input.None {
		return fmt.Errorf("btf: nested compression is not supported")
	}
	if len(head) == 0 { // not "bad magic :"
		return errEmpty()
	}
	return &FormatError{Section: "header", Offset: 0, Msg: fmt.Sprintf("bad magic %x: not BTF, ELF, a tar archive or compressed data", head[:min(len(head), shownLen)])}
}

// checkOuter accepts what checkInner does, and compressed data.
func checkOuter(head []byte) error {
	if input.Detect(head) != input.None {
		return nil
	}
	return checkInner(head)
}

// parseAny recognizes raw BTF, ELF, and compressed data by their magic
// numbers, and parses it. The Spec takes d over if it reads from it in
// place; otherwise d is released. A module with a distilled base (an ELF
// .BTF.base section) is relocated onto o.Base, or without one read on its
// distilled base.
func (o *Options) parseAny(ctx context.Context, d *input.Data) (*Spec, error) {
	d, distBase, ptrSize, err := o.rawAny(ctx, d)
	if err != nil {
		return nil, err
	}
	if ptrSize != 0 { // the class, over Options.PointerSize
		withClass := *o
		withClass.PointerSize = ptrSize
		o = &withClass
	}
	data := d.Bytes()
	if distBase != nil {
		data = bytes.Clone(data)
		d.Release()
		s, err := o.parseDistilled(data, distBase)
		if err == nil {
			s.setPointerSize(ptrSize)
		}
		return s, err
	}
	order, swapped, d, err := hostOrder(d)
	if err != nil {
		d.Release()
		return nil, err
	}
	data = d.Bytes()
	// A swapped file's written pages must not be released while read:
	// released, they read as the file again.
	s, err := o.parse(ctx, data, d.Mapped && !swapped && o.evictWalk)
	if err != nil || !s.aliases(data) {
		d.Release() // the Spec owns a copy, or failed
	} else {
		s.closeFn, s.mapped, s.owned = vacateFn(s, d), d.Mapped, d.Owned()
		if swapped { // its own records, the file's strings
			s.mapped, s.owned, s.strsMapped = false, true, d.Mapped
			s.swappedFile = d.Mapped && s.inMapping(s.types)
		} else {
			s.strsMapped = s.mapped
		}
	}
	if err == nil {
		s.order = order
	}
	if err == nil {
		s.setPointerSize(ptrSize)
	}
	return s, err
}

// vacateFn returns Close's work for s, which reads d in place: d's
// memory is given back at once, but its range reads as zeros until the
// collector finds s unreachable, and only then is unmapped, so that a
// goroutine still reading s when it is closed reads zeros rather than
// faulting (see Close).
func vacateFn(s *Spec, d *input.Data) func() error {
	return func() error {
		unmap, err := d.Vacate()
		runtime.AddCleanup(s, func(unmap func() error) { unmap() }, unmap)
		return err
	}
}

// hostOrder returns the byte order of raw BTF d, whether that is the
// opposite of the host's, and d in the host's order: d itself in the
// host's order, or with a header that does not parse (parse reports it),
// and otherwise d's data swapped in place in memory its holder may write
// (input.Data.Own). A file's mapping is made writable for that: the
// header's and the records' pages become the process's own, while the
// strings, which have no byte order, stay the file's pages, which evict
// can give back. Inflated or read input is swapped where it is. The Spec
// then reads the swapped data in place: it gives its records back as a
// reader that closes it reads them (discard), and Close frees them. A
// copy on the heap (Parse's) would stay beside the work to the end. On
// an error d is still to be released.
func hostOrder(d *input.Data) (binary.ByteOrder, bool, *input.Data, error) {
	order, swapped, hdr, err := parseHeader(d.Bytes(), false)
	if err != nil || !swapped {
		return order, false, d, nil
	}
	own, err := d.Own()
	if err != nil {
		return nil, false, d, pkgerr.Errorf("btf: %w", err)
	}
	wire.SwapInPlace(own.Bytes(), hdr)
	return order, true, own, nil
}

// parseDistilled parses split BTF data on its distilled base distBase (a
// module's .BTF and .BTF.base), and relocates it onto o.Base if set, as
// libbpf's btf__parse_split does.
func (o *Options) parseDistilled(data, distBase []byte) (*Spec, error) {
	dist, err := Parse(distBase, Options{})
	if err != nil {
		return nil, pkgerr.Errorf("btf: .BTF.base: %w", err)
	}
	split, err := parseSplit(context.Background(), data, dist, noSplit, false)
	if err != nil {
		return nil, pkgerr.Errorf("btf: .BTF on its .BTF.base: %w", err)
	}
	if o.Base == nil {
		return split, nil
	}
	return Relocate(split, o.Base)
}

// rawAny returns the raw BTF in d: d itself for raw BTF, the .BTF section
// of an ELF file, what compressed data inflates to (and then its .BTF
// section); a copy of an ELF file's .BTF.base section, if it has one; and
// the pointer size of an ELF file's class, 0 for raw BTF (libbpf's
// btf_parse_elf sets it so). d is taken over: released, or returned
// (sliced).
func (o *Options) rawAny(ctx context.Context, d *input.Data) (*input.Data, []byte, uint32, error) {
	data := d.Bytes()
	if f := input.Detect(data); f != input.None {
		plain, err := input.Inflate(ctx, f, data, input.Options{Limit: o.MaxSize, Check: checkInner, CheckLen: magicLen})
		d.Release()
		if err != nil {
			return nil, nil, 0, pkgerr.Errorf("btf: %w", err)
		}
		return o.rawAny(ctx, plain)
	}
	if input.IsTar(data[:min(len(data), input.TarHeadLen)]) {
		return o.untar(ctx, d)
	}
	if !bytes.HasPrefix(data, magicELF) {
		return d, nil, 0, nil
	}
	sec, distBase, ptrSize, err := o.elfBTF(ctx, d)
	if err != nil {
		d.Release()
		return nil, nil, 0, err
	}
	if sec != d {
		d.Release()
	}
	return sec, distBase, ptrSize, nil
}

// untar returns the raw BTF of the one file of the tar archive in d (raw
// BTF, or an ELF file whose .BTF section is used, and its .BTF.base), as
// BTFHub archives each kernel's. d is taken over.
func (o *Options) untar(ctx context.Context, d *input.Data) (*input.Data, []byte, uint32, error) {
	f, name, err := input.Untar(d)
	if err != nil {
		d.Release()
		return nil, nil, 0, pkgerr.Errorf("btf: %w", err)
	}
	head := f.Bytes()[:min(len(f.Bytes()), magicLen)]
	if input.Detect(head) != input.None || input.IsTar(head) {
		f.Release()
		return nil, nil, 0, fmt.Errorf("btf: tar archive member %s: an archive or compressed data inside a tar archive is not supported", name)
	}
	if err := checkInner(head); err != nil {
		f.Release()
		return nil, nil, 0, pkgerr.Errorf("btf: tar archive member %s: %w", name, err)
	}
	return o.rawAny(ctx, f)
}

// elfBTF returns the .BTF section of the ELF file in d: d itself, sliced to
// the section, when it is stored uncompressed in a mapped file or in
// memory of d's own (the rest of which is released); a copy when it is
// stored uncompressed on the heap (so that the rest can be freed); the
// inflated data when it is compressed. It also returns a copy of the
// .BTF.base section, if there is one. The section header table is read in
// place (internal/elfscan): memory does not grow with the section count.
func (o *Options) elfBTF(ctx context.Context, d *input.Data) (*input.Data, []byte, uint32, error) {
	f, err := elfscan.Parse(d.Bytes())
	if err != nil {
		return nil, nil, 0, &FormatError{Section: "elf", Offset: -1, Err: err}
	}
	sec, ok := f.Lookup(".BTF")
	if !ok {
		return nil, nil, 0, ErrNoBTF
	}
	if sec.NoBits() {
		return nil, nil, 0, fmt.Errorf("%w: the section has no data (SHT_NOBITS)", ErrNoBTF)
	}
	var distBase []byte
	if bs, ok := f.Lookup(".BTF.base"); ok && !bs.NoBits() {
		// A borrowed d: the section is copied, d keeps its memory.
		b, err := o.elfSection(ctx, f, input.Borrow(d.Bytes()), bs, ".BTF.base")
		if err != nil {
			return nil, nil, 0, err
		}
		distBase = bytes.Clone(b.Bytes())
		b.Release()
	}
	s, err := o.elfSection(ctx, f, d, sec, ".BTF")
	ptrSize := uint32(4)
	if f.Is64 {
		ptrSize = 8
	}
	return s, distBase, ptrSize, err
}

// elfSection returns the data of section sec, named name, of f, the ELF
// file in d, as elfBTF returns .BTF's.
func (o *Options) elfSection(ctx context.Context, f *elfscan.File, d *input.Data, sec elfscan.Section, name string) (*input.Data, error) {
	raw, err := f.Data(sec)
	if err != nil {
		return nil, &FormatError{Section: "elf", Offset: int64(sec.Offset), Msg: name + " section lies outside the file"}
	}
	if !sec.Compressed() {
		return input.Section(d, raw), nil
	}
	plain, err := input.InflateELFSection(ctx, raw, f.Is64, f.ByteOrder,
		input.Options{Limit: o.MaxSize, What: "compressed " + name + " section", Check: checkBTF, CheckLen: 2})
	if err != nil {
		return nil, &FormatError{Section: "elf", Offset: int64(sec.Offset), Msg: "reading compressed " + name, Err: err}
	}
	return plain, nil
}

// checkBTF accepts data that starts with the BTF magic number.
func checkBTF(head []byte) error {
	if len(head) >= 2 && (binary.LittleEndian.Uint16(head) == wire.Magic || binary.BigEndian.Uint16(head) == wire.Magic) {
		return nil
	}
	return &FormatError{Section: "header", Offset: 0, Err: wire.ErrNotBTF}
}
