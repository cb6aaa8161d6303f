package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// fakeSysfs builds the Debian 6.1 fake sysfs with every module.
func fakeSysfs(tb testing.TB, edit func(name string, b []byte) []byte) string {
	tb.Helper()
	if edit != nil {
		return testfixtures.FakeSysfs(tb, nil, edit)
	}
	return testfixtures.SharedFakeSysfs(tb)
}

// runKmeta runs the CLI in process.
func runKmeta(tb testing.TB, args ...string) (stdout, stderr string, err error) {
	tb.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

// fixtureType returns the id and the first raw dump line of the STRUCT or
// UNION named name in a Debian module fixture ("" for vmlinux), read
// directly with package btf.
func fixtureType(tb testing.TB, module, name string) (btf.TypeID, string) {
	tb.Helper()
	base, err := btf.Parse(testfixtures.Read(tb, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	spec := base
	if module != "" {
		if spec, err = btf.Parse(testfixtures.Modules(tb)[module], btf.Options{Base: base}); err != nil {
			tb.Fatal(err)
		}
	}
	t, err := spec.FindOne(name, btf.FindOptions{Scope: btf.ScopeOwn})
	if err != nil {
		tb.Fatal(err)
	}
	return t.ID(), fmt.Sprintf("[%d] %s '%s' size=%d vlen=%d", t.ID(), t.Kind(), name, t.Size(), t.Vlen())
}

func TestBtfFindKernel(t *testing.T) {
	t.Parallel()
	dir := fakeSysfs(t, nil)
	xfsID, xfsLine := fixtureType(t, "xfs", "xfs_mount")
	_, tlsVmlinux := fixtureType(t, "", "tls_sw_context_tx")
	_, tlsModule := fixtureType(t, "tls", "tls_sw_context_tx")

	tests := []struct {
		args  []string
		heads []string // the lines that start a match, in order
	}{
		{[]string{"xfs_mount"}, []string{"xfs: " + xfsLine}},
		{[]string{"xfs_mount", "--module", "xfs", "--kind", "struct"}, []string{"xfs: " + xfsLine}},
		{[]string{"xfs_mount", "--module", "vmlinux"}, nil},
		{[]string{"xfs_mount", "--kind", "union"}, nil},
		{[]string{"tls_sw_context_tx"}, []string{"vmlinux: " + tlsVmlinux, "tls: " + tlsModule}},
		{[]string{"xfs_mount___new", "--flavors"}, []string{"xfs: " + xfsLine}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			args := append([]string{"btf", "find", "--kernel", "--sysfs", dir}, tt.args...)
			out, errOut, err := runKmeta(t, args...)
			if tt.heads == nil { // no match: status 1
				if st := exitStatus(context.Background(), err); st != exitNotFound || out != "" {
					t.Fatalf("no match: status %d (%v), stdout %q", st, err, out)
				}
				return
			}
			if err != nil || errOut != "" {
				t.Fatalf("err %v, stderr %q", err, errOut)
			}
			var heads []string
			for _, line := range strings.Split(out, "\n") {
				if line != "" && !strings.HasPrefix(line, "\t") {
					heads = append(heads, line)
				}
			}
			if diff := cmp.Diff(tt.heads, heads); diff != "" {
				t.Errorf("matches (-want +got):\n%s\nfull output:\n%s", diff, out)
			}
		})
	}

	// The line is bpftool's, as Debian's bpftool 7.1 printed it for
	// "bpftool -B vmlinux btf dump file xfs.btf".
	golden := string(testfixtures.Read(t, "bpftool/modules/xfs.raw.txt.gz"))
	if !strings.Contains(golden, "\n"+xfsLine+"\n") {
		t.Errorf("bpftool's xfs dump has no line %q", xfsLine)
	}

	t.Run("json", func(t *testing.T) {
		out, _, err := runKmeta(t, "btf", "find", "xfs_mount", "--kernel", "--sysfs", dir, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var got []struct {
			Module string     `json:"module"`
			ID     btf.TypeID `json:"id"`
			Kind   string     `json:"kind"`
			Name   string     `json:"name"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		want := []struct {
			Module string     `json:"module"`
			ID     btf.TypeID `json:"id"`
			Kind   string     `json:"kind"`
			Name   string     `json:"name"`
		}{{"xfs", xfsID, "struct", "xfs_mount"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

func TestBtfFindKernelErrors(t *testing.T) {
	t.Parallel()
	dir := fakeSysfs(t, func(name string, b []byte) []byte {
		if name == "af_key" || name == "xfs" {
			return b[:len(b)/3]
		}
		return b
	})
	// A corrupt module is reported and the others are searched.
	out, errOut, err := runKmeta(t, "btf", "find", "tls_sw_context_tx", "--kernel", "--sysfs", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "vmlinux: [") || !strings.Contains(out, "\ntls: [") {
		t.Errorf("stdout:\n%s", out)
	}
	for _, m := range []string{"af_key", "xfs"} {
		if !strings.Contains(errOut, "warning: kernel: module "+m+": ") {
			t.Errorf("stderr has no warning for %s:\n%s", m, errOut)
		}
	}
	// Not found, but a module could not be searched: that is an error.
	if _, _, err := runKmeta(t, "btf", "find", "xfs_mount", "--kernel", "--sysfs", dir); err == nil {
		t.Error("xfs_mount with a corrupt xfs module: no error")
	}

	for _, args := range [][]string{
		{"xfs_mount", "--kernel", "--sysfs", dir, "--module", "xfs"},        // corrupt
		{"xfs_mount", "--kernel", "--sysfs", dir, "--module", "no_such"},    // unknown
		{"xfs_mount", "--kernel", "--sysfs", dir, "--module", "../vmlinux"}, // not a name
		{"xfs_mount", "--sysfs", dir},                                       // no --kernel
		{"xfs_mount", "--kernel", "--sysfs", dir, "vmlinux.btf"},            // a FILE too
		{"xfs_mount", "--kernel", "--sysfs", t.TempDir()},                   // no vmlinux
	} {
		if _, _, err := runKmeta(t, append([]string{"btf", "find"}, args...)...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func TestBtfModules(t *testing.T) {
	t.Parallel()
	dir := fakeSysfs(t, nil)
	out, errOut, err := runKmeta(t, "btf", "modules", "--sysfs", dir)
	if err != nil || errOut != "" {
		t.Fatalf("err %v, stderr %q", err, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1+1121 {
		t.Fatalf("%d lines, want a header and 1121 modules", len(lines))
	}
	if f := strings.Fields(lines[0]); !cmp.Equal(f, []string{"MODULE", "TYPES"}) {
		t.Errorf("header %q", lines[0])
	}
	counts := map[string]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		counts[f[0]] = f[1]
	}
	// Every count is the fixture's, read directly.
	base, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for file, b := range testfixtures.Modules(t) {
		s, err := btf.Parse(b, btf.Options{Base: base})
		if err != nil {
			t.Fatal(err)
		}
		total += s.NumTypes()
		name := strings.ReplaceAll(file, "-", "_")
		if got := counts[name]; got != fmt.Sprint(s.NumTypes()) {
			t.Errorf("%s: %s types, want %d", name, got, s.NumTypes())
		}
	}
	if total != 161575 {
		t.Errorf("%d module types in all, want 161575", total)
	}
	// And bpftool's: the number of types its dump of the module lists.
	for _, m := range testfixtures.DebianGoldenModules {
		dump := testfixtures.Read(t, "bpftool/modules/"+m+".raw.txt.gz")
		n := bytes.Count(dump, []byte("\n[")) + 1 // the first line starts with '['
		if got := counts[m]; got != fmt.Sprint(n) {
			t.Errorf("%s: %s types, bpftool lists %d", m, got, n)
		}
	}

	out, _, err = runKmeta(t, "btf", "modules", "--sysfs", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var infos []moduleInfo
	if err := json.Unmarshal([]byte(out), &infos); err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1121 || infos[0].FirstID != 94976 || infos[0].Types == nil || *infos[0].Types == 0 {
		t.Errorf("json: %d modules, first %+v", len(infos), infos[0])
	}
}

func TestBtfModulesCorrupt(t *testing.T) {
	t.Parallel()
	dir := fakeSysfs(t, func(name string, b []byte) []byte {
		if name == "xfs" {
			return b[:100]
		}
		return b
	})
	out, errOut, err := runKmeta(t, "btf", "modules", "--sysfs", dir)
	if err == nil {
		t.Error("no error for a corrupt module")
	}
	if !strings.Contains(errOut, "module xfs: ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("stderr:\n%s", errOut)
	}
	var xfs, other []string
	for _, l := range strings.Split(out, "\n") {
		switch f := strings.Fields(l); {
		case len(f) == 2 && f[0] == "xfs":
			xfs = f
		case len(f) == 2 && f[0] == "af_key":
			other = f
		}
	}
	if !cmp.Equal(xfs, []string{"xfs", "-"}) || len(other) != 2 || other[1] == "-" {
		t.Errorf("xfs %q, af_key %q", xfs, other)
	}
	// No module BTF at all: an empty list.
	empty := t.TempDir()
	if err := os.MkdirAll(filepath.Join(empty, "kernel", "btf"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(empty, "kernel", "btf", "vmlinux"), testfixtures.Read(t, testfixtures.DebianVmlinux), 0o444)
	out, _, err = runKmeta(t, "btf", "modules", "--sysfs", empty)
	if err != nil || strings.Count(out, "\n") != 1 {
		t.Errorf("no modules: %v, %q", err, out)
	}
}
