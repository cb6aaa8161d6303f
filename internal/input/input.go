// Package input reads kmeta's inputs whole into memory under one size
// limit: standard input and pipes, files that cannot be mapped, and what
// compressed data (.gz, .xz, .zst files, compressed ELF sections) inflates
// to.
//
// Every reader here stops at the limit, refuses data that claims to be
// bigger than the limit (a zstd frame's content size, an xz index, an ELF
// compression header) before reading it, shows the first bytes that come
// out to the caller's check (its magic numbers) before reading on, and
// keeps peak memory close to the size of the data: the data grows in place
// in an anonymous mapping (an mmap.Region, never two copies), and a
// decompressor's own window is bounded by an eighth of the limit.
//
// # Concurrency
//
// Functions here are safe for concurrent use. A Data is not: release it
// once, when no slice of it is in use.
//
// # Security
//
// Sizes from the input (claims, dictionary sizes, window sizes) are checked
// against the limit before anything is allocated for them, so a small
// malicious file cannot make a reader allocate more than 1.3 times the
// limit: the data, up to the limit, and a window or dictionary of up to an
// eighth of it, of which the xz decoder may hold two, as it makes one for
// each block of the stream (the README gives kmeta's measured peaks).
package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// DefaultLimit is the size limit used when Options.Limit is zero: 1 GiB,
// above any kernel's BTF or a vmlinux ELF file (a Debian vmlinux with
// debug information is about 600 MB).
const DefaultLimit int64 = 1 << 30

// ErrTooLarge matches (errors.Is) every TooLargeError.
var ErrTooLarge = errors.New("input too large")

// TooLargeError reports input over the limit.
type TooLargeError struct {
	What  string // the input: "standard input", "decompressed data", ...
	Limit int64
	Claim int64 // the size the input claimed to have; 0 if its data ran over
	Size  int64 // the size the input has (a file's); 0 if not known
}

// Error says what was too large, and by which measure.
func (e *TooLargeError) Error() string {
	if e.Size > 0 {
		// A file's size is not a claim ("PATH claims 112 bytes").
		return fmt.Sprintf("%s is %s, more than the limit of %s", e.What, FormatSize(e.Size), FormatSize(e.Limit))
	}
	if e.Claim > 0 {
		return fmt.Sprintf("%s claims %s, more than the limit of %s", e.What, FormatSize(e.Claim), FormatSize(e.Limit))
	}
	return fmt.Sprintf("%s is larger than the limit of %s", e.What, FormatSize(e.Limit))
}

// Is makes errors.Is(err, ErrTooLarge) true, and errors.Is(err, E) for
// every E passed to RegisterTooLarge.
func (e *TooLargeError) Is(target error) bool {
	return target == ErrTooLarge || slices.Contains(tooLarge, target)
}

// tooLarge holds the public packages' sentinels for a TooLargeError
// (btf.ErrTooLarge).
var tooLarge []error

// RegisterTooLarge makes errors.Is(err, target) true for every
// TooLargeError err, so that a public package gives its users a sentinel of
// its own without naming this internal one in its API. It may be called
// only from package initialization, which runs before any goroutine reads
// the list.
func RegisterTooLarge(target error) { tooLarge = append(tooLarge, target) }

// MemoryError reports that memory ran out while reading input that was
// still below the limit: under a memory rlimit (prlimit --data, a cgroup)
// lower than the limit, the data's mapping could not grow.
type MemoryError struct {
	What  string // the input
	Size  int64  // the size the data was to grow to
	Limit int64  // the input limit in force
	Err   error  // the failed mmap or mremap
}

// Error names the input, the size it reached and the limit.
func (e *MemoryError) Error() string {
	return fmt.Sprintf("%s: out of memory holding %s of it (the input limit is %s): %v",
		e.What, FormatSize(e.Size), FormatSize(e.Limit), e.Err)
}

// Unwrap returns the failed system call's error (ENOMEM).
func (e *MemoryError) Unwrap() error { return e.Err }

// Options say how much to read and how to check it.
type Options struct {
	// Limit is the largest size accepted; 0 means DefaultLimit. It bounds
	// the data read, and callers that decompress it bound what it
	// inflates to by the same limit: a compressed file larger than the
	// limit is refused even where it inflates to less (its bytes are held
	// too while it inflates).
	Limit int64
	// What names the input in errors.
	What string
	// Claim is the size the input says it has (0 if unknown). A claim over
	// the limit is an error before anything is read; otherwise it sizes
	// the first allocation.
	Claim int64
	// Check, if not nil, is called once with the first CheckLen bytes (or
	// all of them, if fewer), before more is read. Its error ends the read.
	Check    func(head []byte) error
	CheckLen int
}

func (o *Options) limit() int64 {
	if o.Limit <= 0 {
		return DefaultLimit
	}
	return o.Limit
}

func (o *Options) what() string {
	if o.What == "" {
		return "input"
	}
	return o.What
}

// Data is input in memory: read, or mapped (see File). Release frees it.
type Data struct {
	b      []byte
	mem    *mmap.Region // the memory b is in, unless on the heap or borrowed
	Mapped bool         // the data is a file's mapping, not a copy in memory
}

// Bytes returns the data; it is invalid after Release.
func (d *Data) Bytes() []byte { return d.b }

// Vacate is Release for data that other goroutines may still be
// reading (mmap.Region.Vacate): the memory is given back at once, but
// its range reads as zeros until unmap runs.
func (d *Data) Vacate() (unmap func() error, err error) {
	d.b = nil
	mem := d.mem
	d.mem = nil
	return mem.Vacate()
}

// Release frees the memory. It is safe to call more than once.
func (d *Data) Release() error {
	d.b = nil
	mem := d.mem
	d.mem = nil
	return mem.Free()
}

