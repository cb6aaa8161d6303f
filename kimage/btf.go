package kimage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfraw"
	"github.com/kmeta-dev/kmeta/internal/input"
)

// headLen is how much of an input tells a bzImage or a Debian package: the
// x86 setup header ends before it.
const headLen = 0x250

// OpenBTF reads the BTF of the input at path in any form kmeta reads: what
// btf.Open reads (raw BTF, an ELF file such as a vmlinux, a .ko or a BPF
// object, also compressed with gzip, xz or zstd), an x86 bzImage
// (/boot/vmlinuz-*), or a Debian kernel package (linux-image-*.deb), whose
// kernel's BTF it reads. opts are btf.Open's: opts.MaxSize also bounds the
// image or package and what it inflates to. ctx stops the reading.
//
// A kernel image is recognized in a regular file only; a FIFO or a device
// is read as btf.Open reads it (see ReadBTF for a stream that may hold an
// image).
func OpenBTF(ctx context.Context, path string, opts btf.Options) (*btf.Spec, error) {
	if !isImageFile(path) {
		return btf.Open(ctx, path, opts)
	}
	d, err := input.File(ctx, path, input.Options{Limit: opts.MaxSize})
	if err != nil {
		return nil, err
	}
	defer d.Release()
	s, err := kernelBTF(ctx, d.Bytes(), opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ReadBTF is OpenBTF for a stream: r may hold anything OpenBTF reads. A
// kernel image or package is read whole into memory (bounded by
// opts.MaxSize), then its kernel is inflated as a stream.
func ReadBTF(ctx context.Context, r io.Reader, opts btf.Options) (*btf.Spec, error) {
	br := bufio.NewReaderSize(r, headLen)
	head, _ := br.Peek(headLen) // a short input: what there is
	if !IsBzImage(head) && !IsDeb(head) && !IsRPM(head) {
		return btf.Read(ctx, br, opts)
	}
	d, err := input.ReadAll(ctx, br, input.Options{Limit: opts.MaxSize})
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return kernelBTF(ctx, d.Bytes(), opts)
}

// isImageFile reports whether path is a regular file that starts as an x86
// bzImage or a Debian package.
func isImageFile(path string) bool {
	f, fi, err := input.OpenFile(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return false
	}
	head := make([]byte, headLen)
	n, _ := io.ReadFull(f, head)
	return IsBzImage(head[:n]) || IsDeb(head[:n]) || IsRPM(head[:n])
}

// kernelBTF reads the BTF of the kernel in data, an x86 bzImage or a
// Debian package: the kernel is inflated as a stream into btf.Read, which
// keeps only its .BTF section.
func kernelBTF(ctx context.Context, data []byte, opts btf.Options) (*btf.Spec, error) {
	r, _, err := Kernel(ctx, data, opts.MaxSize)
	if err != nil {
		return nil, err
	}
	return btf.Read(ctx, r, opts)
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
	errs  map[string]error  // modules whose BTF could not be read
	names []string          // module names, sorted (with BTF, or failed)
}

// ErrNoModule is wrapped by Package.File and Package.Open for a name that
// is neither "vmlinux" nor a module of the package with BTF.
var ErrNoModule = errors.New("kimage: no such module with BTF in the package")

// OpenPackage reads the Debian kernel package at path: the BTF of its
// kernel image (boot/vmlinuz-*) and of every module it installs
// (lib/modules/**.ko, also .ko.xz, .ko.zst, .ko.gz), in one pass over the
// package. maxSize bounds the package, each file in it, and what each
// inflates to (0: btf.DefaultMaxSize). Modules without a .BTF section are
// left out; a module whose BTF cannot be read is listed, and File and Open
// return its error. The package must hold a kernel image.
func OpenPackage(ctx context.Context, path string, maxSize int64) (*Package, error) {
	check := func(head []byte) error {
		if err := checkDeb(head); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	d, err := input.File(ctx, path, input.Options{Limit: maxSize, What: path, Check: check, CheckLen: debHeadLen})
	if err != nil {
		return nil, err
	}
	defer d.Release()
	p, err := readPackage(ctx, d.Bytes(), maxSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.name = path
	return p, nil
}

// ReadPackage is OpenPackage for a package read from r, whole, into memory.
func ReadPackage(ctx context.Context, r io.Reader, maxSize int64) (*Package, error) {
	d, err := input.ReadAll(ctx, r, input.Options{Limit: maxSize, What: "package", Check: checkDeb, CheckLen: debHeadLen})
	if err != nil {
		return nil, err
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
	return fmt.Errorf("not a Debian or RPM package: it starts with %x, not with an ar archive's \"!<arch>\\ndebian-binary\" or an RPM lead's edabeedb", head)
}

func readPackage(ctx context.Context, deb []byte, maxSize int64) (*Package, error) {
	if !IsDeb(deb) && !IsRPM(deb) {
		return nil, errors.New("kimage: not a Debian or RPM package")
	}
	p := &Package{files: map[string][]byte{}, errs: map[string]error{}}
	err := Walk(ctx, deb, maxSize, func(name string, size int64, r io.Reader) error {
		isModule := IsModule(name)
		if !isModule && !IsVmlinuz(name) {
			return nil
		}
		if !isModule && p.files[vmlinux] != nil {
			return nil // a second kernel image: the first one counts
		}
		d, err := input.ReadAll(ctx, r, input.Options{Limit: maxSize, What: name, Claim: size})
		if err != nil {
			return err // the package's limit: no partial result
		}
		defer d.Release()
		if !isModule {
			raw, err := vmlinuxBTF(ctx, d.Bytes(), maxSize)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			p.files[vmlinux] = raw
			return nil
		}
		mod := ModuleName(name)
		if _, dup := p.files[mod]; dup || p.errs[mod] != nil {
			return nil
		}
		raw, err := btfraw.Extract(ctx, d.Bytes(), maxSize)
		switch {
		case errors.Is(err, btf.ErrNoBTF):
			return nil
		case err != nil:
			p.errs[mod] = fmt.Errorf("%s: %w", name, err)
		default:
			p.files[mod] = raw
		}
		p.names = append(p.names, mod)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.files[vmlinux] == nil {
		return nil, errors.New("kimage: the package has no boot/vmlinuz-* (or lib/modules/*/vmlinuz)")
	}
	slices.Sort(p.names)
	return p, nil
}

// vmlinux names the kernel's BTF in a Package, as in /sys/kernel/btf.
const vmlinux = "vmlinux"

// vmlinuxBTF returns the raw BTF of the kernel image in image.
func vmlinuxBTF(ctx context.Context, image []byte, maxSize int64) ([]byte, error) {
	r, claim, err := imageKernel(image, maxSize)
	if err != nil {
		return nil, err
	}
	d, err := input.ReadAll(ctx, r, input.Options{Limit: maxSize, What: "the kernel in the image", Claim: claim})
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return btfraw.Extract(ctx, d.Bytes(), maxSize)
}

// Modules returns the names of the package's modules with BTF, sorted:
// "kvm" for lib/modules/VERSION/kernel/arch/x86/kvm/kvm.ko.
func (p *Package) Modules() []string { return slices.Clone(p.names) }

// File returns the raw BTF of "vmlinux" or of a module: what the kernel
// would show in /sys/kernel/btf/NAME (a module's is split BTF on
// vmlinux's). The bytes belong to the Package and must not be modified.
func (p *Package) File(name string) ([]byte, error) {
	if err := p.errs[name]; err != nil {
		return nil, err
	}
	raw, ok := p.files[name]
	if !ok {
		return nil, fmt.Errorf("%s: %q: %w", p.name, name, ErrNoModule)
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
	s, err := btf.Parse(raw, btf.Options{Base: base})
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", p.name, name, err)
	}
	return s, nil
}

// String returns the path the Package was read from.
func (p *Package) String() string { return p.name }
