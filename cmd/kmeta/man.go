package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/internal/atomicfile"
)

// manCmd is "kmeta man DIR": a man page for every command, made from the
// commands' own help (manPage).
func (c *cli) manCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write a man page for every command into DIR",
		Long: `Write a man page (section 1) for kmeta and each of its commands into DIR,
made as mkdir -p does: kmeta.1, kmeta-btf.1, kmeta-btf-dump.1, ... Read
one with "man DIR/kmeta-btf-layout.1", or install them all with
"kmeta man /usr/local/share/man/man1". The pages are dated today, or
$SOURCE_DATE_EPOCH.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			date, err := manDate()
			if err != nil {
				return err
			}
			if err := checkOutputDir(args[0]); err != nil {
				return err
			}
			return c.writeManPages(cmd.Root(), args[0], date)
		},
	}
}

// writeManPages writes the page of cmd and of every command under it into
// dir, each file atomically, dated date.
func (c *cli) writeManPages(cmd *cobra.Command, dir string, date time.Time) error {
	if c.ctx != nil && c.ctx.Err() != nil {
		return c.ctx.Err()
	}
	if cmd.HasParent() && !cmd.IsAvailableCommand() {
		return nil // help, and hidden commands
	}
	cmd.InitDefaultHelpFlag() // cobra adds -h only to the command it runs
	path := filepath.Join(dir, strings.ReplaceAll(cmd.CommandPath(), " ", "-")+".1")
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return manPage(w, cmd, date) })
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, sub := range cmd.Commands() {
		if err := c.writeManPages(sub, dir, date); err != nil {
			return err
		}
	}
	return nil
}
