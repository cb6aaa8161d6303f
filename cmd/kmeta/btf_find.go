package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
)

type btfFindFlags struct {
	base    string
	kind    string
	flavors bool
	json    bool
}

func (c *cli) btfFindCmd() *cobra.Command {
	var f btfFindFlags
	cmd := &cobra.Command{
		Use:   "find NAME [FILE...]",
		Short: "Find types by name in BTF files",
		Long: `Print every type named NAME in each FILE (default ` + defaultVmlinux + `),
in bpftool's raw format. With several files each line starts with "FILE: ".
--flavors also matches CO-RE flavors: NAME___suffix.
Prints nothing, and exits with status 0, when there is no match.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
	return cmd
}

// findResult is one match in --json output.
type findResult struct {
	File string `json:"file"`
	rawdump.JSONType
}

func (c *cli) btfFind(name string, files []string, f btfFindFlags) error {
	opts := btf.FindOptions{Flavors: f.flavors}
	if f.kind != "" {
		k, ok := btf.ParseKind(f.kind)
		if !ok {
			return fmt.Errorf("unknown kind %q", f.kind)
		}
		opts.Kind = k
	}
	w := bufio.NewWriter(c.stdout)
	results := []findResult{}
	for _, file := range files {
		err := c.findInFile(file, f.base, name, opts, func(t btf.Type) error {
			if f.json {
				results = append(results, findResult{File: file, JSONType: rawdump.ToJSON(t)})
				return nil
			}
			if len(files) > 1 {
				w.WriteString(file + ": ")
			}
			return rawdump.WriteType(w, t)
		})
		if err != nil {
			return err
		}
	}
	if f.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			return err
		}
	}
	return w.Flush()
}

// findInFile calls fn for each match in one file. A file without a match
// is not an error: find prints nothing for it.
func (c *cli) findInFile(file, base, name string, opts btf.FindOptions, fn func(btf.Type) error) error {
	o, err := c.openSpec(file, base)
	if err != nil {
		return err
	}
	defer o.Close()
	if o.base != nil {
		opts.Scope = btf.ScopeOwn
	}
	ts, err := o.spec.Find(name, opts)
	if errors.Is(err, btf.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}
