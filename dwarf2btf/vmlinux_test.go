package dwarf2btf_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
)

// TestVmlinux encodes a debug vmlinux, $KMETA_DEBUG_VMLINUX (587 MB for
// Debian's: too big for testdata or CI), with 1, 2 and 8 workers through
// the final deduplication, and checks that the three outputs are the same
// bytes, that they equal pahole 1.24 -j1's (the file
// $KMETA_DEBUG_VMLINUX_BTF, else pahole run now if it is installed), and,
// as root, that the kernel accepts the output (BPF_BTF_LOAD). KMETA_HEAVY=1
// too; it takes a minute.
func TestVmlinux(t *testing.T) {
	path := os.Getenv("KMETA_DEBUG_VMLINUX")
	if os.Getenv("KMETA_HEAVY") != "1" || path == "" {
		t.Skip("set KMETA_HEAVY=1 and KMETA_DEBUG_VMLINUX to a debug vmlinux (fetch-debian-kernel.sh WITH_DBG=1)")
	}
	var first []byte
	for _, jobs := range []int{1, 2, 8} {
		got, err := dwarf2btf.EncodeFile(context.Background(), path, dwarf2btf.Options{Jobs: jobs}, builder.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Errorf("-j%d: %d bytes, -j1 gave %d; first difference at byte %d", jobs, len(got), len(first), firstDiff(got, first))
		}
	}
	if want := paholeVmlinux(t, path); want != nil && !bytes.Equal(first, want) {
		t.Errorf("%d bytes, pahole -j1 wrote %d; first difference at byte %d", len(first), len(want), firstDiff(first, want))
	}
	if os.Geteuid() != 0 {
		t.Log("not root: the kernel load is not checked")
		return
	}
	if err := bpfsys.Available(); err != nil {
		t.Logf("bpf(BPF_BTF_LOAD) does not work here (%v): the kernel load is not checked", err)
		return
	}
	f, err := bpfsys.LoadBTF(first)
	if err != nil {
		t.Fatalf("the kernel rejected the vmlinux BTF: %.2000s", err)
	}
	f.Close()
}

// paholeVmlinux returns pahole -j1's BTF for the vmlinux at path: the file
// $KMETA_DEBUG_VMLINUX_BTF, else pahole's output now, or nil without pahole.
func paholeVmlinux(tb testing.TB, path string) []byte {
	tb.Helper()
	if p := os.Getenv("KMETA_DEBUG_VMLINUX_BTF"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	if _, err := exec.LookPath("pahole"); err != nil {
		tb.Log("no pahole and no $KMETA_DEBUG_VMLINUX_BTF: not compared with pahole")
		return nil
	}
	out := filepath.Join(tb.TempDir(), "vmlinux.btf")
	cmd := exec.Command("pahole", "-J", "--btf_gen_floats", "-j1", "--lang_exclude=rust", "--btf_encode_detached="+out, path)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("pahole: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestKernelAcceptsFiles loads each raw BTF file that $KMETA_LOAD_BTF
// lists (separated by colons) into the running kernel (BPF_BTF_LOAD), as
// root: bench/encode-kernel.sh runs it on the vmlinux BTF it encodes.
func TestKernelAcceptsFiles(t *testing.T) {
	list := os.Getenv("KMETA_LOAD_BTF")
	if list == "" {
		t.Skip("set KMETA_LOAD_BTF to raw BTF files to load (bench/encode-kernel.sh does)")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: BPF_BTF_LOAD needs CAP_BPF or CAP_SYS_ADMIN")
	}
	if err := bpfsys.Available(); err != nil {
		t.Skipf("bpf(BPF_BTF_LOAD) does not work here: %v", err)
	}
	for _, p := range filepath.SplitList(list) {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := bpfsys.LoadBTF(raw)
		if err != nil {
			t.Errorf("%s: the kernel rejected the BTF: %.2000s", p, err)
			continue
		}
		f.Close()
	}
}
