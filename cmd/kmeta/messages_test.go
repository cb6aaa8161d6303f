package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestMessages: the messages that tripped a new user (issue 40). An
// argument that looks like a path and does not exist is a missing file,
// not a type looked up in the running kernel; the library's prefix does
// not double the command's; cobra's own errors name the command, as every
// other error does.
func TestMessages(t *testing.T) {
	t.Parallel()
	deb := testfixtures.Path(t, testfixtures.DebianVmlinux)
	missing := filepath.Join(t.TempDir(), "old", "vmlinux.btf")
	for _, tc := range []struct {
		args   []string
		status int
		want   string // the whole line main prints
	}{
		{[]string{"btf", "layout", "task_struct", missing}, exitFailure,
			"kmeta: btf layout: btf: open " + missing + ": no such file or directory"},
		{[]string{"btf", "layout", "task_struct", "vmlinux.btf"}, exitFailure,
			"kmeta: btf layout: btf: open vmlinux.btf: no such file or directory"},
		{[]string{"btf", "layout", "no_such_struct", deb}, exitNotFound,
			`kmeta: btf layout: no struct or union "no_such_struct": btf: not found`},
		{[]string{"btf", "diff", deb}, exitFailure,
			"kmeta: btf diff: accepts 2 arg(s), received 1 (usage: kmeta btf diff OLD NEW)"},
		{[]string{"btf", "min", deb, "-o", filepath.Join(t.TempDir(), "out")}, exitFailure,
			"kmeta: btf min: missing --types NAME[,NAME...] (usage: kmeta btf min FILE [-B BASE] (--types NAME[,NAME...] | --obj OBJ...) -o OUT)"},
		{[]string{"btf", "dump", "--bogus"}, exitFailure,
			"kmeta: btf dump: unknown flag: --bogus (usage: kmeta btf dump [FILE] | id ID | prog ID | map ID [key|value|kv|all])"},
		{[]string{"ksym", "adr", "1"}, exitFailure,
			`kmeta: ksym: unknown command "adr" for "kmeta ksym", did you mean "addr"? (usage: kmeta ksym COMMAND)`},
	} {
		_, err := kmeta(t, nil, tc.args...)
		ctx := context.Background()
		if st, line := exitStatus(ctx, err), errorLine(ctx, err); st != tc.status || line != tc.want {
			t.Errorf("%v: status %d, %q\nwant status %d, %q", tc.args, st, line, tc.status, tc.want)
		}
	}
}

// TestMinDirMade: btf min -d OUTDIR makes OUTDIR and its parents, as
// mkdir -p does (issue 40: it failed when out/new did not exist); a file
// of that name stays an error.
func TestMinDirMade(t *testing.T) {
	t.Parallel()
	deb := testfixtures.Path(t, testfixtures.DebianVmlinux)
	obj := testfixtures.Path(t, "elf/prog.bpf.o.gz")
	dir := filepath.Join(t.TempDir(), "out", "new")
	if _, err := kmeta(t, nil, "btf", "min", "-d", dir, "--obj", obj, deb); err != nil {
		t.Fatal(err)
	}
	if out, err := os.ReadDir(dir); err != nil || len(out) != 1 {
		t.Errorf("the new directory holds %v (%v); want one output", out, err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	_, err := kmeta(t, nil, "btf", "min", "-d", file, "--obj", obj, deb)
	if exitStatus(context.Background(), err) != exitFailure || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("-d FILE: %v", err)
	}
}

// TestVersionWithoutVCS: a build without VCS information (-buildvcs=false,
// as GOFLAGS set it where issue 40 was found; a test binary has none
// either) says how to get a revision, or prints the one -ldflags -X
// main.revision set, instead of nothing.
func TestVersionWithoutVCS(t *testing.T) {
	v := version()
	if !strings.Contains(v, "(no VCS revision: build with -buildvcs=true)") {
		t.Errorf("version() = %q", v)
	}
	old := revision
	defer func() { revision = old }()
	revision = "0123456789abcdef"
	if v := version(); !strings.HasPrefix(v, "(devel) 0123456789ab go") {
		t.Errorf("with main.revision set: version() = %q", v)
	}
}
