package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// jsonForm is the form of a command's --json output (json.go).
type jsonForm int

const (
	noJSON    jsonForm = iota
	document           // one value, indented by two spaces
	jsonLines          // one compact record per line
)

// command is one row of the table of every kmeta command that
// TestConventions runs with each of the CLI's conventions. In args, IN is
// the input under test, of the kind in; OUT is an output file, OUTDIR an
// output directory; VM, SMALL, MOD, OBJ, SMALLHOST, SYSFS, KSYSFS and
// BTFID are fixtures.
type command struct {
	args    []string
	in      string   // what IN is: "btf" (vmlinux), "small" (a few of its types), "split" (af_key on -B VM), "obj", "dwarf", "deb", "kallsyms"; "" for none
	status  int      // the exit status with the fixtures: 0, or 1 for nothing found or a difference
	json    jsonForm // what --json gives
	split   bool     // IN may be split BTF: without -B, the error must name -B
	noStdin bool     // IN names files, never standard input (batch modes; ksym watch rereads it): "-" is a usage error
	stream  bool     // runs until interrupted (ksym watch)
	live    bool     // reads the running kernel's BPF objects: root and bpf() only
}

// commands is the table: every command, and each exit status it has.
// Add a row for a new command or mode.
var commands = []command{
	{args: []string{"btf", "dump", "IN"}, in: "small", json: jsonLines, split: true},
	{args: []string{"btf", "dump", "IN", "-B", "VM"}, in: "split", json: jsonLines},
	{args: []string{"btf", "dump", "MOD", "-B", "IN"}, in: "btf", json: jsonLines},
	{args: []string{"btf", "dump", "IN", "--format", "c", "--types", "list_head"}, in: "small", split: true},
	{args: []string{"btf", "find", "task_struct", "IN"}, in: "small", json: document, split: true},
	{args: []string{"btf", "find", "no_such_type", "IN"}, in: "small", status: 1, json: document},
	{args: []string{"btf", "find", "xfs_mount", "--kernel", "--sysfs", "SYSFS"}, json: document},
	{args: []string{"btf", "find", "no_such_type", "--kernel", "--sysfs", "SYSFS"}, status: 1, json: document},
	{args: []string{"btf", "find", "task_struct", "--kernel", "--package", "IN"}, in: "deb", json: document},
	{args: []string{"btf", "modules", "--sysfs", "SYSFS"}, json: document},
	{args: []string{"btf", "modules", "--package", "IN"}, in: "deb", json: document},
	{args: []string{"btf", "layout", "list_head", "IN"}, in: "small", json: document, split: true},
	{args: []string{"btf", "layout", "no_such_type", "IN"}, in: "small", status: 1, json: document},
	{args: []string{"btf", "diff", "IN", "SMALL"}, in: "small", json: document, split: true},
	{args: []string{"btf", "diff", "IN", "SMALLHOST", "--types", "list_head,sk_buff"}, in: "small", status: 1, json: document},
	{args: []string{"btf", "min", "IN", "--types", "task_struct", "-o", "OUT"}, in: "small", split: true},
	{args: []string{"btf", "min", "VM", "--obj", "IN", "-o", "OUT"}, in: "obj"},
	{args: []string{"btf", "min", "IN", "--obj", "OBJ", "-o", "OUT"}, in: "btf", split: true},
	{args: []string{"btf", "min", "-d", "OUTDIR", "--obj", "OBJ", "IN"}, in: "btf", noStdin: true},
	{args: []string{"btf", "core", "IN", "--target", "VM"}, in: "obj", json: document},
	{args: []string{"btf", "core", "OBJ", "--target", "IN"}, in: "btf", json: document, split: true},
	{args: []string{"btf", "encode", "IN", "-o", "OUT"}, in: "dwarf"},
	{args: []string{"btf", "distill", "IN", "-B", "VM", "-o", "OUT", "--elf"}, in: "split"},
	{args: []string{"btf", "copy", "IN", "-o", "OUT"}, in: "small", split: true},
	{args: []string{"btf", "dedup", "IN", "-o", "OUT"}, in: "small", split: true},
	{args: []string{"btf", "dedup", "IN", "-B", "VM", "-o", "OUT"}, in: "split"},
	{args: []string{"btf", "dedup", "--each", "-B", "VM", "-d", "OUTDIR", "IN"}, in: "split", noStdin: true},
	{args: []string{"ksym", "addr", "ffffffff81000200", "--kallsyms", "IN", "--sysfs", "KSYSFS"}, in: "kallsyms", json: document},
	{args: []string{"ksym", "addr", "1", "--kallsyms", "IN", "--sysfs", "KSYSFS"}, in: "kallsyms", status: 1, json: document},
	{args: []string{"ksym", "name", "foo", "--kallsyms", "IN", "--sysfs", "KSYSFS"}, in: "kallsyms", json: document},
	{args: []string{"ksym", "name", "no_such_symbol", "--kallsyms", "IN", "--sysfs", "KSYSFS"}, in: "kallsyms", status: 1, json: document},
	{args: []string{"ksym", "modules", "--kallsyms", "IN", "--sysfs", "KSYSFS"}, in: "kallsyms", json: document},
	{args: []string{"ksym", "stats", "--kallsyms", "IN", "--sysfs", "KSYSFS"}, in: "kallsyms", json: document},
	{args: []string{"ksym", "watch", "--kallsyms", "IN", "--sysfs", "KSYSFS"}, in: "kallsyms", json: jsonLines, stream: true, noStdin: true},
	{args: []string{"btf", "list"}, json: document, live: true},
	{args: []string{"btf", "list", "id", "4294967295"}, status: 1, json: document, live: true},
	{args: []string{"btf", "dump", "id", "BTFID"}, json: jsonLines, live: true},
	{args: []string{"btf", "dump", "id", "4294967295"}, status: 1, json: jsonLines, live: true},
	{args: []string{"btf", "dump", "prog", "4294967295"}, status: 1, json: jsonLines, live: true},
	{args: []string{"btf", "dump", "map", "4294967295"}, status: 1, json: jsonLines, live: true},
	{args: []string{"version"}},
	{args: []string{"completion", "bash"}},
}

