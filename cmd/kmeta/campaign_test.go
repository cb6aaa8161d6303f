package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// The CLI fuzz campaign: the real kmeta binary over mutated BTF, ELF and
// compressed inputs, each run under a 1 GiB data limit (prlimit --data)
// and a time limit. A run passes if it exits 0, 1, or 2 with a one-line
// error; a panic, a runtime fatal error (out of memory under the limit), a
// signal (the OOM killer), or a timeout fails the campaign and keeps the
// input.
//
// The limit is on data (RLIMIT_DATA: writable private memory), not on
// address space (RLIMIT_AS): a Go 1.26 binary on amd64 reserves about 790
// MB of address space at start (PROT_NONE reservations for the heap's
// metadata, 8 MB for each thread's stack), so 1 GiB of address space left
// about 200 MB, and a busy machine's extra threads could exhaust it on any
// input (CI once saw glibc's malloc abort, an assertion in sysmalloc, on
// an input that 159,000 runs here under the same limit did not fail).
// Writable memory starts at about 120 MB, which leaves 900 MB: far above
// what --max-input 256M lets an input use, far below an unbounded
// allocation.
//
// Beside the mutants of real inputs, it runs issue 37's hostile shapes
// (shapeInputs: self-embedding records, deep anonymous nesting, long
// chains, wide records, big enums; and their mutants), DWARF whose types
// refer to themselves (dwarfCycles) through btf encode, and with GNU time
// (/usr/bin/time) checks each run's peak RSS against the README's rule for
// its command (peakBound). (wait4's maxrss of a child that exec.Command
// starts would count this process's own RSS at the exec.)
//
// KMETA_HEAVY=1 runs it; KMETA_CAMPAIGN sets its duration (default
// 60s), KMETA_CAMPAIGN_SEED its seed, KMETA_CAMPAIGN_OUT where failing
// inputs go.
const (
	campaignData    = 1 << 30
	campaignTimeout = 20 * time.Second
	campaignLimit   = "256M" // --max-input: well inside the 1 GiB
)

// campaignInput is one input: its bytes, and whether it is split BTF on
// the Debian base.
type campaignInput struct {
	name   string
	data   []byte
	split  bool
	shape  bool // a hostile shape (shapeInputs): raw BTF whose size the memory rule takes
	encode bool // DWARF, for btf encode
}

func TestCLIFuzzCampaign(t *testing.T) {
	t.Parallel()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("the CLI fuzz campaign: set KMETA_HEAVY=1")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("the CLI fuzz campaign: needs prlimit (util-linux)")
	}
	dur, seed := campaignSettings(t)
	bin := buildRealKmeta(t)
	dir := t.TempDir()
	base := writeFile(t, dir, "base.btf", testfixtures.Read(t, testfixtures.DebianVmlinux))
	keepDir := os.Getenv("KMETA_CAMPAIGN_OUT")
	if keepDir == "" {
		keepDir = t.TempDir()
	}
	seeds := campaignSeeds(t)
	held := append(heldBack(t), dwarfCycles(t, rand.New(rand.NewPCG(seed, 97)), 12)...)
	held = append(held, shapeInputs(t, rand.New(rand.NewPCG(seed, 99)))...)
	seeds = append(seeds, campaignInput{name: "kinds-x86_64.o", data: testfixtures.Read(t, "dwarf/kinds-x86_64.o.gz"), encode: true})
	seeds = append(seeds, shapeInputs(t, rand.New(rand.NewPCG(seed, 98)))...)
	baseBytes := testfixtures.Read(t, testfixtures.DebianVmlinux)
	baseTypes := shapeStats(baseBytes)
	timeBin := lookGNUTime()
	if timeBin == "" {
		t.Log("no GNU time (/usr/bin/time): peak RSS is not checked")
	}
	var runs, failures atomic.Int64
	check := func(w int, in campaignInput, rng *rand.Rand) {
		path := filepath.Join(dir, fmt.Sprintf("w%d-in", w))
		os.WriteFile(path, in.data, 0o644)
		out := filepath.Join(dir, fmt.Sprintf("w%d-out", w))
		args, objOnly := campaignArgs(rng, path, out, base)
		if in.encode {
			args, objOnly = []string{"btf", "encode", path, "-o", out, "--max-input", campaignLimit}, true
		}
		if in.split && !objOnly {
			args = append(args, "-B", base)
		}
		runs.Add(1)
		rep := filepath.Join(dir, fmt.Sprintf("w%d-rss", w))
		if msg := runLimited(prlimit, bin, args, timeBin, rep, peakBound(args, in, int64(len(baseBytes)), baseTypes)); msg != "" {
			n := failures.Add(1)
			keep := filepath.Join(keepDir, fmt.Sprintf("fail-%d-%s", n, in.name))
			os.WriteFile(keep, in.data, 0o644)
			t.Errorf("kmeta %s: %s (input kept in %s)", strings.Join(args, " "), msg, keep)
		}
	}
	// The held-back inputs count against the duration, so that adding
	// some keeps the campaign within its budget.
	deadline := time.Now().Add(dur)
	for _, in := range held {
		check(0, in, rand.New(rand.NewPCG(seed, 0)))
	}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(w)+1))
			for time.Now().Before(deadline) && failures.Load() < 10 {
				check(w, mutate(rng, seeds[rng.IntN(len(seeds))]), rng)
			}
		})
	}
	wg.Wait()
	t.Logf("%d runs (%d held back), %d failures", runs.Load(), len(held), failures.Load())
}

