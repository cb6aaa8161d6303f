package kimage

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// A Debian package is an ar archive (debian-binary, control.tar.*,
// data.tar.*); the files it installs are in data.tar, compressed with xz,
// zstd or gzip (deb(5)). The ar container is parsed here; the rest is
// archive/tar and internal/input's decompressors.

const (
	arMagic     = "!<arch>\n"
	arHeaderLen = 60
)

// IsDeb reports whether data starts like a Debian binary package.
func IsDeb(data []byte) bool {
	return bytes.HasPrefix(data, []byte(arMagic)) &&
		bytes.HasPrefix(data[len(arMagic):], []byte("debian-binary"))
}

// arMember is one member of an ar archive.
type arMember struct {
	name string
	data []byte
}

// arMembers lists the members of the ar archive in data, in place.
func arMembers(data []byte) ([]arMember, error) {
	if !bytes.HasPrefix(data, []byte(arMagic)) {
		return nil, errors.New("kimage: not an ar archive")
	}
	var out []arMember
	for off := len(arMagic); off < len(data); {
		if len(data)-off < arHeaderLen {
			return nil, fmt.Errorf("kimage: ar member header at %d truncated", off)
		}
		h := data[off : off+arHeaderLen]
		if string(h[58:60]) != "`\n" {
			return nil, fmt.Errorf("kimage: ar member header at %d: bad magic", off)
		}
		size, err := strconv.ParseUint(strings.TrimSpace(string(h[48:58])), 10, 63)
		if err != nil {
			return nil, pkgerr.Errorf("kimage: ar member header at %d: size: %w", off, err)
		}
		off += arHeaderLen
		if size > uint64(len(data)-off) {
			return nil, fmt.Errorf("kimage: ar member at %d: %d bytes, past the end of the archive", off, size)
		}
		name := strings.TrimSuffix(strings.TrimSpace(string(h[:16])), "/")
		out = append(out, arMember{name: name, data: data[off : off+int(size)]})
		off += int(size) + int(size&1)
	}
	return out, nil
}

// Walk calls fn for each regular file in a Debian package's data.tar (or
// an RPM package's payload), with
// its path (without "./") and a reader of its contents. It stops at fn's
// first error; fn may return ErrStop to end the walk without an error.
// opts.MaxSize bounds what the data.tar (or payload) decompressor keeps
// for itself; fn bounds what it reads.
func Walk(ctx context.Context, deb []byte, opts Options, fn func(name string, size int64, r io.Reader) error) error {
	return walk(ctx, deb, opts.MaxSize, false, fn)
}

// walk is Walk under maxSize. With once, deb is read this once and never
// again (a mapping or memory its caller frees after): the pages of the
// compressed data.tar or payload are given back as they are inflated.
func walk(ctx context.Context, deb []byte, maxSize int64, once bool, fn func(name string, size int64, r io.Reader) error) error {
	if IsRPM(deb) {
		return walkRPM(ctx, deb, maxSize, once, fn)
	}
	members, err := arMembers(deb)
	if err != nil {
		return pkgerr.Errorf("kimage: package: %w", err)
	}
	for _, m := range members {
		if !strings.HasPrefix(m.name, "data.tar") {
			continue
		}
		r, err := archiveReader(m.data, maxSize, once)
		if err != nil {
			return pkgerr.Errorf("kimage: package %s: %w", m.name, err)
		}
		return walkTar(ctx, tar.NewReader(r), fn)
	}
	return errors.New("kimage: package has no data.tar member")
}

// archiveReader returns a reader of the archive in data (a data.tar or an
// RPM payload), inflated if it is compressed, under
// input.DecompressArchive's bound on the whole; with once, the pages of
// data are given back behind the reader.
func archiveReader(data []byte, maxSize int64, once bool) (io.Reader, error) {
	f := input.Detect(data)
	if f == input.None {
		return bytes.NewReader(data), nil
	}
	return input.DecompressArchive(f, data, maxSize, once)
}

// ErrStop ends Walk early without an error.
var ErrStop = errors.New("kimage: stop walking")

func walkTar(ctx context.Context, tr *tar.Reader, fn func(string, int64, io.Reader) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return packageError("", err)
		}
		if err := checkPath(h.Name); err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
		if err := fn(name, h.Size, &entryReader{r: tr, name: name, size: h.Size}); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
}

