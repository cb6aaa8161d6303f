package loader

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestMain skips the Examples that load programs into the running kernel
// when this process cannot: an Example has no t.Skip, and its output must
// be the same everywhere it runs.
func TestMain(m *testing.M) {
	flag.Parse()
	if why := cannotLoad(); why != "" {
		fmt.Fprintf(os.Stderr, "loader: skipping ExampleProgramOptions: %s\n", why)
		skip := "^ExampleProgramOptions$"
		if f := flag.Lookup("test.skip"); f != nil && f.Value.String() != "" {
			skip = f.Value.String() + "|" + skip
		}
		if err := flag.Set("test.skip", skip); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	code := m.Run()
	testfixtures.RemoveShared() // BenchmarkRelocateDistro's fake sysfs
	os.Exit(code)
}

// cannotLoad says why this process cannot load BPF programs against the
// running kernel's BTF, or "" if it can.
func cannotLoad() string {
	if _, err := os.Stat(testfixtures.RunningKernelBTF); err != nil {
		return fmt.Sprintf("no kernel BTF here (%v): the loads need the running kernel's types", err)
	}
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1})
	if err != nil {
		return fmt.Sprintf("cannot create a BPF map (%v): loading programs needs root or CAP_BPF and CAP_PERFMON, and the bpf() syscall", err)
	}
	m.Close()
	return ""
}

// needBPF skips the test unless this process can load BPF programs
// against the running kernel's BTF.
func needBPF(tb testing.TB) {
	tb.Helper()
	if why := cannotLoad(); why != "" {
		tb.Skip(why)
	}
}
