package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/kernel"
	"github.com/kmeta-dev/kmeta/kimage"
)

type btfFindFlags struct {
	base    string
	kind    string
	flavors bool
	json    bool
	kernel  bool
	module  string
	pkg     string
	kernelFlags
}

func (c *cli) btfFindCmd() *cobra.Command {
	var f btfFindFlags
	cmd := &cobra.Command{
		Use:   "find NAME [FILE...]",
		Short: "Find types by name in BTF files",
		Long: `Print every type named NAME in each FILE (default ` + defaultVmlinux + `),
in bpftool's raw format. With several files each line starts with "FILE: ".
--flavors also matches CO-RE flavors: NAME___suffix.
Exits with status 1, as grep does, when no file has a match.

--kernel searches the running kernel instead of files: vmlinux and every
module with BTF (/sys/kernel/btf/*), or only the one --module names
("vmlinux" for vmlinux alone). Each match starts with "MODULE: ", the place
the type was found, followed by its type id. --sysfs DIR reads DIR/kernel/btf instead of /sys/kernel/btf;
--root DIR reads every path under DIR. --package FILE.deb searches the
kernel (vmlinux) and every module of a Debian kernel package instead. A module whose BTF cannot be read is
reported on stderr and does not stop the search.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.kernel || f.module != "" || f.sysfs != "" || f.root != "" || f.pkg != "" {
				if len(args) > 1 || f.base != "" {
					return usagef("--kernel searches the running kernel: it takes no FILE and no --base")
				}
				if !f.kernel {
					return usagef("--module, --sysfs and --root need --kernel")
				}
				if f.pkg != "" {
					if f.sysfs != "" || f.root != "" {
						return usagef("--package reads a package: it takes no --sysfs and no --root")
					}
					pkg, err := c.openPackage(f.pkg)
					if err != nil {
						return err
					}
					return c.btfFindKernel(args[0], f, pkg)
				}
				return c.btfFindKernel(args[0], f, nil)
			}
			files := args[1:]
			if len(files) == 0 {
				files = []string{defaultVmlinux}
			}
			return c.btfFind(args[0], files, f)
		},
	}
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` for split BTF files")
	cmd.Flags().StringVar(&f.kind, "kind", "", "only types of this `KIND` (struct, union, enum, typedef, func, ...)")
	cmd.Flags().BoolVar(&f.flavors, "flavors", false, "also match CO-RE flavors (NAME___suffix)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&f.kernel, "kernel", false, "search the running kernel's vmlinux and module BTF")
	cmd.Flags().StringVar(&f.pkg, "package", "", "with --kernel, search the kernel and modules of a Debian package `FILE.deb` (\"-\": standard input) instead")
	cmd.Flags().StringVar(&f.module, "module", "", "with --kernel, search only `MODULE` (\"vmlinux\" for vmlinux)")
	f.kernelFlags.register(cmd)
	return cmd
}

// findResult is one match in --json output.
type findResult struct {
	File string `json:"file"`
	rawdump.JSONType
}

func (c *cli) btfFind(name string, files []string, f btfFindFlags) error {
	opts := btf.FindOptions{Flavors: f.flavors}
	k, err := parseKindFlag(f.kind)
	if err != nil {
		return err
	}
	opts.Kind = k
	if stdinTwice(append(files, f.base)...) {
		return usagef("standard input (\"-\") can be only one of the FILEs and -B BASE")
	}
	w := bufio.NewWriter(c.out())
	results := newJSONArray(w)
	found := 0
	for _, file := range files {
		err := c.findInFile(file, f.base, name, opts, func(t btf.Type) error {
			found++
			if f.json {
				return results.add(findResult{File: file, JSONType: rawdump.ToJSON(t)})
			}
			if len(files) > 1 {
				w.WriteString(findLabel(file) + ": ")
			}
			return rawdump.WriteType(w, t)
		})
		if err != nil {
			return err
		}
	}
	if f.json {
		if err := results.close(); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if found == 0 {
		return notFound("type %q: %w", name, btf.ErrNotFound)
	}
	return nil
}

// findInFile calls fn for each match in one file. A file without a match
// is not an error: find prints nothing for it.
func (c *cli) findInFile(file, base, name string, opts btf.FindOptions, fn func(btf.Type) error) error {
	o, err := c.openSpec(file, base)
	if err != nil {
		return err
	}
	defer o.Close()
	boundMemory(o.spec)
	if o.base != nil {
		opts.Scope = btf.ScopeOwn
	}
	// The matches are printed as they are found, never held: a name
	// that every type of the input shares has as many matches as types.
	for t := range o.spec.Matches(name, opts) {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

func parseKindFlag(kind string) (btf.Kind, error) {
	if kind == "" {
		return btf.KindUnknown, nil
	}
	k, ok := btf.ParseKind(kind)
	if !ok {
		var names []string
		for k := btf.KindUnknown + 1; ; k++ {
			if _, ok := btf.ParseKind(k.String()); !ok {
				break
			}
			names = append(names, strings.ToLower(k.String()))
		}
		return 0, fmt.Errorf("unknown --kind %q: want one of %s", kind, strings.Join(names, ", "))
	}
	return k, nil
}

// kernelFindResult is one match of --kernel in --json output.
type kernelFindResult struct {
	Module string `json:"module"`
	rawdump.JSONType
}

// btfFindKernel searches vmlinux and the modules of the running kernel (or
// of the one under --root / --sysfs, or of a kernel package).
func (c *cli) btfFindKernel(name string, f btfFindFlags, pkg *kimage.Package) error {
	k, err := parseKindFlag(f.kind)
	if err != nil {
		return err
	}
	opts := f.options()
	where := opts.BTFDir()
	if pkg != nil {
		opts.Package, where = pkg, pkg.String()
	}
	cache := kernel.NewCache(opts)
	defer cache.Close()
	done := c.busy(fmt.Sprintf("searching the kernel's BTF in %s for %q", where, name))
	h, res, err := cache.Find(name, kernel.FindOptions{Kind: k, Flavors: f.flavors, Module: f.module})
	done()
	defer h.Release() // nil, and a no-op, when err is set
	for _, e := range res.Failed {
		fmt.Fprintf(c.stderr, "kmeta: warning: %v\n", e)
	}
	switch {
	case err == nil:
	case errors.Is(err, btf.ErrNotFound) && len(res.Failed) == 0:
		// No match: print nothing (an empty list with --json), exit 1.
		if f.json {
			if err := c.printJSON([]kernelFindResult{}); err != nil {
				return err
			}
		}
		return notFound("type %q: %w", name, btf.ErrNotFound)
	case errors.Is(err, btf.ErrNotFound):
		return fmt.Errorf("%q not found, and %d module(s) could not be searched", name, len(res.Failed))
	default:
		return err
	}
	w := bufio.NewWriter(c.out())
	if f.json {
		results := []kernelFindResult{}
		for _, m := range res.Matches {
			results = append(results, kernelFindResult{Module: m.Module, JSONType: rawdump.ToJSON(m.Type)})
		}
		if err := writeJSON(w, results); err != nil {
			return err
		}
		return w.Flush()
	}
	for _, m := range res.Matches {
		w.WriteString(escapeName(m.Module) + ": ")
		if err := rawdump.WriteType(w, m.Type); err != nil {
			return err
		}
	}
	return w.Flush()
}

// findLabel is the label of a file's matches when several files are
// searched: its name, or "(standard input)" for "-", as grep labels it.
func findLabel(file string) string {
	if file == "-" {
		return "(standard input)"
	}
	return file
}
