package kimage

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// headLen is how much of an input tells a bzImage or a Debian package: the
// x86 setup header ends before it.
const headLen = 0x250

// OpenBTF reads the BTF of the input at path in any form kmeta reads: what
// btf.Open reads (raw BTF, an ELF file such as a vmlinux, a .ko or a BPF
// object, also compressed with gzip, xz or zstd), a kernel image
// (/boot/vmlinuz-*: see IsImage; an Image.gz too), or a Debian kernel
// package (linux-image-*.deb), whose kernel's BTF it reads. A kernel that
// is not ELF holds exactly one valid BTF, found by its magic number, or
// reading fails (errors.Is btf.ErrNoBTF if it holds none). opts are btf.Open's: opts.MaxSize also bounds the
// image or package and what it inflates to. ctx stops the reading.
//
// A kernel image is recognized in a regular file only; a FIFO or a device
// is read as btf.Open reads it (see ReadBTF for a stream that may hold an
// image).
func OpenBTF(ctx context.Context, path string, opts btf.Options) (*btf.Spec, error) {
	if !isImageFile(path) {
		s, err := btf.Open(ctx, path, opts)
		if err == nil {
			return s, nil
		}
		if !isCompressedImageFile(ctx, path, opts.MaxSize) {
			return nil, pkgerr.Errorf("kimage: %w", err)
		}
	}
	d, err := input.File(ctx, path, input.Options{Limit: opts.MaxSize})
	if err != nil {
		return nil, pkgerr.Errorf("kimage: %w", err)
	}
	defer d.Release()
	s, err := kernelBTF(ctx, d.Bytes(), opts)
	if err != nil {
		return nil, pkgerr.Errorf("kimage: %s: %w", path, err)
	}
	return s, nil
}

// ReadBTF is OpenBTF for a stream: r may hold anything OpenBTF reads. A
// kernel image or package, and compressed data, is read whole into memory
// (bounded by opts.MaxSize), then its kernel is inflated.
func ReadBTF(ctx context.Context, r io.Reader, opts btf.Options) (*btf.Spec, error) {
	br := bufio.NewReaderSize(r, headLen)
	head, _ := br.Peek(headLen) // a short input: what there is
	if !IsImage(head) && !isPackage(head) && Detect(head) == Unknown {
		s, err := btf.Read(ctx, br, opts)
		if err != nil {
			return nil, pkgerr.Errorf("kimage: %w", err)
		}
		return s, nil
	}
	d, err := input.ReadAll(ctx, br, input.Options{Limit: opts.MaxSize})
	if err != nil {
		return nil, pkgerr.Errorf("kimage: %w", err)
	}
	defer d.Release()
	if !IsImage(head) && !isPackage(head) && !isCompressedImage(d.Bytes()) {
		s, err := btf.Read(ctx, bytes.NewReader(d.Bytes()), opts)
		if err != nil {
			return nil, pkgerr.Errorf("kimage: %w", err)
		}
		return s, nil
	}
	return kernelBTF(ctx, d.Bytes(), opts)
}

// isImageFile reports whether path is a regular file that starts as a
// kernel image (IsImage) or a Debian package.
func isImageFile(path string) bool {
	head, ok := fileHead(path)
	return ok && (IsImage(head) || isPackage(head))
}

// isCompressedImageFile reports whether path is a regular file of
// compressed data (Detect) that inflates to an arm64 or riscv64 Image
// (isCompressedImage), read under the caller's limit and ctx: a file
// over the default limit that the caller's admits is still recognized. It
// is asked only once btf.Open has failed, so that a compressed ELF file
// or BTF costs nothing more.
func isCompressedImageFile(ctx context.Context, path string, limit int64) bool {
	if head, ok := fileHead(path); !ok || Detect(head) == Unknown {
		return false
	}
	d, err := input.File(ctx, path, input.Options{Limit: limit})
	if err != nil {
		return false
	}
	defer d.Release()
	return isCompressedImage(d.Bytes())
}

// fileHead returns the first headLen bytes of path (fewer if it is
// shorter), and false if it is not a regular file.
func fileHead(path string) ([]byte, bool) {
	f, fi, err := input.OpenFile(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, false
	}
	head := make([]byte, headLen)
	n, _ := io.ReadFull(f, head)
	return head[:n], true
}