// entryReader reads a file of a package's archive for Walk's fn: its
// errors (the archive ends before the file does, the data does not
// inflate, the limit of what it inflates to) are said as the package's,
// after the file's name, not as a bare "unexpected EOF".
type entryReader struct {
	r    io.Reader
	name string
	size int64
}

func (e *entryReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		err = packageError(fmt.Sprintf("%s (%d bytes)", e.name, e.size), err)
	}
	return n, err
}

// packageError says err, met reading a package's archive (its data.tar or
// RPM payload) at what (a file, or "" between files), as the package's.
// An archive that ends early (a cut package, or a corrupt one) is said to
// be truncated or corrupt, as a kernel image's cut payload is.
func packageError(what string, err error) error {
	if what != "" {
		what += ": "
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return pkgerr.Errorf("kimage: the package payload is truncated or corrupt: %s%w", what, err)
	}
	return pkgerr.Errorf("kimage: package payload: %s%w", what, err)
}

// IsVmlinuz reports whether a package path is a kernel image:
// boot/vmlinuz-VERSION, or lib/modules/VERSION/vmlinuz as Fedora's and
// RHEL's kernel-core RPMs install it.
func IsVmlinuz(name string) bool {
	return strings.HasPrefix(name, "boot/vmlinuz-") || strings.HasPrefix(name, "boot/vmlinux-") || isModulesVmlinuz(name)
}

// IsModule reports whether a package path is a kernel module, compressed
// or not: lib/modules/VERSION/**.ko, .ko.xz, .ko.zst, .ko.gz.
func IsModule(name string) bool {
	if !strings.HasPrefix(name, "lib/modules/") && !strings.HasPrefix(name, "usr/lib/modules/") {
		return false
	}
	for _, ext := range []string{".ko", ".ko.xz", ".ko.zst", ".ko.gz"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// ModuleName is a module's name from its path: "kvm" for
// "lib/modules/6.1.0/kernel/arch/x86/kvm/kvm.ko.xz".
func ModuleName(p string) string {
	base := path.Base(p)
	return base[:strings.Index(base, ".ko")]
}

// Vmlinuz returns the kernel image a Debian package installs
// (boot/vmlinuz-*), read under opts.MaxSize, and its path.
func Vmlinuz(ctx context.Context, deb []byte, opts Options) ([]byte, string, error) {
	d, name, _, err := debKernel(ctx, deb, opts.MaxSize, false)
	if err != nil {
		return nil, "", err
	}
	defer d.Release()
	return bytes.Clone(d.Bytes()), name, nil
}

// IsSystemMap reports whether a package path is a kernel's System.map
// (boot/System.map-VERSION, lib/modules/VERSION/System.map).
func IsSystemMap(name string) bool { return strings.HasPrefix(path.Base(name), "System.map") }

// debKernel returns the kernel image a Debian package installs (the
// caller releases it), its path, and what its System.map says of the BTF
// (nil if the package has none or only Debian's placeholder). The walk
// stops once the image is found and it has left boot/, where System.map
// lies beside it. once is walk's.
func debKernel(ctx context.Context, deb []byte, maxSize int64, once bool) (image *input.Data, name string, sm *sysMap, err error) {
	err = walk(ctx, deb, maxSize, once, func(n string, size int64, r io.Reader) error {
		switch {
		case image != nil && path.Dir(n) != path.Dir(name):
			return ErrStop
		case IsSystemMap(n):
			m, err := readSysMap(ctx, n, size, r, maxSize)
			sm = m
			return err
		case !IsVmlinuz(n) || image != nil:
			return nil
		}
		d, err := input.ReadAll(ctx, r, input.Options{Limit: maxSize, What: n, Claim: size})
		if err != nil {
			return err
		}
		image, name = d, n
		return nil
	})
	if err != nil {
		if image != nil {
			image.Release()
		}
		return nil, "", nil, err
	}
	if image == nil {
		return nil, "", nil, errors.New("kimage: package has no boot/vmlinuz-* (or lib/modules/*/vmlinuz)")
	}
	return image, name, sm, nil
}

// readSysMap reads and parses the System.map at package path name.
func readSysMap(ctx context.Context, name string, size int64, r io.Reader, maxSize int64) (*sysMap, error) {
	d, err := input.ReadAll(ctx, r, input.Options{Limit: maxSize, What: name, Claim: size})
	if err != nil {
		return nil, err
	}
	defer d.Release()
	sm, err := parseSysMap(d.Bytes())
	if err != nil {
		return nil, pkgerr.Errorf("kimage: %s: %w", name, err)
	}
	return sm, nil
}
