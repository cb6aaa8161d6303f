package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestManPages: kmeta man DIR writes a page for every command, with its
// description, into DIR, which it makes (issue 40: there were none).
func TestManPages(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "man", "man1")
	if _, err := kmeta(t, nil, "man", dir); err != nil {
		t.Fatal(err)
	}
	root := (&cli{stdout: new(bytes.Buffer), stderr: new(bytes.Buffer)}).rootCmd()
	pages := 0
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		if !cmd.IsAvailableCommand() && cmd != root {
			return
		}
		name := strings.ReplaceAll(cmd.CommandPath(), " ", "-") + ".1"
		page, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case err != nil:
			t.Errorf("%q has no man page: %v", cmd.CommandPath(), err)
		case !bytes.Contains(page, []byte(".TH \"KMETA\" \"1\"")) || !bytes.Contains(page, []byte(strings.ReplaceAll(cmd.CommandPath(), " ", "-"))):
			t.Errorf("%s: not a man page for %q:\n%.300s", name, cmd.CommandPath(), page)
		}
		pages++
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if files, _ := filepath.Glob(filepath.Join(dir, "*.1")); len(files) != pages || pages < 20 {
		t.Errorf("%d pages written, %d commands", len(files), pages)
	}
	if _, err := kmeta(t, nil, "man"); exitStatus(t.Context(), err) != exitFailure {
		t.Errorf("man without DIR: %v", err)
	}
}
