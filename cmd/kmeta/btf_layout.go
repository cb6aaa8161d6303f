package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/layout"
)

type btfLayoutFlags struct {
	base      string
	kernel    bool
	json      bool
	cacheline int
}

func (c *cli) btfLayoutCmd() *cobra.Command {
	var f btfLayoutFlags
	cmd := &cobra.Command{
		Use:   "layout [NAME...] [FILE]",
		Short: "Print struct and union layouts as pahole does",
		Long: `Print the layout of the structs and unions NAME (all of them without a
NAME) of FILE (default ` + defaultVmlinux + `; --kernel says so explicitly):
members with their offsets and sizes, holes, padding, cacheline boundaries
and a summary, byte for byte as "pahole -F btf FILE" (pahole 1.24) prints
them. The last argument is taken for FILE when it is "-", an existing file,
or has a "/" or a "." (no type name has one): a missing FILE is an error.
--json gives the same facts as data.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			path := defaultVmlinux
			if n := len(args); n > 0 && !f.kernel && isFileArg(args[n-1]) {
				path, args = args[n-1], args[:n-1]
			}
			if f.kernel && f.base != "" {
				return usagef("--kernel reads the running kernel: it takes no --base")
			}
			return c.btfLayout(cmd.Context(), path, args, f)
		},
	}
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` for split BTF (module BTF on vmlinux)")
	cmd.Flags().BoolVar(&f.kernel, "kernel", false, "read the running kernel's BTF ("+defaultVmlinux+")")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	cmd.Flags().IntVar(&f.cacheline, "cacheline", layout.DefaultCacheline, "cacheline size in `BYTES`")
	return cmd
}

// isFileArg reports whether a positional argument names a file rather than
// a type: "-", a path that exists, or one that looks like a path, with a
// "/" or a "." that no C type name has ("old/vmlinux.btf", "vmlinux.btf",
// "xfs.ko.zst"); a missing one then fails as a missing file, not as a type
// not found in the running kernel.
func isFileArg(a string) bool {
	if a == "-" || strings.ContainsAny(a, "/.") {
		return true
	}
	_, err := os.Stat(a)
	return err == nil
}

func (c *cli) btfLayout(ctx context.Context, path string, names []string, f btfLayoutFlags) error {
	o, err := c.openSpec(path, f.base)
	if err != nil {
		return err
	}
	defer o.Close()
	boundMemory(o.spec)
	// Printing every layout allocates megabytes that all stay live until
	// the end, so the default collector's cycles free nothing; GOGC=400
	// makes the whole command faster (btf/layout/BENCH.md). The heap
	// stays proportional to the input.
	defer setGC(400)()
	w := bufio.NewWriterSize(c.stdout, 256<<10)
	opts := layout.Options{Names: names, Cacheline: f.cacheline}
	if f.json {
		// A document as writeJSON writes one, a member at a time.
		err = layout.WriteJSONIndent(ctx, w, o.spec, opts, "", "  ")
	} else {
		err = layout.Write(ctx, w, o.spec, opts)
	}
	if errors.Is(err, btf.ErrNotFound) {
		// A NAME that is no struct or union: nothing found, as for find
		// (and with --json, an empty list).
		if f.json {
			if err := writeJSON(w, []layout.Struct{}); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		return &statusError{status: exitNotFound, err: err}
	}
	if err != nil {
		return err
	}
	return w.Flush()
}