// isCompressedImage reports whether data is compressed (Detect) and
// inflates to an arm64 or riscv64 Image, as the kernel's Image.gz,
// Image.zst and the like are; compressed ELF and BTF are btf's.
func isCompressedImage(data []byte) bool {
	f := Detect(data)
	if f == Unknown {
		return false
	}
	body, _ := splitClaim(data, f)
	r, err := newDecompressor(body, f, input.DefaultLimit)
	if err != nil {
		return false
	}
	head := make([]byte, imageHeadLen)
	if _, err := io.ReadFull(r, head); err != nil {
		return false
	}
	return isArm64Image(head) || isRiscvImage(head)
}

// kernelBTF reads the BTF of the kernel in data, a kernel image or a
// Debian package. A bzImage's kernel is inflated as a stream into
// btf.Read, which keeps only its .BTF section; the others' BTF is found
// in the kernel (imageBTF) and parsed. data is read once and not again:
// the pages of a package's data.tar are given back as it is inflated.
func kernelBTF(ctx context.Context, data []byte, opts btf.Options) (*btf.Spec, error) {
	if !isPackage(data) {
		return imageSpec(ctx, data, nil, opts)
	}
	image, name, sm, err := debKernel(ctx, data, opts.MaxSize, true)
	if err != nil {
		return nil, err
	}
	defer image.Release()
	s, err := imageSpec(ctx, image.Bytes(), sm, opts)
	if err != nil {
		return nil, pkgerr.Errorf("kimage: %s: %w", name, err)
	}
	return s, nil
}

// imageSpec reads the BTF of the kernel in image.
func imageSpec(ctx context.Context, image []byte, sm *sysMap, opts btf.Options) (*btf.Spec, error) {
	if IsBzImage(image) {
		r, _, err := imageKernel(ctx, image, opts.MaxSize)
		if err != nil {
			return nil, err
		}
		s, err := btf.Read(ctx, r, opts)
		return s, asPayloadError(err)
	}
	raw, err := imageBTF(ctx, image, sm, opts.MaxSize)
	if err != nil {
		return nil, err
	}
	return btf.Parse(raw, opts)
}

// Package is the BTF a Debian kernel package ships: its kernel's and each
// of its modules', as raw BTF, the files the installed kernel would show
// in /sys/kernel/btf. kernel.Options.Package reads them as that kernel's
// BTF (Find across the modules, a Cache); Open parses one.
//
// A Package holds the BTF only (Debian 6.1's 1,121 cloud modules have 8.6
// MB of it), not the package's code. It is immutable and safe for
// concurrent use.
type Package struct {
	name  string            // the package's path, for errors
	files map[string][]byte // "vmlinux" and module names -> raw BTF
	dist  map[string][]byte // modules on a distilled base -> their .BTF.base
	errs  map[string]error  // modules whose BTF could not be read
	// errText holds each distinct error of errs once: a package of many
	// broken modules keeps one copy of their message, not one each.
	errText map[string]error
	names   []string // module names, sorted (with BTF, or failed)
}

// ErrNoModule is wrapped by Package.File and Package.Open for a name that
// is neither "vmlinux" nor a module of the package with BTF.
var ErrNoModule = errors.New("kimage: no such module with BTF in the package")

// OpenPackage reads the Debian kernel package at path: the BTF of its
// kernel image (boot/vmlinuz-*) and of every module it installs
// (lib/modules/**.ko, also .ko.xz, .ko.zst, .ko.gz), in one pass over the
// package. opts.MaxSize bounds the package, each file in it, and what each
// inflates to. Modules without a .BTF section are
// left out; a module whose BTF cannot be read is listed, and File and Open
// return its error. The package must hold a kernel image.
func OpenPackage(ctx context.Context, path string, opts Options) (*Package, error) {
	maxSize := opts.MaxSize
	check := func(head []byte) error {
		if err := checkDeb(head); err != nil {
			return pkgerr.Errorf("kimage: %s: %w", path, err)
		}
		return nil
	}
	d, err := input.File(ctx, path, input.Options{Limit: maxSize, What: path, Check: check, CheckLen: debHeadLen})
	if err != nil {
		return nil, pkgerr.Errorf("kimage: %w", err)
	}
	defer d.Release()
	p, err := readPackage(ctx, d.Bytes(), maxSize)
	if err != nil {
		return nil, pkgerr.Errorf("kimage: %s: %w", path, err)
	}
	p.name = path
	return p, nil
}

