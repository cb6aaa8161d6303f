package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// status runs kmeta in process and returns its stdout and the exit
// status main would give.
func status(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx := context.Background()
	err := run(ctx, args, strings.NewReader(stdin), &out, &errOut)
	msg := ""
	if printable(err) {
		msg = err.Error()
	}
	return out.String(), msg, exitStatus(ctx, err)
}

// TestExitStatuses: 0 success, 1 nothing found, 2 usage errors and every
// other failure, the same for every command.
func TestExitStatuses(t *testing.T) {
	t.Parallel()
	deb := testfixtures.File(t, testfixtures.DebianVmlinux)
	sysfs := fakeSysfs(t, nil)
	ksym := ksymFiles(t)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"btf", "find", "task_struct", deb}, 0},
		{[]string{"btf", "find", "no_such_type_xyz", deb}, 1},
		{[]string{"btf", "layout", "no_such_type_xyz", deb}, 1},
		{[]string{"btf", "layout", "task_struct", deb}, 0},
		{[]string{"btf", "find", "no_such_type_xyz", "--kernel", "--sysfs", sysfs}, 1},
		{[]string{"btf", "find", "xfs_mount", "--kernel", "--sysfs", sysfs, "--module", "vmlinux"}, 1},
		{append([]string{"ksym", "name", "no_such_symbol"}, ksym...), 1},
		{append([]string{"ksym", "name", "foo"}, ksym...), 0},
		{[]string{"btf", "dump", "/no/such/file"}, 2},
		{[]string{"btf", "dumpp"}, 2},
		{[]string{"btf"}, 2},
		{[]string{"bogus"}, 2},
		{[]string{"btf", "dump", "--bogus"}, 2},
		{[]string{"btf", "find"}, 2},
		{[]string{"help"}, 0},
		{[]string{"help", "btf", "dump"}, 0},
		{[]string{"help", "bogus"}, 2},
		{[]string{"completion", "bash"}, 0},
		{[]string{"completion", "bogus"}, 2},
	} {
		if _, msg, got := status(t, "", tc.args...); got != tc.want {
			t.Errorf("%v: status %d, want %d (%s)", tc.args, got, tc.want, msg)
		}
	}
}

// TestUsageErrors: a usage error names the command's usage line, and a
// mistyped subcommand is one.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"btf", "dumpp"}, "usage: kmeta btf COMMAND"},
		{[]string{"btf", "dmup"}, `did you mean "dump"?`},
		{[]string{"ksym", "nmae", "x"}, `did you mean "name"?`},
		{[]string{"vresion"}, `did you mean "version"?`},
		{[]string{"completion", "bassh"}, `did you mean "bash"?`},
		{[]string{"completion"}, "usage: kmeta completion COMMAND"},
		{[]string{"help", "btf", "dmup"}, `did you mean "dump"?`},
		{[]string{"btf", "help", "dmup"}, `did you mean "dump"?`},
		{[]string{"ksym", "help", "adr"}, `did you mean "addr"?`},
		{[]string{"btf"}, "usage: kmeta btf COMMAND"},
		{[]string{"ksym", "adr", "1"}, "usage: kmeta ksym COMMAND"},
		{[]string{"frob"}, "usage: kmeta COMMAND"},
		{[]string{"btf", "dump", "--bogus"}, "usage: kmeta btf dump [FILE]"},
		{[]string{"btf", "dump", "a", "b"}, "usage: kmeta btf dump [FILE]"},
		{[]string{"btf", "copy"}, "usage: kmeta btf copy FILE -o OUT"},
		// Mistakes the commands find themselves are usage errors too.
		{[]string{"btf", "copy", "x.btf"}, "missing -o OUT (\"-\" for standard output) (usage: kmeta btf copy FILE -o OUT)"},
		{[]string{"btf", "core", "x.o", "--target", "y", "--kernel"}, "exclude each other (usage: kmeta btf core OBJ"},
		{[]string{"btf", "dump", "--format", "c", "--json"}, "(usage: kmeta btf dump [FILE]"},
		{[]string{"btf", "diff", "a", "b", "--reached"}, "--reached goes with --types (usage: kmeta btf diff OLD NEW)"},
		{[]string{"btf", "dedup", "--each", "x"}, "--each needs -B BASE (usage: kmeta btf dedup"},
		{[]string{"btf", "find", "x", "--module", "m"}, "need --kernel (usage: kmeta btf find NAME [FILE...])"},
	} {
		out, msg, st := status(t, "", tc.args...)
		if st != 2 || !strings.Contains(msg, tc.want) || out != "" {
			t.Errorf("%v: status %d, error %q, stdout %q; want 2 and an error naming %q", tc.args, st, msg, out, tc.want)
		}
	}
}

// TestGroupHelp: "kmeta btf help [COMMAND]" prints what "kmeta btf
// [COMMAND] --help" prints, as "bpftool btf help" and "git help" answer.
func TestGroupHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"btf"}, {"btf", "dump"}, {"ksym"}, {"ksym", "addr"}} {
		want, msg, st := status(t, "", append(args, "--help")...)
		if st != 0 || want == "" {
			t.Fatalf("help %v: status %d %s", args, st, msg)
		}
		got, msg, st := status(t, "", append([]string{args[0], "help"}, args[1:]...)...)
		if st != 0 || got != want {
			t.Errorf("%s help %v: status %d %s, output %q; want %q", args[0], args[1:], st, msg, got, want)
		}
	}
}

