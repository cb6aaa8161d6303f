package kimage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// An RPM package (rpm's lib/rpmlead.h, lib/header.c; the LSB's "Package
// File Format") is a 96-byte lead, a signature header padded to 8 bytes,
// the main header, and the payload: a cpio archive in the "new ASCII"
// format (070701, or 070702 with checksums), compressed with gzip, xz,
// zstd (or lzma, bzip2, which kmeta does not read). Nothing in the
// headers is needed to reach the files: the compressor is told by the
// payload's magic number.
//
// The reader is hand-written rather than github.com/sassoftware/go-rpmutils
// (v0.4.0): that library allocates what the headers and the cpio archive
// claim (a header's data size, a file name's size, and a buffer of a whole
// file's size to skip it), decodes zstd through cgo (DataDog/zstd) and xz
// with an unbounded dictionary, and would bring six modules into kmeta's
// graph; reading the payload takes the 150 lines below.

const (
	rpmLeadLen       = 96
	rpmHeaderIntro   = 16 // magic (8e ad e8 01), 4 reserved bytes, entries, data size
	rpmIndexEntryLen = 16
	// rpmMaxHeader bounds a header's index and data, as rpm does
	// (hdrchkData: 256 MiB).
	rpmMaxHeader = 256 << 20
)

var (
	rpmMagic       = []byte{0xed, 0xab, 0xee, 0xdb}
	rpmHeaderMagic = []byte{0x8e, 0xad, 0xe8, 0x01}
)

// IsRPM reports whether data starts like an RPM package: the lead's magic
// number, and a binary package's version 3 or 4 format.
func IsRPM(data []byte) bool {
	return len(data) >= 6 && bytes.HasPrefix(data, rpmMagic) && (data[4] == 3 || data[4] == 4)
}

// rpmPayload returns the payload of the RPM package in data: what follows
// the lead, the signature header and the main header.
func rpmPayload(data []byte) ([]byte, error) {
	if !IsRPM(data) || len(data) < rpmLeadLen {
		return nil, errors.New("kimage: not an RPM package")
	}
	off := rpmLeadLen
	for i, what := range []string{"signature header", "header"} {
		n, err := rpmHeaderLen(data, off)
		if err != nil {
			return nil, pkgerr.Errorf("kimage: RPM %s at byte %d: %w", what, off, err)
		}
		off += n
		if i == 0 {
			off += (8 - off%8) % 8 // the signature header is padded to 8 bytes
		}
	}
	if off > len(data) {
		return nil, fmt.Errorf("kimage: RPM package of %d bytes: its headers end at byte %d", len(data), off)
	}
	return data[off:], nil
}

// rpmHeaderLen returns the length of the header structure at data[off:]:
// its intro, index and data.
func rpmHeaderLen(data []byte, off int) (int, error) {
	if len(data)-off < rpmHeaderIntro {
		return 0, errors.New("kimage: truncated")
	}
	h := data[off:]
	if !bytes.HasPrefix(h, rpmHeaderMagic) {
		return 0, fmt.Errorf("kimage: bad magic %x", h[:4])
	}
	entries := uint64(binary.BigEndian.Uint32(h[8:]))
	size := uint64(binary.BigEndian.Uint32(h[12:]))
	n := rpmHeaderIntro + entries*rpmIndexEntryLen + size
	if entries*rpmIndexEntryLen+size > rpmMaxHeader {
		return 0, fmt.Errorf("kimage: %d index entries and %d bytes of data, more than rpm accepts", entries, size)
	}
	if n > uint64(len(h)) {
		return 0, fmt.Errorf("kimage: %d bytes, past the end of the package", n)
	}
	return int(n), nil
}

// walkRPM calls fn for each regular file in the RPM package's payload, as
// Walk does for a Debian package.
func walkRPM(ctx context.Context, data []byte, maxSize int64, once bool, fn func(name string, size int64, r io.Reader) error) error {
	p, err := rpmPayload(data)
	if err != nil {
		return pkgerr.Errorf("kimage: package: %w", err)
	}
	r, err := archiveReader(p, maxSize, once)
	if err != nil {
		return pkgerr.Errorf("kimage: package payload: %w", err)
	}
	return walkCpio(ctx, r, fn)
}

