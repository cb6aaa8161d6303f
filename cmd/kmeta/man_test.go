package main

import (
	"bytes"
	"os"
	"os/exec"
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
		case !bytes.Contains(page, []byte(".TH \"KMETA\" \"1\"")) || !bytes.Contains(page, []byte(".SH NAME\n"+roffText(strings.TrimSuffix(name, ".1"))+` \- `)):
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

// TestManPagesFormat: every page is valid man(7) for groff, with no
// warning, and reads as the command's help does: the name line, the
// synopsis, each flag with its value's name, and hyphens that are
// ASCII hyphen-minus, so that a command copied from the page runs.
func TestManPagesFormat(t *testing.T) {
	t.Parallel()
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed (apt-get install groff-base)")
	}
	dir := t.TempDir()
	if _, err := kmeta(t, nil, "man", dir); err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	for _, page := range pages {
		var stderr bytes.Buffer
		cmd := exec.Command(groff, "-man", "-Tutf8", "-P-cbou", "-ww", page)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Errorf("%s: groff: %v\n%s", filepath.Base(page), err, stderr.Bytes())
		}
		if i := bytes.IndexFunc(out, func(r rune) bool { return r > 0x7f }); i >= 0 {
			t.Errorf("%s: not ASCII at %q", filepath.Base(page), out[max(i-20, 0):min(i+20, len(out))])
		}
		if filepath.Base(page) != "kmeta-btf-dump.1" {
			continue
		}
		text := strings.Join(strings.Fields(string(out)), " ")
		for _, want := range []string{
			"NAME kmeta-btf-dump - Print BTF as bpftool does (raw text, or C with --format c)",
			"SYNOPSIS kmeta btf dump [FILE] | id ID",
			"-B, --base=FILE base BTF FILE for split BTF",
			"--format=string output format: raw or c (default \"raw\")",
			"-h, --help help for dump",
			"OPTIONS INHERITED FROM PARENT COMMANDS --max-input=SIZE",
			"SEE ALSO kmeta-btf(1)",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("kmeta-btf-dump.1 does not read %q:\n%s", want, text)
			}
		}
	}
}

// TestRoffText: text that roff would take for requests or escapes is
// printed as it is written.
func TestRoffText(t *testing.T) {
	t.Parallel()
	got := roffLines(".TH x\n'br\na\\fB-b\n  indented")
	want := "\\&.TH x\n\\&'br\na\\efB\\-b\n  indented"
	if got != want {
		t.Errorf("roffLines = %q, want %q", got, want)
	}
}

// TestManDate: the pages carry the date of $SOURCE_DATE_EPOCH, for a
// reproducible build, and a value that is not a number of seconds is an
// error, with no page written.
func TestManDate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man")
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if _, err := kmeta(t, nil, "man", dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "kmeta-version.1"))
	if err != nil || !bytes.HasPrefix(page, []byte(`.TH "KMETA" "1" "Nov 2023" "kmeta `)) {
		t.Errorf("kmeta-version.1: %v\n%.100s", err, page)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	bad := filepath.Join(t.TempDir(), "bad")
	_, err = kmeta(t, nil, "man", bad)
	if exitStatus(t.Context(), err) != exitFailure || !strings.Contains(err.Error(), "SOURCE_DATE_EPOCH") {
		t.Errorf("SOURCE_DATE_EPOCH=yesterday: %v", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a bad SOURCE_DATE_EPOCH left %s: %v", bad, err)
	}
}

// TestLinkedPackages: kmeta links no package that only a rare command
// would use and that every command would pay for at start-up, in its
// package initialisation and in the binary pages that touches
// (cmd/kmeta/BENCH.md): cobra's doc generator and the markdown and YAML
// packages it brings.
func TestLinkedPackages(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-tags", "netgo,osusergo", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/spf13/cobra/doc", "github.com/russross/blackfriday", "github.com/cpuguy83/go-md2man", "go.yaml.in/yaml", "gopkg.in/yaml"} {
			if strings.HasPrefix(pkg, banned) {
				t.Errorf("kmeta links %s", pkg)
			}
		}
	}
}
