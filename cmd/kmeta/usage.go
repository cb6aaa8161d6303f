package main

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// usageError is a usage error of cmd: status 2, naming cmd's usage line.
func usageError(cmd *cobra.Command, err error) error {
	return &statusError{status: exitFailure, err: fmt.Errorf("%w (usage: %s)", err, usageLine(cmd))}
}

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

func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return errors.New("missing command")
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += fmt.Sprintf(", did you mean %q?", s[0])
	}
	return errors.New(msg)
}

// version returns kmeta's module version (or "(devel)"), its VCS revision
// if known, and the Go version and platform it was built with.
func version() string {
	v, rev := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				rev = " " + s.Value[:min(len(s.Value), 12)] + rev
			case s.Key == "vcs.modified" && s.Value == "true":
				rev += "+dirty"
			}
		}
	}
	return fmt.Sprintf("%s%s %s %s/%s", v, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func (c *cli) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print kmeta's version and the Go version it was built with",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(c.out(), "kmeta %s\n", version())
			return err
		},
	}
}
