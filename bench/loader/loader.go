// Package loader shows kmeta as the kernel types of a Go BPF loader,
// cilium/ebpf v0.22: the running kernel's minimal BTF for a CO-RE object's
// relocations (kerneltypes.Minimal), handed to cilium/ebpf as
// ProgramOptions.KernelTypes, instead of the whole vmlinux (and every
// module's) BTF that cilium/ebpf otherwise reads and decodes for each
// collection it loads.
//
// It lives in the bench module so that kmeta itself does not depend on
// cilium/ebpf. BENCHMARKS.md ("A Go loader's kernel types") has what the
// two ways cost.
//
// cilium/ebpf still reads the whole vmlinux BTF, whatever KernelTypes
// says, for programs whose attach target it looks up in the kernel's BTF
// (fentry, fexit, fmod_ret, tp_btf, lsm, iter, struct_ops) and for kfunc
// calls; only the relocations use KernelTypes. Kprobes, tracepoints, raw
// tracepoints, and socket and network programs need nothing else.
package loader

import (
	"bytes"
	"context"
	"fmt"

	"github.com/cilium/ebpf"
	cbtf "github.com/cilium/ebpf/btf"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/btf/core/kerneltypes"
	"github.com/kmeta-dev/kmeta/kernel"
)

// ProgramOptions returns cilium/ebpf program options whose KernelTypes is
// the minimal BTF of the kernel that k locates (the running kernel for
// the zero Options) for the CO-RE relocations of the BPF objects at
// paths, and whose ExtraRelocationTargets are the minimal BTF of each
// module that has types vmlinux lacks. Use them for the collections of
// those objects: as CollectionOptions.Programs, or ProgramOptions for
// NewProgramWithOptions.
//
// A program whose relocations kerneltypes.Minimal did not see must not be loaded
// with these options: its relocations would be resolved against types
// that lack what it reads.
func ProgramOptions(ctx context.Context, k kernel.Options, paths ...string) (ebpf.ProgramOptions, error) {
	var opts ebpf.ProgramOptions
	objs := make([]*bpfelf.Object, 0, len(paths))
	defer func() {
		for _, o := range objs {
			o.Close()
		}
	}()
	for _, p := range paths {
		obj, err := bpfelf.Open(ctx, p, bpfelf.Options{})
		if err != nil {
			return opts, err
		}
		objs = append(objs, obj)
	}
	cobjs := make([]core.Object, len(objs))
	for i, o := range objs {
		cobjs[i] = o.CORE()
	}
	ct, err := kerneltypes.Minimal(ctx, k, cobjs...)
	if err != nil {
		return opts, err
	}
	if opts.KernelTypes, err = CiliumSpec(ct.Vmlinux); err != nil {
		return opts, fmt.Errorf("vmlinux: %w", err)
	}
	for _, m := range ct.Modules {
		s, err := CiliumSpec(m.Types)
		if err != nil {
			return opts, fmt.Errorf("module %s: %w", m.Module, err)
		}
		opts.ExtraRelocationTargets = append(opts.ExtraRelocationTargets, s)
	}
	return opts, nil
}

// CiliumSpec marshals b and reads it back as a cilium/ebpf Spec.
func CiliumSpec(b *builder.Builder) (*cbtf.Spec, error) {
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		return nil, err
	}
	return cbtf.LoadSpecFromReader(bytes.NewReader(raw))
}