const (
	cpioHeaderLen = 110
	cpioTrailer   = "TRAILER!!!"
	sIFMT         = 0o170000
	sIFREG        = 0o100000
)

// cpioEntry is one header of a "new ASCII" cpio archive.
type cpioEntry struct {
	mode, size, nameSize uint64
	nlink                uint64
	link                 cpioLinkKey
}

// cpioLinkKey names the file a hard link is to: its inode and device.
type cpioLinkKey struct{ ino, major, minor uint64 }

// readCpioHeader reads the header of the next entry of r and its name.
func readCpioHeader(r io.Reader) (cpioEntry, string, error) {
	var h [cpioHeaderLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return cpioEntry{}, "", pkgerr.Errorf("kimage: cpio header: %w", noEOF(err))
	}
	switch m := string(h[:6]); m {
	case "070701", "070702":
	case "07070X":
		return cpioEntry{}, "", errors.New("kimage: cpio archive with its file sizes in the RPM header (rpm's large-file payload) is not supported")
	default:
		return cpioEntry{}, "", fmt.Errorf("kimage: cpio header: bad magic %q, want 070701", m)
	}
	field := func(i int) (uint64, error) {
		s := string(h[6+8*i : 14+8*i])
		v, err := strconv.ParseUint(s, 16, 32)
		if err != nil {
			return 0, fmt.Errorf("kimage: cpio header: field %d: %q is not hexadecimal", i, s)
		}
		return v, nil
	}
	var e cpioEntry
	var err error
	for _, f := range []struct {
		i int
		v *uint64
	}{{0, &e.link.ino}, {1, &e.mode}, {4, &e.nlink}, {6, &e.size}, {7, &e.link.major}, {8, &e.link.minor}, {11, &e.nameSize}} {
		if *f.v, err = field(f.i); err != nil {
			return e, "", err
		}
	}
	if e.nameSize == 0 || e.nameSize > maxPathLen+1 {
		return e, "", fmt.Errorf("kimage: cpio header: a name of %d bytes", e.nameSize)
	}
	name := make([]byte, e.nameSize+pad4(cpioHeaderLen+e.nameSize))
	if _, err := io.ReadFull(r, name); err != nil {
		return e, "", pkgerr.Errorf("kimage: cpio name: %w", noEOF(err))
	}
	return e, string(bytes.TrimRight(name[:e.nameSize], "\x00")), nil
}

// pad4 is how many bytes pad n to a multiple of 4.
func pad4(n uint64) uint64 { return (4 - n%4) % 4 }

// maxPendingLinks bounds what walkCpio holds of the hard links that wait
// for their file's contents: each costs its name and linkCost bytes. A
// kernel package has a few dozen; 4 MiB hold 65,536 links of short names,
// or a thousand of the longest (4,096 bytes): 60,000 such links, held by
// count alone, took 406 MB.
const (
	maxPendingLinks = 4 << 20
	linkCost        = 64
)

// walkCpio calls fn for each regular file of the cpio archive r, with its
// path without a leading "./" or "/".
//
// rpm writes the contents of a set of hard links once, with the last link
// of the set in the archive; the others come first, of size 0 (rpm's
// lib/fsm.c, lib/cpio.c: a set is the files of one inode and device). So a
// link of size 0 whose link count is over 1 waits for the link that brings
// the contents, and then fn is called for each name of the set in archive
// order, with the contents, until one reads them (reading nothing passes
// them to the next name). Links whose contents never come are empty files,
// given to fn at the end of the archive.
func walkCpio(ctx context.Context, r io.Reader, fn func(string, int64, io.Reader) error) error {
	links := cpioLinks{sets: map[cpioLinkKey]*cpioLinkSet{}}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		e, name, err := readCpioHeader(r)
		if err != nil {
			return packageError("", err)
		}
		if name == cpioTrailer {
			if err := callEach(links.rest(), 0, &cpioBody{r: r}, fn); !errors.Is(err, ErrStop) {
				return err
			}
			return nil
		}
		body := &cpioBody{r: r, n: int64(e.size)}
		if e.mode&sIFMT == sIFREG {
			name = strings.TrimPrefix(path.Clean("/"+name), "/")
			names := []string{name}
			if e.nlink > 1 {
				if names, err = links.add(e, name); err != nil {
					return err
				}
			}
			if err := callEach(names, int64(e.size), body, fn); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
		}
		// What fn left of the file, and the padding after it.
		rest := body.n + int64(pad4(e.size))
		if _, err := io.CopyN(io.Discard, r, rest); err != nil {
			return packageError(fmt.Sprintf("%s (%d bytes)", name, e.size), noEOF(err))
		}
	}
}