// ReadPackage is OpenPackage for a package read from r, whole, into memory.
func ReadPackage(ctx context.Context, r io.Reader, opts Options) (*Package, error) {
	maxSize := opts.MaxSize
	d, err := input.ReadAll(ctx, r, input.Options{Limit: maxSize, What: "package", Check: checkDeb, CheckLen: debHeadLen})
	if err != nil {
		return nil, pkgerr.Errorf("kimage: %w", err)
	}
	defer d.Release()
	p, err := readPackage(ctx, d.Bytes(), maxSize)
	if err != nil {
		return nil, err
	}
	p.name = "package"
	return p, nil
}

// debHeadLen is how much of a Debian package checkDeb looks at: the ar
// magic and the name of its first member.
const debHeadLen = len(arMagic) + len("debian-binary")

// checkDeb refuses, before the rest is read, input that does not start as
// a Debian package.
func checkDeb(head []byte) error {
	if IsDeb(head) || IsRPM(head) {
		return nil
	}
	return fmt.Errorf("kimage: not a Debian or RPM package: it starts with %x, not with an ar archive's \"!<arch>\\ndebian-binary\" or an RPM lead's edabeedb", head)
}

// readPackage reads the package in deb, which it reads once and not
// again (see walk's once).
func readPackage(ctx context.Context, deb []byte, maxSize int64) (*Package, error) {
	if !IsDeb(deb) && !IsRPM(deb) {
		return nil, errors.New("kimage: not a Debian or RPM package")
	}
	p := &Package{files: map[string][]byte{}, dist: map[string][]byte{}, errs: map[string]error{}, errText: map[string]error{}}
	k := &pkgKernel{ctx: ctx, maxSize: maxSize}
	var mods moduleCount
	err := walk(ctx, deb, maxSize, true, func(name string, size int64, r io.Reader) error {
		if err := k.passed(name); err != nil {
			return err
		}
		if IsSystemMap(name) {
			return k.addSysMap(name, size, r)
		}
		isModule := IsModule(name)
		if !isModule {
			if IsVmlinuz(name) {
				return k.addImage(name, size, r)
			}
			return nil
		}
		if err := mods.add(name); err != nil {
			return err
		}
		if _, dup := p.files[ModuleName(name)]; dup || p.errs[ModuleName(name)] != nil {
			return nil
		}
		return p.addModule(ctx, name, size, r, maxSize)
	})
	if err == nil {
		err = k.finish()
	}
	if err != nil {
		k.release()
		return nil, err
	}
	p.files[vmlinux] = k.btf
	slices.Sort(p.names)
	return p, nil
}

// addModule reads the module at package path name and files its BTF, or
// the error reading it.
func (p *Package) addModule(ctx context.Context, name string, size int64, r io.Reader, maxSize int64) error {
	d, err := input.ReadAll(ctx, r, input.Options{Limit: maxSize, What: name, Claim: size})
	if err != nil {
		return err // the package's limit: no partial result
	}
	defer d.Release()
	mod := ModuleName(name)
	raw, distBase, err := btf.Extract(ctx, d.Bytes(), btf.Options{MaxSize: maxSize})
	switch {
	case errors.Is(err, btf.ErrNoBTF):
		return nil
	case err != nil:
		p.errs[mod] = p.internErr(err)
	default:
		p.files[mod] = raw
		if distBase != nil {
			p.dist[mod] = distBase
		}
	}
	p.names = append(p.names, mod)
	return nil
}

// pkgKernel finds the kernel's BTF in a package as its walk goes: the
// first kernel image, and the first System.map that has the BTF's symbols
// among those before the image or beside it (as debKernel reads them).
// The image is held only until its BTF can be taken out: at once when a
// System.map beside it came first (packages list boot/System.map-* before
// boot/vmlinuz-*), else when the walk leaves its directory, not for the
// rest of a package that may inflate to many times its size.
type pkgKernel struct {
	ctx     context.Context
	maxSize int64
	sm      *sysMap
	mapDirs map[string]bool // directories where a System.map was read
	image   *input.Data     // the image, while its BTF is not yet out
	name    string          // the image's path
	btf     []byte          // the kernel's BTF, once out
}