// tableFixtures are the files the table's placeholders stand for.
type tableFixtures struct {
	vars   map[string]string // VM, SMALL, MOD, OBJ, SMALLHOST, SYSFS, KSYSFS, BTFID
	inputs map[string]string // by command.in: the file IN names
}

func newTableFixtures(t *testing.T) *tableFixtures {
	t.Helper()
	dir := t.TempDir()
	_, deb, _ := kernelImages(t)
	ksym := ksymFiles(t)
	small := smallBTF(t, testfixtures.DebianSpec(t))
	f := &tableFixtures{
		vars: map[string]string{
			"VM":        testfixtures.File(t, testfixtures.DebianVmlinux),
			"SMALL":     writeFile(t, dir, "small.btf", small),
			"SMALLHOST": writeFile(t, dir, "small-host.btf", smallBTF(t, testfixtures.HostSpec(t))),
			"MOD":       writeFile(t, dir, "af_key.btf", testfixtures.Modules(t)["af_key"]),
			"OBJ":       testfixtures.File(t, "elf/prog.bpf.o.gz"),
			"SYSFS":     fakeSysfs(t, nil),
			"KSYSFS":    ksym[3],
			"BTFID":     loadedBTFID(t, small),
		},
	}
	f.inputs = map[string]string{
		"btf":      f.vars["VM"],
		"small":    f.vars["SMALL"],
		"split":    f.vars["MOD"],
		"obj":      f.vars["OBJ"],
		"dwarf":    testfixtures.File(t, "dwarf/kinds-x86_64.o.gz"),
		"deb":      writeFile(t, dir, "linux-image.deb", deb),
		"kallsyms": ksym[1],
	}
	return f
}

