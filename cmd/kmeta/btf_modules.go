package main

import (
	"bufio"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/kernel"
	"github.com/kmeta-dev/kmeta/kimage"
)

// kernelFlags say where the kernel's BTF is read: the flags --sysfs and
// --root of the commands that read the running kernel's BTF.
type kernelFlags struct {
	sysfs string
	root  string
}

func (f *kernelFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.sysfs, "sysfs", "", "read `DIR`/kernel/btf instead of /sys/kernel/btf")
	cmd.Flags().StringVar(&f.root, "root", "", "read every kernel path (sysfs, /boot, /lib/modules, ...) under `DIR`")
}

func (f *kernelFlags) options() kernel.Options {
	return kernel.Options{Root: f.root, Sysfs: f.sysfs, Workers: runtime.GOMAXPROCS(0)}
}

type btfModulesFlags struct {
	json bool
	pkg  string
	kernelFlags
}

func (c *cli) btfModulesCmd() *cobra.Command {
	var f btfModulesFlags
	cmd := &cobra.Command{
		Use:   "modules",
		Short: "List the kernel modules that have BTF, with their type counts",
		Long: `List every module of the running kernel that has BTF (/sys/kernel/btf/MODULE),
sorted by name, with the number of types of its own (split BTF over vmlinux).
A module whose BTF cannot be read is listed with "-" and its error is printed
on stderr; the command then exits with status 2, as for any failure.
--sysfs DIR reads DIR/kernel/btf instead of /sys/kernel/btf; --root DIR reads
every path under DIR. --package FILE.deb lists the modules of a Debian kernel
package instead, with their BTF on the package's vmlinux.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.pkg != "" {
				if f.sysfs != "" || f.root != "" {
					return usagef("--package reads a package: it takes no --sysfs and no --root")
				}
				pkg, err := c.openPackage(f.pkg)
				if err != nil {
					return err
				}
				return c.btfModules(f, pkg)
			}
			return c.btfModules(f, nil)
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	cmd.Flags().StringVar(&f.pkg, "package", "", "list the modules of a Debian kernel package `FILE.deb` (\"-\": standard input) instead")
	f.kernelFlags.register(cmd)
	return cmd
}

// moduleInfo is one module in --json output: its own types and the id of
// the first, or, for a module whose BTF cannot be read, the error instead.
type moduleInfo struct {
	Name    string `json:"name"`
	Types   *int   `json:"types,omitempty"`
	FirstID uint32 `json:"first_id,omitempty"`
	Error   string `json:"error,omitempty"`
}

// btfModules lists the modules of the running kernel (or of the one under
// --root / --sysfs, or of a kernel package) that have BTF.
func (c *cli) btfModules(f btfModulesFlags, pkg *kimage.Package) error {
	opts := f.options()
	opts.Package = pkg
	cache := kernel.NewCache(opts)
	defer cache.Close()
	h, err := cache.Acquire()
	if err != nil {
		return err
	}
	defer h.Release()
	names, err := h.Modules()
	if err != nil {
		return err
	}
	progress := c.progress("reading module BTF", len(names))
	infos := make([]moduleInfo, len(names))
	failed := 0
	for i, name := range names {
		infos[i].Name = name
		progress(i + 1)
		spec, err := h.Module(name)
		if err != nil {
			infos[i].Error = err.Error()
			fmt.Fprintf(c.stderr, "kmeta: warning: %v\n", err)
			failed++
			continue
		}
		infos[i].Types = ptr(spec.NumTypes())
		infos[i].FirstID = uint32(spec.FirstID())
	}
	if err := c.printModules(infos, f.json); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("the BTF of %d of %d modules could not be read", failed, len(names))
	}
	return nil
}

func (c *cli) printModules(infos []moduleInfo, asJSON bool) error {
	w := bufio.NewWriter(c.out())
	if asJSON {
		if err := writeJSON(w, infos); err != nil {
			return err
		}
		return w.Flush()
	}
	// Module names are sysfs file names: escaped as ksym escapes
	// them, so that a control character or newline in one cannot
	// break the table or reach the terminal.
	width := len("MODULE")
	for _, m := range infos {
		width = max(width, len(escapeName(m.Name)))
	}
	fmt.Fprintf(w, "%-*s %7s\n", width, "MODULE", "TYPES")
	for _, m := range infos {
		if m.Error != "" {
			fmt.Fprintf(w, "%-*s %7s\n", width, escapeName(m.Name), "-")
			continue
		}
		fmt.Fprintf(w, "%-*s %7d\n", width, escapeName(m.Name), *m.Types)
	}
	return w.Flush()
}
