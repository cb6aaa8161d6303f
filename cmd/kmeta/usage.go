package main

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// usageError is a usage error of cmd: status 2, naming cmd's usage line.
func usageError(cmd *cobra.Command, err error) error {
	return &statusError{status: exitFailure, err: fmt.Errorf("%w (usage: %s)", err, usageLine(cmd)), usage: true}
}

// usagef returns a usage error found by a command's own checks (flags
// that exclude each other, a missing -o): run makes it a usageError of
// the command, naming its usage line, as cobra's own checks are.
func usagef(format string, args ...any) error {
	return &usageMistake{err: fmt.Errorf(format, args...)}
}

// usageMistake is the error usagef returns.
type usageMistake struct{ err error }

func (e *usageMistake) Error() string { return e.err.Error() }
func (e *usageMistake) Unwrap() error { return e.err }

// usageLine is cmd's usage line without cobra's "[flags]": "kmeta btf dump
// [FILE]", or "kmeta btf COMMAND" for a command that only groups others.
func usageLine(cmd *cobra.Command) string {
	if !cmd.Runnable() || cmd.HasAvailableSubCommands() {
		return cmd.CommandPath() + " COMMAND"
	}
	return strings.TrimSuffix(cmd.UseLine(), " [flags]")
}

// strictUsage makes every usage mistake under root a usage error: bad
// flags, a wrong number of arguments, and a missing or mistyped
// subcommand, which cobra answers by printing help with status 0.
func strictUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(usageError)
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		if cmd.HasAvailableSubCommands() && cmd.Run == nil && cmd.RunE == nil {
			cmd.Args = cobra.ArbitraryArgs
			cmd.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) > 0 && args[0] == "help" {
					return groupHelp(cmd, args[1:])
				}
				return usageError(cmd, unknownCommand(cmd, args))
			}
		} else if check := cmd.Args; check != nil {
			cmd.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return usageError(cmd, err)
				}
				return nil
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// groupHelp answers "kmeta btf help [COMMAND...]" as cobra answers
// "kmeta help btf [COMMAND...]" (and as "bpftool btf help" and "git help"
// do): the named subcommand's help on standard output, status 0. cobra adds
// its help command to the root only.
func groupHelp(cmd *cobra.Command, path []string) error {
	for i, name := range path {
		next := subcommand(cmd, name)
		if next == nil {
			return usageError(cmd, unknownCommand(cmd, path[i:]))
		}
		cmd = next
	}
	cmd.InitDefaultHelpFlag() // as cobra's help command does: "-h, --help" listed
	return cmd.Help()
}

// subcommand returns cmd's available subcommand called name (or one of
// its aliases), or nil.
func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() && (sub.Name() == name || slices.Contains(sub.Aliases, name)) {
			return sub
		}
	}
	return nil
}

func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return errors.New("missing command")
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := suggest(cmd, args[0]); s != "" {
		msg += fmt.Sprintf(", did you mean %q?", s)
	}
	return errors.New(msg)
}

// suggest returns the subcommand of cmd nearest to typed, as git and
// cobra suggest one: within two edits, where swapping two neighbouring
// letters is one edit ("dmup" is one from "dump", two from "dedup"), or
// the only one that typed starts. cobra's own SuggestionsFor counts a swap
// as two and lists every command within its distance unsorted (and none
// when SuggestionsMinimumDistance is left 0).
func suggest(cmd *cobra.Command, typed string) string {
	best, bestDist, prefixed := "", 3, []string{}
	for _, sub := range cmd.Commands() {
		if !sub.IsAvailableCommand() {
			continue
		}
		for _, name := range append([]string{sub.Name()}, sub.Aliases...) {
			if d := editDistance(strings.ToLower(typed), name); d < bestDist {
				best, bestDist = sub.Name(), d
			}
			if typed != "" && strings.HasPrefix(name, strings.ToLower(typed)) {
				prefixed = append(prefixed, sub.Name())
			}
		}
	}
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of neighbouring bytes.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// revision is kmeta's VCS revision when the build records none (built
// with -buildvcs=false, or from a tree without .git): a build may set it
// with -ldflags "-X main.revision=$(git rev-parse HEAD)".
var revision string

// moduleVersion is kmeta's module version: v1.2.3 when installed as a
// published module, "(devel)" when built from a clone.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// version returns kmeta's module version, its VCS revision, and the Go
// version and platform it was built with. A build from a clone without
// VCS information says so, and how to get it, instead of a revision.
func version() string {
	v, rev := moduleVersion(), ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				rev = " " + s.Value[:min(len(s.Value), 12)] + rev
			case s.Key == "vcs.modified" && s.Value == "true":
				rev += "+dirty"
			}
		}
	}
	switch {
	case rev != "" && strings.Contains(v, strings.TrimSuffix(rev[1:], "+dirty")):
		// A pseudo-version (v0.0.0-DATE-REVISION[+dirty]) says it already.
		rev = ""
	case rev != "":
	case revision != "":
		rev = " " + revision[:min(len(revision), 12)]
	case v == "(devel)":
		rev = " (no VCS revision: build with -buildvcs=true)"
	}
	return fmt.Sprintf("%s%s %s %s/%s", v, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func (c *cli) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print kmeta's version and the Go version it was built with",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.printVersion()
		},
	}
}

// printVersion writes what `kmeta version` and `kmeta --version` print.
func (c *cli) printVersion() error {
	_, err := fmt.Fprintf(c.out(), "kmeta %s\n", version())
	return err
}

// helpCmd is "kmeta help [COMMAND...]": cobra's own prints "Unknown help
// topic" for a command that does not exist, and exits 0.
func helpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND...]",
		Short: "Help about any command",
		RunE: func(cmd *cobra.Command, args []string) error {
			target, rest, err := cmd.Root().Find(args)
			if err != nil || len(rest) > 0 || target == nil {
				parent := cmd.Root()
				if target != nil {
					parent = target
				}
				name := strings.Join(args, " ")
				msg := fmt.Sprintf("no help for %q: no such command", name)
				if len(rest) > 0 {
					if s := suggest(parent, rest[0]); s != "" {
						msg += fmt.Sprintf(", did you mean %q?", s)
					}
				}
				return usageError(cmd, errors.New(msg))
			}
			return target.Help()
		},
	}
}
