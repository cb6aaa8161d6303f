package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/diff"
)

type btfDiffFlags struct {
	base    string
	baseNew string
	types   string
	reached bool
	json    bool
}

func (c *cli) btfDiffCmd() *cobra.Command {
	var f btfDiffFlags
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare two BTFs by kind and name",
		Long: `Print what changed from OLD to NEW, matching types by kind and name, never
by id: types added or removed; structs and unions whose size, members,
member offsets or member types changed; enums whose values changed;
functions whose prototype changed; typedefs that point elsewhere. Types
sharing a name are compared as a group.

-B OLD_BASE and --base-new NEW_BASE compare split BTF (modules) on their
bases; only the split types are compared. --types NAME,... compares only
those types and what they reach: the changes to the named types are
printed, then one line counting the changes to the types they reach
("reached N more changes ..."), which --reached lists instead. --json
gives the same changes as a document: "changes" (each with its details as
data: member, field, old and new value; those of reached types marked
"reached": true), their "summary", and with --types the "reached" summary. Exits 0 when the two are equal and 1 when they differ,
as diff(1) does, also when only types they reach differ.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.btfDiff(cmd.Context(), args[0], args[1], f)
		},
	}
	cmd.Flags().StringVarP(&f.base, "base", "B", "", "base BTF `FILE` of OLD")
	cmd.Flags().StringVar(&f.baseNew, "base-new", "", "base BTF `FILE` of NEW (default: the base of OLD)")
	cmd.Flags().StringVar(&f.types, "types", "", "compare only these type `NAMES` (comma separated) and what they reach")
	cmd.Flags().BoolVar(&f.reached, "reached", false, "with --types, also list the changes to the types the named ones reach")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	return cmd
}

func (c *cli) btfDiff(ctx context.Context, oldPath, newPath string, f btfDiffFlags) error {
	if f.reached && len(splitNames(f.types)) == 0 {
		return usagef("--reached goes with --types")
	}
	if oldPath == "-" && newPath == "-" {
		return usagef("OLD and NEW cannot both be standard input")
	}
	if f.baseNew == "" {
		f.baseNew = f.base
	}
	// The comparison allocates many short-lived strings and then exits: a
	// lazier collector costs less (see btf/diff/BENCH.md).
	defer setGC(400)()
	oldSpec, err := c.openSpec(oldPath, f.base)
	if err != nil {
		return err
	}
	defer oldSpec.Close()
	newSpec, err := c.openSpec(newPath, f.baseNew)
	if err != nil {
		return err
	}
	defer newSpec.Close()
	boundMemory(oldSpec.spec, newSpec.spec)
	opts := diff.Options{Types: splitNames(f.types), Workers: runtime.GOMAXPROCS(0)}
	if f.base != "" {
		opts.Scope = btf.ScopeOwn
	}
	done := c.busy("comparing " + inputName(oldPath) + " and " + inputName(newPath))
	// The changes are written as they are made, in their order: with
	// --types the named types' changes first, then the reached ones
	// (diff.Change.Reached), which only --reached prints.
	out := diff.NewStream(c.out(), f.json)
	var shown, reached diff.Summary
	err = diff.Walk(ctx, oldSpec.spec, newSpec.spec, opts, func(ch diff.Change) error {
		done()
		if ch.Reached {
			reached.Count(ch)
			if !f.reached {
				return nil
			}
		}
		shown.Count(ch)
		return out.Add(ch)
	})
	done()
	if err != nil {
		return err
	}
	var rs *diff.ReachedSummary
	if f.json && len(opts.Types) > 0 {
		rs = &diff.ReachedSummary{Summary: reached, Listed: f.reached}
	}
	if err := out.Close(shown, rs); err != nil {
		return err
	}
	if n := reached.Added + reached.Removed + reached.Changed; !f.json && !f.reached && n > 0 {
		if err := writeReachedSummary(c.out(), reached, opts.Types); err != nil {
			return err
		}
	}
	if shown.Added+shown.Removed+shown.Changed+reached.Added+reached.Removed+reached.Changed > 0 {
		return errQuiet
	}
	return nil
}

// writeReachedSummary writes the line that stands for the changes to the
// types that the named ones reach, in the changelog's columns.
func writeReachedSummary(w io.Writer, n diff.Summary, names []string) error {
	what := "these reach"
	if len(names) == 1 {
		what = names[0] + " reaches"
	}
	_, err := fmt.Fprintf(w, "%-7s %d more changes in the types %s (%d added, %d removed, %d changed): --reached lists them\n",
		"reached", n.Added+n.Removed+n.Changed, what, n.Added, n.Removed, n.Changed)
	return err
}