// campaignSettings returns a campaign's duration (KMETA_CAMPAIGN, default
// a minute) and seed (KMETA_CAMPAIGN_SEED, default the time), and logs
// them.
func campaignSettings(t *testing.T) (time.Duration, uint64) {
	dur := time.Minute
	if v := os.Getenv("KMETA_CAMPAIGN"); v != "" {
		var err error
		if dur, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("KMETA_CAMPAIGN_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (KMETA_CAMPAIGN_SEED), %v", seed, dur)
	return dur, seed
}

// campaignArgs picks a command to run on in. objOnly says that the command
// reads in as a BPF object (CO-RE relocations against base), never as
// split BTF.
func campaignArgs(rng *rand.Rand, in, out, base string) (args []string, objOnly bool) {
	if rng.IntN(4) == 0 {
		cmds := [][]string{
			{"btf", "core", in, "--target", base},
			{"btf", "core", in, "--target", base, "--json"},
			{"btf", "min", base, "--obj", in, "-o", out},
		}
		return append(cmds[rng.IntN(len(cmds))], "--max-input", campaignLimit), true
	}
	cmds := [][]string{
		{"btf", "dump", in},
		{"btf", "dump", "--format", "c", in},
		{"btf", "dump", "--json", in},
		{"btf", "find", "task_struct", "--flavors", in},
		{"btf", "copy", in, "-o", out},
		{"btf", "copy", in, "--endian", "big", "--elf", "-o", out},
		{"btf", "min", in, "--types", "task_struct,sock", "-o", out},
		{"btf", "layout", in},
		{"btf", "layout", "--json", in},
		{"btf", "diff", in, in, "--types", "outer,chain,wide"},
		{"btf", "diff", "--json", base, in},
		{"btf", "find", "outer", in, "--json"},
	}
	return append(cmds[rng.IntN(len(cmds))], "--max-input", campaignLimit), false
}

// runLimited runs kmeta under the data limit and the time limit, and
// under GNU time (timeBin, if not "") whose report goes to rep, and
// returns what went wrong, or "": also a peak RSS over bound.
func runLimited(prlimit, bin string, args []string, timeBin, rep string, bound int64) string {
	os.Remove(rep)
	argv := timedRSS(timeBin, rep, append([]string{prlimit, fmt.Sprintf("--data=%d", campaignData), "--core=0", "--", bin}, args...))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // GNU time's child too
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err.Error()
	}
	timer := time.AfterFunc(campaignTimeout, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	err := cmd.Wait()
	hung := !timer.Stop()
	msg := stderr.String()
	var ee *exec.ExitError
	peak := int64(-1)
	if timeBin != "" {
		peak = readRSS(rep)
	}
	switch {
	case hung:
		return fmt.Sprintf("no exit within %v", campaignTimeout)
	case strings.Contains(msg, "panic:") || strings.Contains(msg, "fatal error:") || strings.Contains(msg, "goroutine "):
		return "crashed: " + firstLine(msg)
	case err == nil && peak > bound:
		return fmt.Sprintf("peak RSS %d MB, over the documented %d MB", peak>>20, bound>>20)
	case err == nil:
		return ""
	case !errors.As(err, &ee) || ee.ExitCode() < 0:
		return fmt.Sprintf("killed: %v: %s", err, firstLine(msg))
	case ee.ExitCode() > 2:
		return fmt.Sprintf("status %d: %s", ee.ExitCode(), firstLine(msg))
	case ee.ExitCode() == 2 && (strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "kmeta: ")):
		return fmt.Sprintf("error not one line: %q", msg)
	case peak > bound:
		return fmt.Sprintf("peak RSS %d MB, over the documented %d MB", peak>>20, bound>>20)
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// campaignSeeds are real inputs from testdata, raw and in every container
// kmeta reads: module BTF (split, on the Debian base), the same in big
// endian, a BPF object and a kernel module (ELF), and their compressed
// forms.
func campaignSeeds(t *testing.T) []campaignInput {
	mods := testfixtures.Modules(t)
	obj := testfixtures.Read(t, "elf/prog.bpf.o.gz")
	ko := testfixtures.Read(t, "elf/af_key.ko.gz")
	base := testfixtures.DebianSpec(t)
	seeds := []campaignInput{
		{"af_key.btf", mods["af_key"], true, false, false},
		{"vsock_loopback.btf", mods["vsock_loopback"], true, false, false},
		{"af_key-be.btf", toBigEndian(t, mods["af_key"], base), true, false, false},
		{"prog.bpf.o", obj, false, false, false},
		{"af_key.ko", ko, true, false, false},
		{"prog-compressed.o", compressedSection(t, obj), false, false, false},
		{"fields.bpf.o", testfixtures.Read(t, "core/fields.bpf.o.gz"), false, false, false},
		{"matches.bpf.o", testfixtures.Read(t, "core/matches.bpf.o.gz"), false, false, false},
	}
	for _, s := range seeds[:4] {
		seeds = append(seeds,
			campaignInput{s.name + ".gz", gz(s.data), s.split, false, false},
			campaignInput{s.name + ".xz", xzc(t, s.data), s.split, false, false},
			campaignInput{s.name + ".zst", zst(s.data), s.split, false, false})
	}
	imgs := archImages(t) // the kernel images of issue 38
	for _, name := range slices.Sorted(maps.Keys(imgs)) {
		seeds = append(seeds, campaignInput{name: "image-" + name, data: imgs[name]})
	}
	for _, arch := range []string{"6.12-arm64", "6.12-s390x", "6.1-mips64el"} { // each one's relocations
		seeds = append(seeds, campaignInput{name: "cordic-" + arch + ".ko", data: testfixtures.Read(t, "elf/debian-"+arch+"/cordic.ko.zst"), encode: true})
	}
	return append(seeds,
		campaignInput{name: "af_key.btf.tar.xz", data: testfixtures.BTFHubArchive(t, "af_key", mods["af_key"]), split: true},
		campaignInput{name: "kernel-core.rpm", data: testfixtures.Read(t, "kimage/rpm/kernel-core-6.1.0-demo.zst.rpm")},
		campaignInput{name: "kernel-debuginfo.rpm", data: testfixtures.Read(t, "kimage/rpm/kernel-debuginfo-6.1.0-demo.rpm"), encode: true},
		campaignInput{name: "image-System.map.deb", data: sysMapPackage(t)})
}

// sysMapPackage is a Debian package of an arm64 Image with the System.map
// that places its BTF.
func sysMapPackage(t *testing.T) []byte {
	raw, _, err := btf.Extract(context.Background(), testfixtures.Read(t, "elf/prog.bpf.o.gz"), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	img := testfixtures.Arm64Image(testfixtures.KernelBody(raw))
	return testfixtures.DebPackage(t, map[string][]byte{"boot/System.map-6.12.0-x": testfixtures.SystemMap(len(raw)), "boot/vmlinuz-6.12.0-x": img},
		[]string{"boot/System.map-6.12.0-x", "boot/vmlinuz-6.12.0-x"})
}

// heldBack are the inputs that found the problems of issue 19, run
// before the mutants every time.
func heldBack(t *testing.T) []campaignInput {
	obj := testfixtures.Read(t, "elf/prog.bpf.o.gz")
	magic := testfixtures.BTFMagic
	var held []campaignInput
	for hdrLen := byte(25); hdrLen < 32; hdrLen++ { // the header panic
		held = append(held, campaignInput{fmt.Sprintf("be-hdr-%d", hdrLen), []byte{0xeb, 0x9f, 1, 0, 0, 0, 0, hdrLen, 24: 0}, false, false, false})
	}
	return append(held,
		campaignInput{"elf-bomb-10GiB", testfixtures.CompressedBTF(t, obj, append(testfixtures.Chdr64(2, 10<<30), testfixtures.ZstdZeros(-1, magic, 1<<30)...)), false, false, false},
		campaignInput{"elf-bomb-zeros", testfixtures.CompressedBTF(t, obj, append(testfixtures.Chdr64(2, 64<<20), testfixtures.ZstdZeros(-1, nil, 1<<30)...)), false, false, false},
		campaignInput{"zst-claims-2GiB", testfixtures.ZstdZeros(2<<30, magic, 4), false, false, false},
		campaignInput{"zst-stream-1GiB", testfixtures.ZstdZeros(-1, magic, 1<<30), false, false, false},
		campaignInput{"zst-junk-1GiB", testfixtures.ZstdZeros(-1, []byte("junk"), 1<<30), false, false, false},
	)
}

// mutate returns a mutant of a seed: a few byte, word or length mutations
// of the seed itself, or, for a compressed seed, sometimes of what it
// decompresses to, compressed again.
func mutate(rng *rand.Rand, s campaignInput) campaignInput {
	data := bytes.Clone(s.data)
	if strings.HasSuffix(s.name, ".gz") && rng.IntN(2) == 0 {
		if r, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			var plain bytes.Buffer
			plain.ReadFrom(r)
			return campaignInput{s.name, gz(mutateBytes(rng, plain.Bytes())), s.split, s.shape, s.encode}
		}
	}
	return campaignInput{s.name, mutateBytes(rng, data), s.split, s.shape, s.encode}
}

var interesting32 = []uint32{0, 1, 2, 3, 4, 12, 24, 0x7f, 0x80, 0xff, 0xffff, 0x10000, 0xfffff, 0x1000000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff}

func mutateBytes(rng *rand.Rand, b []byte) []byte {
	for range 1 + rng.IntN(4) {
		if len(b) < 8 {
			return append(b, byte(rng.IntN(256)))
		}
		// Most of BTF's structure sits in the first bytes (the header) and
		// in the type section: favour them.
		i := rng.IntN(len(b))
		if rng.IntN(3) == 0 {
			i = rng.IntN(min(len(b), 256))
		}
		switch rng.IntN(6) {
		case 0:
			b[i] ^= 1 << rng.IntN(8)
		case 1:
			b[i] = byte(interesting32[rng.IntN(len(interesting32))])
		case 2:
			i &^= 3
			if i+4 <= len(b) {
				binary.NativeEndian.PutUint32(b[i:], interesting32[rng.IntN(len(interesting32))])
			}
		case 3:
			b = b[:i]
		case 4:
			j := rng.IntN(len(b))
			n := rng.IntN(64)
			b = append(b[:i:i], append(bytes.Clone(b[j:min(len(b), j+n)]), b[i:]...)...)
		case 5:
			j := min(len(b), i+rng.IntN(64))
			b = append(b[:i:i], b[j:]...)
		}
	}
	return b
}

func toBigEndian(t *testing.T, split []byte, base *btf.Spec) []byte {
	s, err := btf.Parse(split, btf.Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	b, err := builder.NewSplit(base)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CopyAll(s); err != nil {
		t.Fatal(err)
	}
	out, err := b.Marshal(builder.Options{ByteOrder: binary.BigEndian})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// compressedSection returns the ELF object obj with its .BTF compressed
// (zstd, SHF_COMPRESSED), as ld --compress-debug-sections would.
func compressedSection(t *testing.T, obj []byte) []byte {
	s, err := btf.Read(context.Background(), bytes.NewReader(obj), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := builder.New()
	if err := b.CopyAll(s); err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return testfixtures.CompressedBTF(t, obj, append(testfixtures.Chdr64(2, uint64(len(raw))), zst(raw)...))
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func xzc(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zst(b []byte) []byte {
	enc, _ := zstd.NewWriter(nil)
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}
