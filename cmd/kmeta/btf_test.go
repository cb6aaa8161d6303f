package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// kmeta runs the CLI in process and returns its stdout and error.
func kmeta(tb testing.TB, stdin []byte, args ...string) (string, error) {
	tb.Helper()
	out, err := kmetaBytes(tb, stdin, args...)
	return string(out), err
}

// kmetaBytes is kmeta returning stdout as bytes.
func kmetaBytes(tb testing.TB, stdin []byte, args ...string) ([]byte, error) {
	tb.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, bytes.NewReader(stdin), &out, &errOut)
	logRefusal(args, err)
	return out.Bytes(), err
}

// logRefusal appends, with $KMETA_ERRLOG set to a file, the status and
// line of each in-process run that fails, after its arguments (tab
// separated): the refusals of a test run, to read for their wording.
func logRefusal(args []string, err error) {
	path := os.Getenv("KMETA_ERRLOG")
	if path == "" || err == nil {
		return
	}
	ctx := context.Background()
	f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if ferr != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\t%d\t%s\n", strings.Join(args, " "), exitStatus(ctx, err), errorLine(ctx, err))
}

func TestBTFDumpGolden(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	out, err := kmeta(t, nil, "btf", "dump", deb)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(testfixtures.Read(t, "bpftool/debian-6.1.raw.txt.gz")) {
		t.Fatal("btf dump differs from bpftool's")
	}
	// Split BTF from stdin, with -B, and --format raw spelled out.
	mod := testfixtures.Modules(t)["kvm"]
	out, err = kmeta(t, mod, "btf", "dump", "-", "-B", deb, "--format", "raw")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(testfixtures.Read(t, "bpftool/modules/kvm.raw.txt.gz")) {
		t.Fatal("btf dump -B differs from bpftool's")
	}
}

// TestBTFDumpLive dumps this machine's kernel BTF, the default input, and
// compares with the library's dump of the same file; btf/rawdump's
// TestBpftoolLive compares that one with bpftool's.
func TestBTFDumpLive(t *testing.T) {
	t.Parallel()
	spec, err := btf.Open(context.Background(), defaultVmlinux, btf.Options{})
	if err != nil {
		t.Skipf("no kernel BTF here: %v", err)
	}
	defer spec.Close()
	want := testfixtures.RawDump(t, spec, btf.ScopeAll)
	got, err := kmeta(t, nil, "btf", "dump")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatal("kmeta btf dump differs from rawdump.Write on " + defaultVmlinux)
	}
}

func TestBTFDumpJSON(t *testing.T) {
	t.Parallel()
	mod := testfixtures.File(t, "elf/af_key.ko.gz")
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	out, err := kmeta(t, nil, "btf", "dump", mod, "--base", deb, "--json")
	if err != nil {
		t.Fatal(err)
	}
	// JSON Lines: one type per line.
	type jsonType struct {
		ID      btf.TypeID `json:"id"`
		Kind    string     `json:"kind"`
		Name    string     `json:"name"`
		Members []struct {
			Name string `json:"name"`
		} `json:"members"`
	}
	var doc struct{ Types []jsonType }
	for line := range strings.Lines(out) {
		var tt jsonType
		if err := json.Unmarshal([]byte(line), &tt); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		doc.Types = append(doc.Types, tt)
	}
	if len(doc.Types) != 176 || doc.Types[0].ID != 94976 {
		t.Fatalf("%d types from %d; want af_key's 176 from 94976", len(doc.Types), doc.Types[0].ID)
	}
	if tt := doc.Types[3]; tt.Kind != "struct" || tt.Name != "sadb_msg" || tt.Members[0].Name != "sadb_msg_version" {
		t.Fatalf("type 94979 = %+v", tt)
	}
}

func TestBTFFind(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	host := testfixtures.File(t, testfixtures.HostVmlinux)
	out, err := kmeta(t, nil, "btf", "find", "list_head", deb, "--kind", "struct")
	if err != nil {
		t.Fatal(err)
	}
	want := "[95] STRUCT 'list_head' size=16 vlen=2\n\t'next' type_id=96 bits_offset=0\n\t'prev' type_id=96 bits_offset=64\n" // as in bpftool's dump
	if out != want {
		t.Fatalf("find list_head:\n%s\nwant:\n%s", out, want)
	}
	out, err = kmeta(t, nil, "btf", "find", "pid_t", deb, host)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 ||
		!strings.HasPrefix(lines[0], deb+": [") || !strings.HasPrefix(lines[1], host+": [") {
		t.Fatalf("find in two files:\n%s", out)
	}
	out, err = kmeta(t, nil, "btf", "find", "list_head", deb, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res []struct {
		File string     `json:"file"`
		ID   btf.TypeID `json:"id"`
		Kind string     `json:"kind"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 1 || res[0].ID != 95 || res[0].File != deb {
		t.Fatalf("find --json: %v %+v", err, res)
	}
	if _, err := kmeta(t, nil, "btf", "find", "no_such_type_xyz", deb); !errors.Is(err, btf.ErrNotFound) {
		t.Fatalf("find of a missing name: %v, want ErrNotFound", err)
	}
}

func TestBTFErrors(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	notBTF := filepath.Join(t.TempDir(), "text")
	os.WriteFile(notBTF, []byte("hello"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"btf", "dump", "/nonexistent/file"}, "no such file"},
		{[]string{"btf", "dump", notBTF}, "bad magic"},
		{[]string{"btf", "dump", deb, "--format", "yaml"}, "unknown --format"},
		{[]string{"btf", "dump", deb, "--format", "c", "--json"}, "--json works with --format raw only"},
		{[]string{"btf", "dump", deb, "--types", "x"}, "--types works with --format c only"},
		{[]string{"btf", "dump", deb, "-B", "/nonexistent"}, "base: btf: open /nonexistent"},
		{[]string{"btf", "find", "x", deb, "--kind", "bogus"}, `unknown --kind "bogus": want one of int, ptr`},
		{[]string{"btf", "find"}, "requires at least 1 arg"},
		{[]string{"btf", "dump", "a", "b"}, "accepts at most 1 arg"},
	} {
		_, err := kmeta(t, nil, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("kmeta %v: error %v, want one containing %q", tc.args, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("kmeta %v: error spans lines: %q", tc.args, err)
		}
	}
}
