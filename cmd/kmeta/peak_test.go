package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestPeakMemory runs the real binary on decompression bombs and a stream
// over the limit and checks that each ends with a one-line error about
// the limit (status 2) and a peak RSS within 1.2 times the limit. It
// writes gigabytes through pipes, so it runs only with KMETA_HEAVY=1; the
// limit is KMETA_PEAK_LIMIT (default 256M).
func TestPeakMemory(t *testing.T) {
	t.Parallel()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("peak memory of decompression bombs: set KMETA_HEAVY=1")
	}
	limit := int64(256 << 20)
	if v := os.Getenv("KMETA_PEAK_LIMIT"); v != "" {
		var err error
		if limit, err = input.ParseSize(v); err != nil {
			t.Fatal(err)
		}
	}
	bin := buildKmeta(t)
	timeBin := gnuTime(t)
	dir := t.TempDir()
	magic := testfixtures.BTFMagic
	obj := testfixtures.Read(t, "elf/prog.bpf.o.gz")
	files := map[string][]byte{
		"claims-2GiB.zst":    testfixtures.ZstdZeros(2<<30, magic, 4),
		"stream-2GiB.zst":    testfixtures.ZstdZeros(-1, magic, 2<<30),
		"elf-claims-10GiB.o": testfixtures.CompressedBTF(t, obj, append(testfixtures.Chdr64(2, 10<<30), testfixtures.ZstdZeros(-1, magic, 1<<20)...)),
		"elf-3GiB.o":         testfixtures.CompressedBTF(t, obj, append(testfixtures.Chdr64(2, uint64(limit)), testfixtures.ZstdZeros(-1, magic, 3<<30)...)),
	}
	for name, data := range files {
		writeFile(t, dir, name, data)
	}
	for _, name := range []string{"claims-2GiB.zst", "stream-2GiB.zst", "elf-claims-10GiB.o", "elf-3GiB.o", "stdin-3GiB"} {
		t.Run(name, func(t *testing.T) {
			// Under GNU time: the rusage of a child that exec.Command
			// starts counts the test process's own RSS at the exec
			// (peakRSS), which other tests running beside this one
			// raised past the bound in CI.
			rep := filepath.Join(t.TempDir(), "rss")
			args := []string{timeBin, "-f", "%M", "-o", rep, bin, "btf", "dump", "--max-input", strconv.FormatInt(limit, 10), filepath.Join(dir, name)}
			cmd := exec.Command(args[0], args[1:]...)
			if name == "stdin-3GiB" {
				args[len(args)-1] = "-"
				cmd = exec.Command(args[0], args[1:]...)
				w, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				go func() {
					w.Write(magic)
					io.Copy(w, io.LimitReader(zeroReader{}, 3<<30))
					w.Close()
				}()
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("exit %v, stderr %q", err, stderr.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "limit of") || !strings.Contains(msg, "--max-input") {
				t.Errorf("stderr %q, want one line about the limit", msg)
			}
			peak := readRSS(rep)
			if peak < 0 {
				t.Fatalf("no peak RSS from GNU time in %s", rep)
			}
			t.Logf("%s: peak RSS %d MiB for a limit of %d MiB (%.2fx): %s", name, peak>>20, limit>>20, float64(peak)/float64(limit), strings.TrimSpace(msg))
			if float64(peak) > 1.2*float64(limit) {
				t.Errorf("peak RSS %d bytes, over 1.2 times the %d-byte limit", peak, limit)
			}
		})
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestOutOfMemoryNamesLimit runs the real binary under a memory rlimit
// (prlimit --data) below the input limit, on a stream that grows past
// the rlimit: the error must name the input and --max-input, where it was
// the bare "mremap to 268435456 bytes: cannot allocate memory". (200 MB
// of rlimit and 300 MB of data: the doubling to 256 MiB fails.)
func TestOutOfMemoryNamesLimit(t *testing.T) {
	t.Parallel()
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit (util-linux) to set a memory rlimit")
	}
	bin := buildKmeta(t)
	const rlimit = "--data=200000000"
	if out, err := exec.Command(prlimit, rlimit, bin, "version").CombinedOutput(); err != nil {
		// The race detector's runtime alone needs more.
		t.Skipf("kmeta does not start under prlimit %s here: %v: %.100q", rlimit, err, out)
	}
	cmd := exec.Command(prlimit, rlimit, bin, "btf", "dump", "-")
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(testfixtures.BTFMagic)
		io.Copy(w, io.LimitReader(zeroReader{}, 300<<20))
		w.Close()
	}()
	err = cmd.Wait()
	msg := stderr.String()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2; stderr %q", err, msg)
	}
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "out of memory") || !strings.Contains(msg, "--max-input") ||
		!strings.Contains(msg, "stdin") || !strings.Contains(msg, "limit is 1 GiB") {
		t.Errorf("stderr %q; want one line naming the input, the limit and --max-input", msg)
	}
}
