package bpfsys

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestLoadSocketFilter loads the trivial filter and finds its symbol,
// bpf_prog_<tag>_<name>, in /proc/kallsyms while it is loaded, and not
// after it is closed.
func TestLoadSocketFilter(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: BPF_PROG_LOAD needs CAP_BPF")
	}
	const name = "kmeta_bpfsys_t"
	f, err := LoadSocketFilter(name)
	if err != nil {
		t.Skipf("BPF_PROG_LOAD does not work here: %v", err)
	}
	if n := countKsyms(t, "_"+name); n != 1 {
		t.Errorf("%d kallsyms lines for the loaded program, want 1", n)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if n := countKsyms(t, "_"+name); n != 0 {
		t.Errorf("%d kallsyms lines after close, want 0", n)
	}
	if _, err := LoadSocketFilter("a_name_that_is_too_long"); err == nil {
		t.Error("a 23-byte name was accepted")
	}
}

// countKsyms counts the [bpf] lines of /proc/kallsyms whose name ends in
// suffix.
func countKsyms(tb testing.TB, suffix string) int {
	tb.Helper()
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		tb.Skip(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 4 && fs[3] == "[bpf]" && strings.HasSuffix(fs[2], suffix) {
			n++
		}
	}
	return n
}
