package main

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/kernel"
)

type btfCoreFlags struct {
	target string
	base   string
	kernel bool
	kf     kernelFlags
	json   bool
}

func (c *cli) btfCoreCmd() *cobra.Command {
	var f btfCoreFlags
	cmd := &cobra.Command{
		Use:   "core OBJ [--target FILE [-B BASE] | --kernel]",
		Short: "Resolve a BPF object's CO-RE relocations against a kernel, as libbpf does",
		Long: `Resolve every CO-RE relocation of the BPF object OBJ (clang -target bpf -g)
against a kernel's BTF with libbpf's rules, and print one line per
relocation: the ELF section, the program, libbpf's relocation index, the
instruction, the kind, the local access spec in libbpf's notation, and the
value libbpf patches in, or why the relocation fails.

--target FILE resolves against FILE (vmlinux BTF; with -B BASE, module BTF
on its vmlinux, which is searched first, as libbpf does). Any one of OBJ,
FILE and BASE may be "-", standard input. --kernel, the
default, resolves against the running kernel: vmlinux and its modules'
BTF (--sysfs DIR, --root DIR as for "btf find --kernel").

--json prints an array of objects with the keys section, program, index,
insn, relo_kind, local_type_id, local_spec, target_type_id, target_spec,
orig and target (the local and patched values, left out when the
instruction would be poisoned or the relocation fails), poisoned, skipped,
and error (why it does not resolve) when it applies.

Exits 0 when every relocation resolves, 1 when one does not (libbpf would
poison its instruction or refuse the object: the program does not load
unless that instruction is dead code).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.target != "" && (f.kernel || f.kf.sysfs != "" || f.kf.root != "") {
				return usagef("--target and --kernel exclude each other")
			}
			if f.base != "" && f.target == "" {
				return usagef("-B BASE needs --target FILE")
			}
			return c.btfCore(args[0], f)
		},
	}
	cmd.Flags().StringVar(&f.target, "target", "", "target kernel BTF `FILE` (vmlinux, or module BTF with -B)")
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` of a module --target")
	cmd.Flags().BoolVar(&f.kernel, "kernel", false, "resolve against the running kernel (the default)")
	f.kf.register(cmd)
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	return cmd
}

func (c *cli) btfCore(objPath string, f btfCoreFlags) error {
	if objPath == "-" && f.target == "-" {
		return usagef("OBJ and --target cannot both be standard input")
	}
	o, err := c.openObject(objPath)
	if err != nil {
		return err
	}
	defer o.Close()
	obj := o.CORE()
	target, from, done, err := c.coreTarget(f, obj)
	if err != nil {
		return err
	}
	defer done()
	stop := c.busy("resolving the relocations of " + inputName(objPath))
	rs, err := core.Resolve(c.ctx, obj, target)
	stop()
	if err != nil {
		return targetErr(from, target.Main(), err)
	}
	if f.json {
		err = c.printCoreJSON(rs)
	} else {
		err = c.printCore(rs)
	}
	if err != nil {
		return err
	}
	for i := range rs {
		if !rs[i].Skipped && !rs[i].OK() {
			return errQuiet
		}
	}
	return nil
}

// coreTarget opens the target of btf core for obj: --target FILE (on -B
// BASE), or the running kernel's vmlinux and module BTFs. It also returns
// the path of the main BTF, which targetErr names. A target without a
// base is opened lazily, its candidate search made in the walk that
// opening does, as btf min --obj opens its target (targetOptions).
func (c *cli) coreTarget(f btfCoreFlags, obj core.Object) (*core.Target, string, func(), error) {
	if f.target == "" {
		return c.coreKernelTarget(f, obj)
	}
	if f.base != "" {
		o, err := c.openSpec(f.target, f.base)
		if err != nil {
			return nil, "", nil, err
		}
		boundMemory(o.spec)
		return core.NewTarget(o.base, o.spec), f.target, o.Close, nil
	}
	s, err := c.openOneWith(c.ctx, f.target, c.targetOptions([]core.Object{obj}))
	if err != nil {
		return nil, "", nil, err
	}
	boundMemory(s)
	return core.NewTarget(s), f.target, func() { s.Close() }, nil
}

// coreKernelTarget is coreTarget for the running kernel (--kernel): its
// vmlinux BTF opened lazily, and its modules' BTF, which libbpf searches
// only for a name that vmlinux lacks, through a kernel.Cache made then.
func (c *cli) coreKernelTarget(f btfCoreFlags, obj core.Object) (*core.Target, string, func(), error) {
	ko := f.kf.options()
	vmlinux, from, err := ko.OpenVmlinuxWith(c.ctx, c.targetOptions([]core.Object{obj}))
	if err != nil {
		return nil, "", nil, err
	}
	var cache *kernel.Cache
	var h *kernel.Handle
	done := func() {
		if h != nil {
			h.Release()
		}
		if cache != nil {
			cache.Close()
		}
		vmlinux.Close()
	}
	modules := func() []*btf.Spec {
		cache = kernel.NewCache(ko)
		acquired, err := cache.Acquire()
		if err != nil {
			fmt.Fprintf(c.stderr, "kmeta: warning: %v\n", err)
			return nil
		}
		h = acquired
		return c.kernelModules(h)
	}
	return core.NewKernelTarget(vmlinux, modules), from, done, nil
}

// kernelModules opens the BTF of every module of h's kernel, warning
// about those that cannot be read.
func (c *cli) kernelModules(h *kernel.Handle) []*btf.Spec {
	names, err := h.Modules()
	if err != nil {
		fmt.Fprintf(c.stderr, "kmeta: warning: %v\n", err)
		return nil
	}
	var mods []*btf.Spec
	for _, name := range names {
		m, err := h.Module(name)
		if err != nil {
			fmt.Fprintf(c.stderr, "kmeta: warning: %v\n", err)
			continue
		}
		mods = append(mods, m)
	}
	return mods
}

// coreValue is the text form of a Result's outcome.
func coreValue(r *core.Result) string {
	switch {
	case r.Skipped:
		return "skipped (program not loaded)"
	case r.OK():
		return fmt.Sprint(r.Value)
	}
	return "FAILS: " + r.Reason()
}

func (c *cli) printCore(rs []core.Result) error {
	w := bufio.NewWriter(c.out())
	for i := range rs {
		fmt.Fprintln(w, coreLine(&rs[i]))
	}
	return w.Flush()
}

// coreLine is the line printCore prints for r.
func coreLine(r *core.Result) string {
	prog := r.Program
	if prog == "" {
		prog = "-"
	}
	local := r.LocalSpec
	if local == "" {
		local = fmt.Sprintf("[%d]", r.LocalType)
	}
	return fmt.Sprintf("%s %s relo #%d insn #%d <%s> %s -> %s", r.Section, prog, r.Index, r.Insn, r.Kind, local, coreValue(r))
}

// coreJSON is one relocation in --json output (docs/json.md): values
// that the relocation does not have (no target type matched, no value
// because it fails or was skipped) are left out.
type coreJSON struct {
	Section      string  `json:"section"`
	Program      string  `json:"program,omitempty"`
	Index        int     `json:"index"`
	Insn         int     `json:"insn"`
	ReloKind     string  `json:"relo_kind"`
	LocalTypeID  uint32  `json:"local_type_id"`
	LocalSpec    string  `json:"local_spec,omitempty"`
	TargetTypeID uint32  `json:"target_type_id,omitempty"`
	TargetSpec   string  `json:"target_spec,omitempty"`
	Orig         *uint64 `json:"orig,omitempty"`
	Target       *uint64 `json:"target,omitempty"`
	Poisoned     bool    `json:"poisoned"`
	Skipped      bool    `json:"skipped"`
	Error        string  `json:"error,omitempty"`
}

func (c *cli) printCoreJSON(rs []core.Result) error {
	out := make([]coreJSON, 0, len(rs))
	for i := range rs {
		r := &rs[i]
		j := coreJSON{Section: r.Section, Program: r.Program, Index: r.Index, Insn: r.Insn, ReloKind: r.Kind.String(),
			LocalTypeID: uint32(r.LocalType), LocalSpec: r.LocalSpec, TargetTypeID: uint32(r.TargetType), TargetSpec: r.TargetSpec,
			Poisoned: r.Poisoned, Skipped: r.Skipped, Error: r.Reason()}
		// Orig and Value mean nothing when the relocation is poisoned or
		// fails (core.Result).
		if !r.Skipped && r.OK() {
			j.Orig, j.Target = &r.Orig, &r.Value
		}
		out = append(out, j)
	}
	w := bufio.NewWriter(c.out())
	if err := writeJSON(w, out); err != nil {
		return err
	}
	return w.Flush()
}