// TestVersion: `kmeta version` and --version print the version; the flag,
// kmeta's own since cobra's prints through text/template (versionFlag),
// behaves as cobra's did: -v, with arguments, before a bad --max-input.
func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--version"}, {"version"}, {"-v"}, {"--version", "extra"}, {"--max-input", "bogus", "--version"}} {
		out, msg, st := status(t, "", args...)
		if st != 0 || !strings.HasPrefix(out, "kmeta ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("%v: status %d %s, output %q", args, st, msg, out)
		}
	}
}

// TestKallsymsStdin: --kallsyms - reads standard input.
func TestKallsymsStdin(t *testing.T) {
	t.Parallel()
	out, msg, st := status(t, ksymKallsyms, "ksym", "name", "bar", "--kallsyms", "-", "--sysfs", t.TempDir())
	if st != 0 || !strings.Contains(out, "ffffffff81000200 bar") {
		t.Fatalf("status %d %s, output %q", st, msg, out)
	}
}

// TestKsymData: with --data, an address in a data symbol names it.
func TestKsymData(t *testing.T) {
	t.Parallel()
	text := "ffffffff81000000 T _stext\nffffffff81000100 T _etext\nffffffff82000000 D __start_rodata\nffffffff83000000 T _sinittext\n"
	out, msg, st := status(t, text, "ksym", "addr", "ffffffff82000010", "--data", "--kallsyms", "-", "--sysfs", t.TempDir())
	if st != 0 || !strings.Contains(out, "__start_rodata+0x10") {
		t.Fatalf("status %d %s, output %q", st, msg, out)
	}
}

// TestControlCharsEscaped: names from sysfs and kallsyms that hold
// control characters are printed escaped, never raw to the terminal.
func TestControlCharsEscaped(t *testing.T) {
	t.Parallel()
	sys := t.TempDir()
	mod := filepath.Join(sys, "module", "evil\x1b[2J")
	os.MkdirAll(filepath.Join(mod, "sections"), 0o755)
	os.WriteFile(filepath.Join(mod, "sections", ".text"), []byte("0xffffffffc0000000\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "coresize"), []byte("4096\n"), 0o644)
	text := "ffffffff81000000 T _stext\nffffffff81000010 T bad\x7fname\n"
	for _, args := range [][]string{
		{"ksym", "modules"},
		{"ksym", "addr", "ffffffff81000011", "ffffffffc0000010"},
		{"ksym", "name", "bad\x7fname"},
	} {
		out, msg, _ := status(t, text, append(args, "--kallsyms", "-", "--sysfs", sys)...)
		for _, c := range out + msg {
			if c < 0x20 && c != '\n' || c == 0x7f {
				t.Errorf("%v: output %q holds control character %#x", args, out, c)
				break
			}
		}
	}
	out, _, _ := status(t, text, "ksym", "modules", "--kallsyms", "-", "--sysfs", sys)
	if !strings.Contains(out, `evil\x1b[2J`) {
		t.Errorf("modules: %q, want the name escaped", out)
	}
}

// TestKsymAddrOutsideText: without --data, an address past the end of the
// text (in rodata) is not found, rather than named after the last text
// symbol before it (_etext+0x...).
func TestKsymAddrOutsideText(t *testing.T) {
	t.Parallel()
	text := "ffffffff81000000 T _stext\nffffffff81000100 T _etext\nffffffff82000000 D __start_rodata\nffffffff83000000 T _sinittext\n"
	out, msg, st := status(t, text, "ksym", "addr", "ffffffff82000010", "ffffffff81000010", "--kallsyms", "-", "--sysfs", t.TempDir())
	if st != 1 || strings.Contains(out, "_etext") || !strings.Contains(out, "ffffffff82000010 ?") || !strings.Contains(out, "_stext+0x10") {
		t.Fatalf("status %d %s, output %q", st, msg, out)
	}
}

// TestStdinOnce: standard input can stand for one input only; naming it
// twice is refused before anything is read.
func TestStdinOnce(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"btf", "find", "x", "-", "-"},
		{"btf", "dump", "-", "-B", "-"},
		{"btf", "copy", "-", "-B", "-", "-o", "-"},
		{"btf", "dedup", "-", "-", "-o", "-"},
		{"btf", "diff", "-", "-"},
		{"btf", "core", "-", "--target", "-"},
		{"btf", "min", "-", "--obj", "-", "-o", "-"},
		{"btf", "encode", "-", "-B", "-", "-o", "-"},
	} {
		out, msg, st := status(t, "", args...)
		if st != 2 || !strings.Contains(msg, "standard input") || out != "" {
			t.Errorf("%v: status %d, error %q; want 2 and an error about standard input", args, st, msg)
		}
	}
}

// TestSplitWithoutBaseNUL: split BTF whose strings happen to start with
// NUL passes the string check and fails on a type beyond its own; the
// error still names -B, as a question.
func TestSplitWithoutBaseNUL(t *testing.T) {
	t.Parallel()
	b := bytes.Clone(testfixtures.Modules(t)["af_key"])
	hdrLen := binary.LittleEndian.Uint32(b[4:])
	strOff := binary.LittleEndian.Uint32(b[16:])
	b[hdrLen+strOff] = 0
	path := writeFile(t, t.TempDir(), "af_key.btf", b)
	for _, args := range [][]string{{"btf", "dump", path}, {"btf", "layout", path}, {"btf", "find", "x", path}} {
		_, msg, st := status(t, "", args...)
		if st != 2 || !strings.Contains(msg, "split BTF, a module's?") || !strings.Contains(msg, "-B BASE") {
			t.Errorf("%v: status %d, error %q; want 2 and an error naming -B BASE", args, st, msg)
		}
	}
}
