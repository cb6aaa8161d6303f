package kernel

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/kimage"
)

// Options say where a Cache finds the kernel's BTF. The zero value reads the
// running kernel's files.
type Options struct {
	// Root is the directory that stands for "/" in every path the package
	// reads: "" and "/" mean the real root. Point it at a copy of another
	// machine's files to read that machine's BTF.
	Root string
	// Sysfs is the directory that stands for /sys: Sysfs/kernel/btf/vmlinux
	// and Sysfs/kernel/btf/MODULE are read. "" means Root/sys.
	Sysfs string
	// Release is the kernel release ("uname -r") used in the on-disk
	// vmlinux locations. "" means the running kernel's release, which is
	// rarely right for another machine's files under Root.
	Release string
	// Package, if not nil, is the kernel's BTF instead of the files above
	// (Root, Sysfs and Release are then ignored): a kernel package's
	// vmlinux and modules, read by kimage.OpenPackage, as if it were the
	// running kernel. It must stay usable while the Cache is.
	Package *kimage.Package
	// Workers is how many goroutines a call may use: to check vmlinux's
	// type section in two halves, to list the module BTF directory while
	// vmlinux is read, and to read or screen many modules at once. 0 or 1
	// runs every call on the caller's goroutine alone.
	Workers int
}

// sysfs returns the directory that stands for /sys.
func (o Options) sysfs() string {
	if o.Sysfs != "" {
		return o.Sysfs
	}
	return o.under("/sys")
}

// under returns path p (absolute, slash-separated) below the root.
func (o Options) under(p string) string {
	if o.Root == "" || o.Root == "/" {
		return filepath.FromSlash(p)
	}
	return filepath.Join(o.Root, filepath.FromSlash(p))
}

// BTFDir returns the directory holding vmlinux and module BTF:
// Sysfs/kernel/btf.
func (o Options) BTFDir() string {
	return filepath.Join(o.sysfs(), "kernel", "btf")
}

// vmlinuxLocations are the on-disk places libbpf tries (btf.c,
// btf__load_vmlinux_btf), in its order; %[1]s is the release.
var vmlinuxLocations = []string{
	"/boot/vmlinux-%[1]s",
	"/lib/modules/%[1]s/vmlinux-%[1]s",
	"/lib/modules/%[1]s/build/vmlinux",
	"/usr/lib/modules/%[1]s/kernel/vmlinux",
	"/usr/lib/debug/boot/vmlinux-%[1]s",
	"/usr/lib/debug/boot/vmlinux-%[1]s.debug",
	"/usr/lib/debug/lib/modules/%[1]s/vmlinux",
}

// VmlinuxPaths returns the files tried for vmlinux BTF, in order: the sysfs
// file first, then the on-disk locations for the release, all under the
// configured root. It fails only if the running kernel's release is needed
// and cannot be read, or the release is not a valid path element.
func (o Options) VmlinuxPaths() ([]string, error) {
	rel, err := o.release()
	if err != nil {
		return nil, err
	}
	paths := []string{filepath.Join(o.BTFDir(), Vmlinux)}
	for _, loc := range vmlinuxLocations {
		paths = append(paths, o.under(fmt.Sprintf(loc, rel)))
	}
	return paths, nil
}

// release returns the configured release, or the running kernel's.
func (o Options) release() (string, error) {
	rel := o.Release
	if rel == "" {
		var err error
		if rel, err = runningRelease(); err != nil {
			return "", pkgerr.Errorf("kernel: uname: %w", err)
		}
	}
	if !validName(rel) {
		return "", fmt.Errorf("kernel: invalid release %q", rel)
	}
	return rel, nil
}

// validName reports whether name can be used as one path element.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// openVmlinux opens the first usable vmlinux BTF, as libbpf does: missing
// files are skipped, and so are files that exist but hold no usable BTF
// (a debug vmlinux without a .BTF section, say). The error wraps
// ErrNoVmlinux and the reasons the existing files were rejected.
func openVmlinux(o Options) (*btf.Spec, string, error) {
	return openVmlinuxWith(context.Background(), o, btf.Options{Workers: o.Workers})
}

// openVmlinuxWith is openVmlinux with a context and read options: the
// first usable vmlinux BTF of o's paths (or o's package), and its path.
func openVmlinuxWith(ctx context.Context, o Options, bo btf.Options) (*btf.Spec, string, error) {
	if o.Package != nil {
		raw, err := o.Package.File(Vmlinux)
		if err != nil {
			return nil, "", err
		}
		s, err := btf.Parse(raw, bo)
		if err != nil {
			return nil, "", pkgerr.Errorf("kernel: %s: %s: %w", o.Package, Vmlinux, err)
		}
		return s, o.Package.String(), nil
	}
	paths, err := o.VmlinuxPaths()
	if err != nil {
		return nil, "", err
	}
	var errs []error
	for _, p := range paths {
		// Only regular files: opening a FIFO would block.
		fi, err := os.Stat(p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		if !fi.Mode().IsRegular() {
			errs = append(errs, fmt.Errorf("kernel: %s: not a regular file", p))
			continue
		}
		s, err := btf.Open(ctx, p, bo)
		if err == nil {
			return s, p, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	err = fmt.Errorf("%w (tried %s)", ErrNoVmlinux, strings.Join(paths, ", "))
	return nil, "", errors.Join(append([]error{err}, errs...)...)
}