// smallBTF returns the types of vmlinux (Debian's, or the host's for the
// other side of a diff) that task_struct, list_head and sk_buff need, the
// structs they reach through pointers only declared: a few hundred types
// where vmlinux has 95,000, for the commands whose work the table need not
// repeat at full size.
func smallBTF(t *testing.T, vmlinux *btf.Spec) []byte {
	t.Helper()
	want := []builder.Want{{Name: "task_struct"}, {Name: "list_head"}, {Name: "sk_buff"}}
	b, err := builder.Minimal(vmlinux, want, builder.MinimalOptions{FwdPointees: true})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// loadedBTFID loads raw into the kernel for the rest of the test, where
// the test may read the kernel's BPF objects, and returns the id of the
// new BTF object: "btf dump id" of a few hundred types is much cheaper
// than of vmlinux's (id 1). Elsewhere it returns "1":
// the live rows skip.
func loadedBTFID(t *testing.T, raw []byte) string {
	t.Helper()
	if os.Geteuid() != 0 || bpfsys.Available() != nil {
		return "1"
	}
	f, err := bpfsys.LoadBTF(raw)
	if err != nil {
		t.Fatalf("loading the small BTF: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	// The newest BTF object of raw's size that no module or program
	// owns is ours: ids only grow, and raw has a size of its own.
	id := uint32(0)
	for next := uint32(0); ; {
		var err error
		if next, err = bpfsys.NextBTFID(next); err != nil {
			break
		}
		fd, err := bpfsys.BTFByID(next)
		if err != nil {
			continue // gone meanwhile
		}
		info, err := fd.BTFInfo(nil, nil)
		fd.Close()
		if err == nil && !info.Kernel && info.NameLen == 0 && int(info.Size) == len(raw) {
			id = next
		}
	}
	if id == 0 {
		t.Fatal("the small BTF loaded, but no BTF object of its size is listed")
	}
	return strconv.FormatUint(uint64(id), 10)
}

// tableRun is one run of a command of the table.
type tableRun struct {
	stdout string
	err    error
	status int
	readIn int64 // bytes read from standard input
}

// args returns c's arguments with the placeholders filled: IN by in,
// OUT and OUTDIR by fresh paths unless given.
func (f *tableFixtures) args(t *testing.T, c command, in, out, outDir string) ([]string, string) {
	t.Helper()
	// Directories only for the commands that write (a directory made on
	// disk costs more than most runs of the table).
	if out == "" && c.has("OUT") {
		out = filepath.Join(t.TempDir(), "out.btf")
	}
	if outDir == "" && c.has("OUTDIR") {
		outDir = t.TempDir()
	}
	args := make([]string, 0, len(c.args))
	for _, a := range c.args {
		switch a {
		case "IN":
			a = in
		case "OUT":
			a = out
		case "OUTDIR":
			a = outDir
		default:
			if v, ok := f.vars[a]; ok {
				a = v
			}
		}
		args = append(args, a)
	}
	return args, out
}

// countingReader counts what is read from it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// zeros is an endless stream of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// runTable runs kmeta in process with args and stdin, as main would: a
// streaming command is interrupted by a SIGINT after a moment.
func runTable(c command, args []string, stdin io.Reader) tableRun {
	return runTableUntil(c, args, stdin, 200*time.Millisecond)
}

// runTableUntil is runTable with the time after which a command that
// runs until interrupted gets its SIGINT: a run that must fail on its own
// gives it long enough, however loaded the machine, to fail first.
func runTableUntil(c command, args []string, stdin io.Reader, interrupt time.Duration) tableRun {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	if c.stream {
		time.AfterFunc(interrupt, func() { cancel(signalCause{sig: syscall.SIGINT}) })
	}
	cr := &countingReader{r: stdin}
	var out, errOut bytes.Buffer
	err := run(ctx, args, cr, &out, &errOut)
	return tableRun{stdout: out.String(), err: err, status: exitStatus(ctx, err), readIn: cr.n.Load()}
}

// wantStatus is the status c ends with on good input: its own, or 130
// for a command that runs until SIGINT.
func (c command) wantStatus() int {
	if c.stream {
		return 128 + int(syscall.SIGINT)
	}
	return c.status
}

func (c command) has(arg string) bool {
	for _, a := range c.args {
		if a == arg {
			return true
		}
	}
	return false
}

// TestConventions runs every command of the table with each convention
// of the CLI (README, "Conventions"): its exit status; "-" for standard
// input; a wrong-magic input (/dev/zero) refused by its first bytes;
// split BTF without a base refused with an error that names -B; -o DIR
// and -d FILE refused before the work; -o /dev/null written into; --json
// in the form of its kind; usage errors with status 2 and the usage line.
func TestConventions(t *testing.T) {
	t.Parallel()
	f := newTableFixtures(t)
	for _, c := range commands {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			if c.live {
				requireLiveBPF(t)
			}
			in := f.inputs[c.in]
			args, _ := f.args(t, c, in, "", "")
			r := runTable(c, args, strings.NewReader(""))
			if r.status != c.wantStatus() {
				t.Fatalf("status %d (%v), want %d", r.status, r.err, c.wantStatus())
			}
			checkErrorLine(t, r.err)
			if c.in != "" {
				t.Run("stdin", func(t *testing.T) { testStdin(t, f, c, in, r) })
			}
			if c.in != "" {
				t.Run("wrong magic", func(t *testing.T) { testWrongMagic(t, f, c) })
			}
			if c.split {
				t.Run("split without base", func(t *testing.T) {
					args, _ := f.args(t, c, f.vars["MOD"], "", "")
					r := runTable(c, args, strings.NewReader(""))
					if r.status != exitFailure || r.err == nil || !strings.Contains(r.err.Error(), "-B BASE") {
						t.Errorf("status %d, error %v; want 2 and an error naming -B BASE", r.status, r.err)
					}
				})
			}
			if c.has("OUT") || c.has("OUTDIR") {
				t.Run("output checked first", func(t *testing.T) { testOutputFirst(t, f, c) })
			}
			if c.has("OUT") {
				t.Run("-o /dev/null", func(t *testing.T) {
					args, _ := f.args(t, c, in, os.DevNull, "")
					if r := runTable(c, args, strings.NewReader("")); r.status != c.wantStatus() {
						t.Errorf("status %d (%v), want %d", r.status, r.err, c.wantStatus())
					}
				})
			}
			if c.json != noJSON {
				t.Run("json", func(t *testing.T) {
					r := runTable(c, append(args, "--json"), strings.NewReader(""))
					if r.status != c.wantStatus() {
						t.Fatalf("status %d (%v), want %d", r.status, r.err, c.wantStatus())
					}
					if c.json == jsonLines && c.status == 1 && r.stdout == "" {
						return // nothing found: no record
					}
					checkJSONForm(t, c.json, r.stdout)
				})
			}
			t.Run("usage error", func(t *testing.T) {
				r := runTable(c, append(args, "--no-such-flag"), strings.NewReader(""))
				if r.status != exitFailure || r.err == nil || !strings.Contains(r.err.Error(), "(usage: kmeta ") {
					t.Errorf("status %d, error %v; want 2 and the usage line", r.status, r.err)
				}
			})
		})
	}
}

// checkErrorLine: an error is printed as one line.
func checkErrorLine(t *testing.T, err error) {
	t.Helper()
	if printable(err) && strings.ContainsAny(err.Error(), "\n\r") {
		t.Errorf("error of more than one line: %q", err.Error())
	}
}

// testStdin: "-" reads the input from standard input, with the result of
// the file.
func testStdin(t *testing.T, f *tableFixtures, c command, in string, byFile tableRun) {
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := f.args(t, c, "-", "", "")
	interrupt := 200 * time.Millisecond
	if c.noStdin {
		interrupt = time.Minute // the run must fail on its own
	}
	r := runTableUntil(c, args, bytes.NewReader(data), interrupt)
	if c.noStdin {
		if r.status != exitFailure || r.err == nil || !strings.Contains(r.err.Error(), "stdin") && !strings.Contains(r.err.Error(), "standard input") {
			t.Errorf("status %d, error %v; want 2 and an error saying why not standard input", r.status, r.err)
		}
		return
	}
	if r.status != c.wantStatus() {
		t.Fatalf("status %d (%v), want %d as for the file", r.status, r.err, c.wantStatus())
	}
	if r.readIn == 0 {
		t.Errorf("read nothing from standard input")
	}
	// Timings (ksym stats) and names of inputs may differ; the rest not.
	if !c.has("stats") && !c.stream && !c.has("--package") && strings.ReplaceAll(r.stdout, "standard input", in) != byFile.stdout {
		t.Errorf("output differs from the file's: %d bytes against %d", len(r.stdout), len(byFile.stdout))
	}
}

// testWrongMagic: an input that cannot be of the right kind is refused
// by its first bytes, as a file (/dev/zero) and on standard input, long
// before the input limit: 64 MiB here, and the error must not be about
// the limit, nor more than a few MiB read.
func testWrongMagic(t *testing.T, f *tableFixtures, c command) {
	args, _ := f.args(t, c, "/dev/zero", "", "")
	r := runTableUntil(c, append(args, "--max-input", "64M"), strings.NewReader(""), time.Minute)
	if r.status != exitFailure || r.err == nil || strings.Contains(r.err.Error(), "limit") {
		t.Errorf("/dev/zero: status %d, error %v; want 2 and an error about what the input is", r.status, r.err)
	}
	checkErrorLine(t, r.err)
	if c.noStdin {
		return
	}
	args, _ = f.args(t, c, "-", "", "")
	r = runTable(c, append(args, "--max-input", "64M"), zeros{})
	if r.status != exitFailure || r.err == nil || strings.Contains(r.err.Error(), "limit") || r.readIn > 8<<20 {
		t.Errorf("zeros on stdin: status %d, error %v, %d bytes read; want 2 and an error about what the input is, after a few MiB at most", r.status, r.err, r.readIn)
	}
}

// testOutputFirst: -o DIR (or -d FILE) is refused before the work, that
// is before the input is read: with /dev/zero as input, the error is the
// output's.
func testOutputFirst(t *testing.T, f *tableFixtures, c command) {
	dir := t.TempDir()
	file := writeFile(t, dir, "file", nil)
	in := "/dev/zero"
	if c.in == "" {
		in = f.inputs["btf"]
	}
	args, _ := f.args(t, c, in, dir, file)
	r := runTable(c, args, strings.NewReader(""))
	want := "-o " + dir + ": is a directory"
	if c.has("OUTDIR") {
		want = "-d " + file + ": not a directory"
	}
	if r.status != exitFailure || r.err == nil || !strings.Contains(r.err.Error(), want) {
		t.Errorf("status %d, error %v; want 2 and %q", r.status, r.err, want)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left in the output directory: %v", ents)
	}
}

// checkJSONForm checks that out is JSON of form: a document indented by
// two spaces, or JSON Lines; neither escapes <, > or &.
func checkJSONForm(t *testing.T, form jsonForm, out string) {
	t.Helper()
	for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
		if strings.Contains(out, esc) {
			t.Errorf("JSON escapes %s", esc)
		}
	}
	switch form {
	case document:
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil || v == nil {
			t.Fatalf("not one JSON document (%v): %.200q", err, out)
		}
		var want bytes.Buffer
		json.Indent(&want, compactJSON(t, out), "", "  ")
		want.WriteByte('\n')
		if want.String() != out {
			t.Errorf("not indented by two spaces: %.200q", out)
		}
	case jsonLines:
		if out == "" {
			t.Fatal("no JSON lines")
		}
		for line := range strings.Lines(out) {
			var v map[string]any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("line %.200q: %v", line, err)
			}
			if string(compactJSON(t, line))+"\n" != line {
				t.Fatalf("line not compact: %.200q", line)
			}
		}
	}
}

