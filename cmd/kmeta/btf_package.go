package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/kimage"
)

// pkgModule is one module of a kernel package, read or failed.
type pkgModule struct {
	name string
	spec *btf.Spec // nil if err
	err  error
}

// walkPackage reads the BTF of the kernel in a Debian package, then of each
// of its modules (split on the kernel's), in one pass over the package's
// data: modules met before the kernel image are kept until it comes.
// fn is called with the vmlinux Spec first ("vmlinux"), then each module in
// package order; the Specs are closed after fn returns.
func (c *cli) walkPackage(path string, fn func(m pkgModule) error) error {
	defer c.busy("reading the kernel and modules of " + inputName(path))()
	d, err := c.readArg(path, func(head []byte) error {
		if !bytes.HasPrefix(head, []byte("!<arch>\n")) {
			return fmt.Errorf("%s: not a Debian package: it starts with %x, not with an ar archive's \"!<arch>\\n\"", inputName(path), head)
		}
		return nil
	}, magicLen)
	if err != nil {
		return err
	}
	defer d.Release()
	if !kimage.IsDeb(d.Bytes()) {
		return fmt.Errorf("%s: not a Debian package", inputName(path))
	}
	var base *btf.Spec
	type early struct {
		name string
		data []byte
	}
	var waiting []early
	module := func(name string, data []byte) error {
		s, err := btf.ReadWith(bytes.NewReader(data), c.readOptions(base))
		if err != nil {
			err = fmt.Errorf("%s: %w", name, withHint(err))
		}
		defer s.Close()
		return fn(pkgModule{name: name, spec: s, err: err})
	}
	err = kimage.Walk(c.ctx, d.Bytes(), c.maxInput, func(name string, size int64, r io.Reader) error {
		if !kimage.IsVmlinuz(name) && !kimage.IsModule(name) {
			return nil
		}
		data, err := input.ReadAll(c.ctx, r, input.Options{Limit: c.maxInput, What: name, Claim: size})
		if err != nil {
			return withHint(err)
		}
		b := bytes.Clone(data.Bytes())
		data.Release()
		if kimage.IsModule(name) {
			if base == nil {
				waiting = append(waiting, early{kimage.ModuleName(name), b})
				return nil
			}
			return module(kimage.ModuleName(name), b)
		}
		if base != nil {
			return nil // a second kernel image: the first one is the base
		}
		kr, _, err := kimage.Kernel(c.ctx, b, c.maxInput)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if base, err = btf.ReadWith(kr, c.readOptions(nil)); err != nil {
			return fmt.Errorf("%s: %w", name, withHint(err))
		}
		if err := fn(pkgModule{name: "vmlinux", spec: base}); err != nil {
			return err
		}
		for _, m := range waiting {
			if err := module(m.name, m.data); err != nil {
				return err
			}
		}
		waiting = nil
		return nil
	})
	if base != nil {
		defer base.Close()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if base == nil {
		return fmt.Errorf("%s: the package has no boot/vmlinuz-*", path)
	}
	return nil
}

// btfModulesPackage lists the modules of a kernel package with BTF.
func (c *cli) btfModulesPackage(path string, asJSON bool) error {
	infos := []moduleInfo{}
	failed := 0
	err := c.walkPackage(path, func(m pkgModule) error {
		if m.name == "vmlinux" {
			return nil
		}
		info := moduleInfo{Module: m.name}
		if m.err != nil {
			if errors.Is(m.err, btf.ErrNoBTF) {
				return nil // a module without BTF is not listed
			}
			info.Error = m.err.Error()
			fmt.Fprintf(c.stderr, "kmeta: warning: %v\n", m.err)
			failed++
		} else {
			info.Types, info.FirstID = m.spec.NumTypes(), uint32(m.spec.FirstID())
		}
		infos = append(infos, info)
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(infos, func(a, b moduleInfo) int { return strings.Compare(a.Module, b.Module) })
	if err := c.printModules(infos, asJSON); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("the BTF of %d of %d modules could not be read", failed, len(infos))
	}
	return nil
}

// btfFindPackage searches vmlinux and every module of a kernel package.
func (c *cli) btfFindPackage(name, path string, f btfFindFlags) error {
	k, err := parseKindFlag(f.kind)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(c.out())
	results := []kernelFindResult{}
	failed, matches := 0, 0
	err = c.walkPackage(path, func(m pkgModule) error {
		if f.module != "" && m.name != f.module {
			return nil
		}
		if m.err != nil {
			if !errors.Is(m.err, btf.ErrNoBTF) {
				fmt.Fprintf(c.stderr, "kmeta: warning: %v\n", m.err)
				failed++
			}
			return nil
		}
		scope := btf.ScopeOwn
		ts, err := m.spec.Find(name, btf.FindOptions{Kind: k, Flavors: f.flavors, Scope: scope})
		if err != nil && !errors.Is(err, btf.ErrNotFound) {
			return err
		}
		for _, t := range ts {
			matches++
			if f.json {
				results = append(results, kernelFindResult{Module: m.name, JSONType: rawdump.ToJSON(t)})
				continue
			}
			w.WriteString(m.name + ": ")
			if err := rawdump.WriteType(w, t); err != nil {
				return err
			}
		}
		// Printed at the end, after the progress line is erased.
		return nil
	})
	if err != nil {
		return err
	}
	if f.json {
		if err := writeJSON(w, results); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if matches == 0 {
		if failed > 0 {
			return fmt.Errorf("%q not found, and %d module(s) could not be searched", name, failed)
		}
		return notFound("type %q: %w", name, btf.ErrNotFound)
	}
	return nil
}
