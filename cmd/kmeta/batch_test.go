package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// batchCase is a batch mode run on good inputs and bad ones: how to run
// it into OUTDIR, and the name of an input's output there.
type batchCase struct {
	name string
	args func(out string) []string
	good []string // the inputs that succeed
	bad  []string // a corrupt one and a truncated one
	out  func(input string) string
}

// batchCases makes, in dir, the inputs of every batch mode: two that
// succeed, one corrupt (its header claims more than the file holds, or
// its ELF header is garbage) and one truncated (cut in half).
func batchCases(t *testing.T, dir string) []batchCase {
	t.Helper()
	put := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corruptBTF := func(raw []byte) []byte {
		raw = bytes.Clone(raw)
		binary.LittleEndian.PutUint32(raw[20:], 1<<30) // str_len: far past the end
		return raw
	}
	half := func(b []byte) []byte { return b[:len(b)/2] }

	vmlinux := testfixtures.File(t, testfixtures.DebianVmlinux)
	mods := testfixtures.Modules(t)
	dedupCase := batchCase{
		name: "btf dedup --each",
		good: []string{put("af_key.btf", mods["af_key"]), put("vsock_loopback.btf", mods["vsock_loopback"])},
		bad:  []string{put("corrupt.btf", corruptBTF(mods["af_key"])), put("cut.btf", half(mods["tun"]))},
		out:  filepath.Base,
	}
	dedupCase.args = func(out string) []string {
		return []string{"btf", "dedup", "--each", "-j", "2", "-B", vmlinux, "-d", out}
	}

	vm := testfixtures.Read(t, testfixtures.DebianVmlinux)
	obj := testfixtures.Path(t, "elf/prog.bpf.o.gz")
	minCase := batchCase{
		name: "btf min -d",
		good: []string{put("k1.btf", vm), put("k2.btf", vm)},
		bad:  []string{put("kcorrupt.btf", corruptBTF(vm)), put("kcut.btf", half(vm))},
		out:  filepath.Base,
	}
	minCase.args = func(out string) []string { return []string{"btf", "min", "-j", "2", "-d", out, "--obj", obj} }

	base := testfixtures.File(t, "pahole/dwarf/kinds-x86_64.btf.gz")
	elf := testfixtures.Read(t, "dwarf/kinds-x86_64.o.gz")
	garbled := bytes.Clone(elf)
	for i := 16; i < 64; i++ {
		garbled[i] = 0xff // the ELF header after its identification
	}
	encodeCase := batchCase{
		name: "btf encode --each",
		good: []string{put("tags.ko", testfixtures.Read(t, "dwarf/tags-x86_64.o.gz")), put("percpu.ko", testfixtures.Read(t, "dwarf/percpu-x86_64.o.gz"))},
		bad:  []string{put("garbled.ko", garbled), put("halved.ko", half(elf))},
		out:  func(p string) string { return strings.TrimSuffix(filepath.Base(p), ".ko") + ".btf" },
	}
	encodeCase.args = func(out string) []string {
		return []string{"btf", "encode", "--each", "-j", "2", "-B", base, "-d", out}
	}
	return []batchCase{dedupCase, minCase, encodeCase}
}

// TestBatchPartial: in every batch mode, the inputs that succeed get
// their outputs, byte for byte those of a run without the bad inputs;
// each bad input is one line on stderr naming it, in input order; the
// status is 2. With --all-or-nothing nothing is written.
func TestBatchPartial(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, bc := range batchCases(t, dir) {
		t.Run(bc.name, func(t *testing.T) {
			// The bad inputs among the good ones, not after them.
			inputs := []string{bc.bad[0], bc.good[0], bc.bad[1]}
			inputs = append(inputs, bc.good[1:]...)

			clean := t.TempDir()
			if _, err := kmeta(t, nil, append(bc.args(clean), bc.good...)...); err != nil {
				t.Fatalf("the good inputs alone: %v", err)
			}

			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append(bc.args(out), inputs...), nil, &stdout, &stderr)
			if got := exitStatus(context.Background(), err); got != exitFailure {
				t.Fatalf("status %d (%v), want %d", got, err, exitFailure)
			}
			want := fmt.Sprintf("2 of %d ", len(inputs))
			if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line counting %q", err, want)
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if len(lines) != len(bc.bad) {
				t.Fatalf("stderr %q, want a line for each of %d bad inputs", stderr.String(), len(bc.bad))
			}
			for i, l := range lines {
				if !strings.HasPrefix(l, "kmeta: "+strings.Fields(bc.name)[0]+" ") || !strings.Contains(l, filepath.Base(bc.bad[i])) {
					t.Errorf("line %d %q: want kmeta: COMMAND: naming %s", i, l, filepath.Base(bc.bad[i]))
				}
			}
			var names []string
			for _, g := range bc.good {
				names = append(names, bc.out(g))
				got, err := os.ReadFile(filepath.Join(out, bc.out(g)))
				if err != nil {
					t.Fatal(err)
				}
				if wantData, _ := os.ReadFile(filepath.Join(clean, bc.out(g))); !bytes.Equal(got, wantData) {
					t.Errorf("%s: not what a run of the good inputs alone writes", bc.out(g))
				}
			}
			if got := dirNames(t, out); !slices.Equal(got, sortedNames(names)) {
				t.Errorf("OUTDIR holds %q, want %q", got, sortedNames(names))
			}

			whole := t.TempDir()
			args := append(bc.args(whole), "--all-or-nothing")
			if _, err := kmeta(t, nil, append(args, inputs...)...); exitStatus(context.Background(), err) != exitFailure {
				t.Errorf("--all-or-nothing: %v, want status 2", err)
			}
			if got := dirNames(t, whole); len(got) != 0 {
				t.Errorf("--all-or-nothing left %q", got)
			}
		})
	}
}

// dirNames lists what dir holds, every file and directory below it.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			names = append(names, strings.TrimPrefix(p, dir+"/"))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func sortedNames(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestBatchInterrupt interrupts btf dedup --each once it has deduplicated
// some of its modules, which wait as temporary files for the batch's end:
// kmeta exits promptly with 130 and leaves OUTDIR as it was, neither the
// complete outputs nor the temporary files.
func TestBatchInterrupt(t *testing.T) {
	t.Parallel()
	childrenOnly(t)
	bin := buildKmeta(t)
	dir := testfixtures.MemTempDir(t)
	vmlinux := testfixtures.File(t, testfixtures.DebianVmlinux)
	mod := filepath.Join(dir, "af_key.btf")
	if err := os.WriteFile(mod, testfixtures.Modules(t)["af_key"], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"btf", "dedup", "--each", "-j", "1", "-B", vmlinux, "-d", out}
	// Far more than the test waits for.
	cmd, stderr := startBatch(t, bin, append(args, linkMany(t, dir, mod, "m%d.btf", 3000)...), out)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGINT) {
		t.Fatalf("exit: %v, want status %d; stderr %q", err, 128+int(syscall.SIGINT), stderr.String())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v to exit", took)
	}
	if want := "kmeta: " + (signalCause{sig: syscall.SIGINT}).Error() + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if got := dirNames(t, out); len(got) != 0 {
		t.Errorf("left behind: %d files, the first %s", len(got), got[0])
	}
}