// callEach calls fn for each name with body, a file of size bytes, until
// one reads from it.
func callEach(names []string, size int64, body *cpioBody, fn func(string, int64, io.Reader) error) error {
	for _, n := range names {
		if err := fn(n, size, &entryReader{r: body, name: n, size: size}); err != nil {
			return err
		}
		if body.n < size {
			return nil
		}
	}
	return nil
}

// cpioLinks are the hard links of a cpio archive that wait for their
// file's contents.
type cpioLinks struct {
	sets  map[cpioLinkKey]*cpioLinkSet
	size  int // bytes held: names and linkCost each
	order int // sets met
}

// cpioLinkSet is the names of one file met so far, and when the first was.
type cpioLinkSet struct {
	names []string
	first int
}

// add takes the hard link e, named name: a link of size 0 waits (add
// returns no name); one with contents returns the names of its set, the
// waiting ones first, its own last.
func (l *cpioLinks) add(e cpioEntry, name string) ([]string, error) {
	set := l.sets[e.link]
	if e.size > 0 {
		if set == nil {
			return []string{name}, nil
		}
		delete(l.sets, e.link)
		for _, n := range set.names {
			l.size -= len(n) + linkCost
		}
		return append(set.names, name), nil
	}
	if l.size+len(name)+linkCost > maxPendingLinks {
		return nil, fmt.Errorf("kimage: package payload: %s: hard links waiting for their file's contents take more than %d MiB", name, maxPendingLinks>>20)
	}
	if set == nil {
		set = &cpioLinkSet{first: l.order}
		l.sets[e.link] = set
		l.order++
	}
	set.names = append(set.names, name)
	l.size += len(name) + linkCost
	return nil, nil
}

// rest returns the names of the links whose contents never came, set by
// set in the order the archive met them.
func (l *cpioLinks) rest() []string {
	sets := slices.SortedFunc(maps.Values(l.sets), func(a, b *cpioLinkSet) int { return a.first - b.first })
	var names []string
	for _, s := range sets {
		names = append(names, s.names...)
	}
	return names
}

// cpioBody reads the n bytes of a file in a cpio archive: an archive
// that ends before them is an error (io.ErrUnexpectedEOF), not the end of
// a shorter file.
type cpioBody struct {
	r io.Reader
	n int64
}

func (b *cpioBody) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	m, err := b.r.Read(p)
	b.n -= int64(m)
	if err == io.EOF && b.n > 0 {
		err = io.ErrUnexpectedEOF
	}
	return m, err
}

// isModulesVmlinuz reports whether a package path is
// lib/modules/VERSION/vmlinuz (or under usr/).
func isModulesVmlinuz(name string) bool {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(name, "usr/"), "lib/modules/")
	if !ok {
		return false
	}
	version, file, ok := strings.Cut(rest, "/")
	return ok && version != "" && file == "vmlinuz"
}

// IsDebugVmlinux reports whether a package path is a kernel's vmlinux
// with its DWARF, as a debug package installs it:
// usr/lib/debug/lib/modules/VERSION/vmlinux (Fedora's and RHEL's
// kernel-debuginfo, Debian's -dbg) or usr/lib/debug/boot/vmlinux-VERSION
// (Debian's -dbg).
func IsDebugVmlinux(name string) bool {
	rest, ok := strings.CutPrefix(name, "usr/lib/debug/")
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, "boot/vmlinux-") {
		return true
	}
	rest, ok = strings.CutPrefix(rest, "lib/modules/")
	version, file, _ := strings.Cut(rest, "/")
	return ok && version != "" && file == "vmlinux"
}

// isPackage reports whether data starts like a Debian or an RPM package.
func isPackage(data []byte) bool { return IsDeb(data) || IsRPM(data) }