func compactJSON(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCompletion: "kmeta completion bash" prints a bash completion
// script, and the completion it calls names the subcommands.
func TestCompletion(t *testing.T) {
	t.Parallel()
	out, msg, st := status(t, "", "completion", "bash")
	if st != 0 || !strings.Contains(out, "__start_kmeta") {
		t.Fatalf("completion bash: status %d %s, %d bytes", st, msg, len(out))
	}
	out, msg, st = status(t, "", "__complete", "btf", "d")
	if st != 0 || !strings.Contains(out, "dump") || !strings.Contains(out, "diff") || !strings.Contains(out, "dedup") {
		t.Errorf("__complete btf d: status %d %s, %q", st, msg, out)
	}
}

// TestWrongMagicCost runs the real binary on /dev/zero and with -o DIR
// for every command of the table that takes them, and logs the time and
// peak RSS each takes to fail (the README quotes them). It asserts only
// that each fails with status 2, naming its input or output, well below
// the memory an input read to the 1 GiB limit takes. The peak RSS comes
// from /usr/bin/time where there is one: a child's own maxrss also counts
// the RSS of the test process it was cloned from (see TestPeakMemory),
// which is not the child's. TestConventions checks the same failures in
// process; these 40 processes run with KMETA_HEAVY=1, as TestPeakMemory's
// (.ci/run).
func TestWrongMagicCost(t *testing.T) {
	t.Parallel()
	testfixtures.SkipUnlessHeavy(t, "40 processes of the real binary")
	bin := buildKmeta(t)
	timeBin, _ := exec.LookPath("/usr/bin/time")
	f := newTableFixtures(t)
	for _, c := range commands {
		for _, mode := range []string{"/dev/zero", "-o DIR"} {
			in, out, outDir := "/dev/zero", "", ""
			if mode == "-o DIR" {
				if !c.has("OUT") && !c.has("OUTDIR") {
					continue
				}
				in, out, outDir = f.inputs[c.in], t.TempDir(), writeFile(t, t.TempDir(), "file", nil)
			} else if c.in == "" {
				continue
			}
			args, _ := f.args(t, c, in, out, outDir)
			cmd := exec.Command(bin, args...)
			rssFile := filepath.Join(t.TempDir(), "rss")
			if timeBin != "" {
				cmd = exec.Command(timeBin, append([]string{"-f", "%M", "-o", rssFile, bin}, args...)...)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
				t.Errorf("%s, %v: %v, want status 2; stderr %q", mode, c.args, err, stderr.String())
				continue
			}
			named := in
			switch {
			case mode == "/dev/zero":
			case c.has("OUT"):
				named = out
			default:
				named = outDir
			}
			if !strings.Contains(stderr.String(), named) {
				t.Errorf("%s, %v: stderr %q does not name %s", mode, c.args, stderr.String(), named)
			}
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			if b, err := os.ReadFile(rssFile); err == nil {
				// time's last line is the child's peak RSS in KiB.
				lines := strings.Fields(string(b))
				if _, err := fmt.Sscan(lines[len(lines)-1], &rss); err == nil {
					rss <<= 10
				}
			}
			t.Logf("%-9s %5.1f ms %5.1f MiB  %s", mode, took.Seconds()*1e3, float64(rss)/(1<<20), strings.Join(c.args, " "))
			if rss > 64<<20 && timeBin != "" {
				t.Errorf("%s, %v: peak RSS %d MiB", mode, c.args, rss>>20)
			}
		}
	}
}

// requireLiveBPF skips a test that reads the running kernel's BPF objects
// where that is not allowed (not root, or no bpf()).
func requireLiveBPF(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: the kernel's BPF objects need CAP_SYS_ADMIN")
	}
	if err := bpfsys.Available(); err != nil {
		t.Skipf("bpf() unavailable: %v", err)
	}
}