// addSysMap reads the System.map at package path name, unless one with the
// BTF's symbols was read already, or comes too late (after the image,
// outside its directory: passed has taken the BTF out).
func (k *pkgKernel) addSysMap(name string, size int64, r io.Reader) error {
	if k.sm != nil || k.name != "" && k.image == nil {
		return nil
	}
	m, err := readSysMap(k.ctx, name, size, r, k.maxSize)
	if err != nil {
		return err
	}
	k.sm = m
	if k.mapDirs == nil {
		k.mapDirs = map[string]bool{}
	}
	k.mapDirs[path.Dir(name)] = true
	return nil
}

// addImage reads the kernel image at package path name, the first one.
func (k *pkgKernel) addImage(name string, size int64, r io.Reader) error {
	if k.name != "" {
		return nil // a second kernel: the first one counts
	}
	d, err := input.ReadAll(k.ctx, r, input.Options{Limit: k.maxSize, What: name, Claim: size})
	if err != nil {
		return err
	}
	k.image, k.name = d, name
	if k.mapDirs[path.Dir(name)] {
		return k.finish()
	}
	return nil
}

// passed takes the BTF out of a held image once the walk is at name,
// outside the image's directory.
func (k *pkgKernel) passed(name string) error {
	if k.image != nil && path.Dir(name) != path.Dir(k.name) {
		return k.finish()
	}
	return nil
}

// finish takes the BTF out of the image and releases it.
func (k *pkgKernel) finish() error {
	if k.btf != nil {
		return nil
	}
	if k.image == nil {
		return errors.New("kimage: the package has no boot/vmlinuz-* (or lib/modules/*/vmlinuz)")
	}
	raw, err := imageBTF(k.ctx, k.image.Bytes(), k.sm, k.maxSize)
	k.release()
	if err != nil {
		return pkgerr.Errorf("kimage: %s: %w", k.name, err)
	}
	k.btf = raw
	return nil
}

// release releases the image if it is held.
func (k *pkgKernel) release() {
	if k.image != nil {
		k.image.Release()
		k.image = nil
	}
}

// vmlinux names the kernel's BTF in a Package, as in /sys/kernel/btf.
const vmlinux = "vmlinux"

// Modules returns the names of the package's modules with BTF, sorted:
// "kvm" for lib/modules/VERSION/kernel/arch/x86/kvm/kvm.ko.
func (p *Package) Modules() []string { return slices.Clone(p.names) }

// File returns the raw BTF of "vmlinux" or of a module: what the kernel
// would show in /sys/kernel/btf/NAME (a module's is split BTF on
// vmlinux's), except that a module built on a distilled base (.BTF.base)
// is returned on that base, as its .BTF holds it: Open relocates it. The
// bytes belong to the Package and must not be modified.
func (p *Package) File(name string) ([]byte, error) {
	if err := p.errs[name]; err != nil {
		return nil, pkgerr.Errorf("kimage: %s: module %s: %w", p.name, name, err)
	}
	raw, ok := p.files[name]
	if !ok {
		return nil, pkgerr.Errorf("kimage: %s: %q: %w", p.name, name, ErrNoModule)
	}
	return raw, nil
}

// Open parses the BTF of "vmlinux" or of a module, a module's on base (its
// package's vmlinux Spec, which must stay open while the module's is
// used). The Spec reads the Package's bytes in place; the caller closes it.
func (p *Package) Open(name string, base *btf.Spec) (*btf.Spec, error) {
	raw, err := p.File(name)
	if err != nil {
		return nil, err
	}
	if name == vmlinux {
		base = nil
	}
	if dist := p.dist[name]; dist != nil {
		return p.openDistilled(name, raw, dist, base)
	}
	s, err := btf.Parse(raw, btf.Options{Base: base})
	if err != nil {
		return nil, pkgerr.Errorf("kimage: %s: %s: %w", p.name, name, err)
	}
	return s, nil
}

// openDistilled parses the module name, raw on its distilled base dist,
// and relocates it onto base, as the kernel does when it loads it; on its
// distilled base if base is nil.
func (p *Package) openDistilled(name string, raw, dist []byte, base *btf.Spec) (*btf.Spec, error) {
	d, err := btf.Parse(dist, btf.Options{})
	if err == nil {
		var s *btf.Spec
		if s, err = btf.Parse(raw, btf.Options{Base: d}); err == nil {
			if base == nil {
				return s, nil
			}
			if s, err = btf.Relocate(s, base); err == nil {
				return s, nil
			}
		}
	}
	return nil, pkgerr.Errorf("kimage: %s: %s: %w", p.name, name, err)
}

// String returns the path the Package was read from.
func (p *Package) String() string { return p.name }
