package kernel

import (
	"context"

	"github.com/kmeta-dev/kmeta/btf"
)

// OpenVmlinux opens the running kernel's BTF: /sys/kernel/btf/vmlinux, or the
// first of the on-disk places libbpf tries (see the package doc). The
// caller owns the Spec and must Close it. It is the one call for "this
// kernel's BTF"; to share Specs between goroutines or libraries, or to
// reach module BTF, use a Cache (Default, NewCache) instead. The error
// wraps ErrNoVmlinux when no usable BTF was found.
func OpenVmlinux() (*btf.Spec, error) { return Options{}.OpenVmlinux() }

// OpenVmlinux opens the vmlinux BTF that o locates, as the package function
// OpenVmlinux does for the running kernel. The caller must Close the Spec.
func (o Options) OpenVmlinux() (*btf.Spec, error) {
	s, _, err := openVmlinux(o)
	return s, err
}

// OpenVmlinuxWith is OpenVmlinux with a context, which stops the reading,
// and the read options of package btf (bo.Lazy and bo.Flavors, say, to
// search names in the walk that opening does; bo.Workers is used as
// given, not o.Workers). It also returns where the BTF came from: the
// path read, or the name of o.Package.
func (o Options) OpenVmlinuxWith(ctx context.Context, bo btf.Options) (s *btf.Spec, from string, err error) {
	return openVmlinuxWith(ctx, o, bo)
}

// ModuleNames lists, sorted, the modules of the kernel o locates that
// have BTF (those of o.Package, or the files of BTFDir but vmlinux),
// without opening any of them or vmlinux. A kernel without a module BTF
// directory has none.
func (o Options) ModuleNames() ([]string, error) {
	if o.Package != nil {
		return o.Package.Modules(), nil
	}
	mods, err := listModules(o.BTFDir())
	if err != nil {
		return nil, err
	}
	names := make([]string, len(mods))
	for i, m := range mods {
		names[i] = m.name
	}
	return names, nil
}
