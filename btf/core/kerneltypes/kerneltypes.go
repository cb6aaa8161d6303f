package kerneltypes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/kernel"
)

// Types is the part of a kernel's BTF that the CO-RE relocations of some
// BPF objects use, as minimal BTF.
type Types struct {
	// Vmlinux holds the vmlinux types the relocations use, made as
	// core.TypesFor makes it (bpftool gen min_core_btf's bytes once
	// marshalled): standalone BTF, numbered from 1.
	Vmlinux *builder.Builder
	// Modules holds one entry for each module that has a candidate for a
	// local type that vmlinux has none for (libbpf searches modules only
	// then), in module name order.
	Modules []ModuleTypes
	// Failed lists the modules that might have held such a type but
	// could not be read; every other module was searched.
	Failed []*kernel.ModuleError
}

// ModuleTypes is the minimal BTF of one module for the relocations.
type ModuleTypes struct {
	// Module is the module's name, as in /sys/kernel/btf.
	Module string
	// Types is core.TypesFor on a target of vmlinux and this module:
	// standalone BTF holding the vmlinux types the relocations use and
	// the module's, numbered from 1.
	Types *builder.Builder
}

// Minimal returns the minimal BTF of the kernel that k locates (or of
// k.Package) for the CO-RE relocations of objs, without keeping the
// kernel's BTF open. It opens vmlinux lazily, with the
// objects' candidate search made in the walk that opening does
// (btf.Options.Lazy and Flavors, as kmeta btf min --obj does), runs
// core.TypesFor on it, and closes it. Module BTF is read only when vmlinux
// lacks a name that the objects relocate: the modules whose strings hold
// the name are then searched (as kernel.Cache.Find does), and each that has a
// candidate gets its own ModuleTypes.
//
// The ids of the minimal BTF are not the kernel's: a loader that writes
// target type ids into programs (bpf_core_type_id_kernel) gets ids of the
// minimal BTF. A relocation that libbpf refuses makes Minimal return
// core.TypesFor's error. The error wraps kernel.ErrNoVmlinux when no usable
// vmlinux BTF was found. The objects must stay open while it runs; the
// returned Builders hold no reference to the kernel's files. It is safe
// to call from several goroutines at once, also on the same objects: each
// call opens the kernel's BTF for itself.
func Minimal(ctx context.Context, k kernel.Options, objs ...core.Object) (*Types, error) {
	q := core.TargetQuery(objs...)
	vmlinux, path, err := k.OpenVmlinuxWith(ctx, btf.Options{Lazy: true, Flavors: q, Workers: k.Workers})
	if err != nil {
		return nil, err
	}
	defer vmlinux.Close()
	b, err := core.TypesFor(ctx, core.NewTarget(vmlinux), objs)
	if err != nil {
		return nil, fmt.Errorf("kerneltypes: minimal BTF of %s: %w", path, err)
	}
	ct := &Types{Vmlinux: b}
	missing := missingNames(vmlinux, q)
	if len(missing) == 0 {
		return ct, nil
	}
	if err := ct.addModules(ctx, k, missing, q.Kinds, objs); err != nil {
		return nil, err
	}
	return ct, nil
}

// addModules adds the minimal BTF of every module that has a type of one
// of the missing names and kinds.
func (ct *Types) addModules(ctx context.Context, k kernel.Options, missing []string, kinds []btf.Kind, objs []core.Object) error {
	// A kernel without module BTF: no need to open vmlinux again.
	if names, err := k.ModuleNames(); err == nil && len(names) == 0 {
		return nil
	}
	c := kernel.NewCache(k)
	defer c.Close()
	h, err := c.Acquire()
	if err != nil {
		return err
	}
	defer h.Release()
	var mods []string
	for _, name := range missing {
		res, err := h.Find(name, kernel.FindOptions{Flavors: true})
		if err != nil && !errors.Is(err, btf.ErrNotFound) {
			return err
		}
		ct.Failed = append(ct.Failed, res.Failed...)
		for _, m := range res.Matches {
			if m.Module != kernel.Vmlinux && slices.Contains(kinds, m.Type.Kind()) && !slices.Contains(mods, m.Module) {
				mods = append(mods, m.Module)
			}
		}
	}
	slices.Sort(mods)
	slices.SortStableFunc(ct.Failed, func(a, b *kernel.ModuleError) int { return strings.Compare(a.Module, b.Module) })
	ct.Failed = slices.CompactFunc(ct.Failed, func(a, b *kernel.ModuleError) bool { return a.Module == b.Module })
	for _, name := range mods {
		spec, err := h.Module(name)
		if err != nil {
			return err
		}
		b, err := core.TypesFor(ctx, core.NewTarget(h.Vmlinux(), spec), objs)
		if err != nil {
			return fmt.Errorf("kerneltypes: minimal BTF of module %s: %w", name, err)
		}
		ct.Modules = append(ct.Modules, ModuleTypes{Module: name, Types: b})
	}
	return nil
}

// missingNames returns, sorted, the names of q that no type of vmlinux of
// q's kinds has, as its name or with a "___flavor" suffix.
func missingNames(vmlinux *btf.Spec, q btf.FlavorQuery) []string {
	found := make(map[string]bool, len(q.Names))
	for _, n := range q.Names {
		found[n] = false
	}
	for t := range vmlinux.FindFlavors(q, btf.FindOptions{}) {
		name := t.Name()
		for {
			if _, ok := found[name]; ok {
				found[name] = true
			}
			i := strings.LastIndex(name, "___")
			if i <= 0 {
				break
			}
			name = name[:i]
		}
	}
	var missing []string
	for n, ok := range found {
		if !ok {
			missing = append(missing, n)
		}
	}
	slices.Sort(missing)
	return missing
}