// chunk bounds a single Read, so that a cancelled context is noticed
// within one chunk.
const chunk = 1 << 20

// ReadAll reads r to its end, at most o.Limit bytes, stopping early when
// ctx is done (ctx may be nil). See Options for the checks it makes.
func ReadAll(ctx context.Context, r io.Reader, o Options) (*Data, error) {
	limit := o.limit()
	if o.Claim > limit {
		return nil, &TooLargeError{What: o.what(), Limit: limit, Claim: o.Claim}
	}
	first := int64(chunk)
	if o.Claim > 0 {
		first = o.Claim + 1 // +1: see EOF without growing
	}
	mem, err := mmap.New(int(min(first, limit+1)))
	if err != nil {
		return nil, &MemoryError{What: o.what(), Size: min(first, limit+1), Limit: limit, Err: err}
	}
	d := &Data{mem: mem}
	if err := d.fill(ctx, r, &o, limit); err != nil {
		d.Release()
		return nil, err
	}
	return d, nil
}

func (d *Data) fill(ctx context.Context, r io.Reader, o *Options, limit int64) error {
	buf, n, checked := d.mem.Bytes(), 0, o.Check == nil
	for {
		if ctx != nil && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if n == len(buf) {
			if int64(n) > limit {
				return &TooLargeError{What: o.what(), Limit: limit}
			}
			var err error
			size := min(2*int64(n), limit+1)
			if buf, err = d.mem.Grow(int(size)); err != nil {
				return &MemoryError{What: o.what(), Size: size, Limit: limit, Err: err}
			}
		}
		m, err := r.Read(buf[n:min(len(buf), n+chunk)])
		n += m
		if err != nil && err != io.EOF {
			// Before the check too: a stream that fails before its
			// first CheckLen bytes is not data of the wrong kind (it
			// said "bad magic : ..." of the nothing it had read).
			return err
		}
		if !checked && (n >= o.CheckLen || err != nil) {
			checked = true
			if cerr := o.Check(buf[:min(n, o.CheckLen)]); cerr != nil {
				return cerr
			}
		}
		if err == io.EOF {
			if int64(n) > limit {
				return &TooLargeError{What: o.what(), Limit: limit}
			}
			d.b = buf[:n:n]
			return nil
		}
	}
}

// FormatSize writes a byte count the way ParseSize reads it: "1 GiB",
// "512 MiB", or a plain number of bytes.
func FormatSize(n int64) string {
	for _, u := range units {
		if n >= u.n && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

var units = []struct {
	name string
	n    int64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// ParseSize reads a size: a number of bytes, optionally followed by K, M,
// G or T (powers of 1024, also spelled KiB, KB, ...; any case).
func ParseSize(s string) (int64, error) {
	t, mult := strings.ToUpper(strings.TrimSpace(s)), int64(1)
	for _, u := range units {
		name := strings.ToUpper(u.name)
		for _, suf := range [...]string{name, name[:1] + "B", name[:1]} {
			if cut, ok := strings.CutSuffix(t, suf); ok {
				t, mult = strings.TrimSpace(cut), u.n
				break
			}
		}
		if mult != 1 {
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q: want a positive number of bytes, optionally with K, M, G or T", s)
	}
	return n * mult, nil
}

// Slice returns a Data holding b, a slice of d's data, that takes over
// d's memory: releasing it frees all of d, and d becomes empty.
func Slice(d *Data, b []byte) *Data {
	s := *d
	s.b = b
	*d = Data{}
	return &s
}

// Section returns a Data holding b, a slice of d's data, and releases
// the rest of d: where d is anonymous memory of its own (Owned), b stays
// where it is, the pages wholly outside it go back to the system, and
// releasing the result frees the whole of d's memory; a mapped file is
// sliced likewise (Slice), its pages left to the page cache; data on the
// heap or borrowed is copied (Copy), so that the rest can be freed.
func Section(d *Data, b []byte) *Data {
	switch {
	case d.Owned():
		lo := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(d.b))))
		mmap.Release(d.b[:lo])
		mmap.Release(d.b[lo+len(b):])
		return Slice(d, b)
	case d.Mapped:
		return Slice(d, b)
	}
	return Copy(b)
}

// Owned reports whether the data is anonymous memory of its own (read
// or inflated into an mmap.Region), not a file's mapping, the heap or a
// caller's memory: its holder may give parts of it back to the system
// (mmap.Release) once they will not be read again.
func (d *Data) Owned() bool { return d.mem != nil && !d.Mapped }

// Own returns the data in memory that its holder may change: d itself
// if it is anonymous memory of its own (Owned), or a file's mapping made
// writable (mmap.Region.Writable: a page written becomes the process's
// own, and the file's pages not written stay the file's, which
// mmap.Release can give back), or else (the heap, a caller's memory) a
// copy in a new anonymous mapping, after which d is released. On an
// error d is left as it is. For a reader that rewrites the data in place
// (byte-swapped BTF): a copy on the heap would stay beside its work to
// the end.
func (d *Data) Own() (*Data, error) {
	if d.Owned() || d.Mapped && d.mem.Writable() == nil {
		return d, nil
	}
	mem, err := mmap.New(len(d.b))
	if err != nil {
		return nil, fmt.Errorf("copying %s of input: %w", FormatSize(int64(len(d.b))), err)
	}
	out := mem.Bytes()[:len(d.b)]
	copy(out, d.b)
	d.Release()
	return &Data{b: out, mem: mem}, nil
}

// Borrow returns a Data holding b itself, which the caller keeps unchanged
// while the Data is used; Release only drops the reference.
func Borrow(b []byte) *Data { return &Data{b: b} }

// Copy returns a Data holding a copy of b on the heap.
func Copy(b []byte) *Data { return &Data{b: bytes.Clone(b)} }
