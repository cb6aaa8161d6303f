package kernel

import "github.com/kmeta-dev/kmeta/btf"

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
