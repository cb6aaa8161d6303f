package rawdump_test

import (
	"bytes"
	"context"
	"os/exec"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// The goldens are bpftool 7.1's output (testdata/README.md), never ours.
func TestGoldenVmlinux(t *testing.T) {
	for _, tc := range []struct{ btf, golden string }{
		{testfixtures.HostVmlinux, "bpftool/host-6.18.44.raw.txt.gz"},
		{testfixtures.DebianVmlinux, "bpftool/debian-6.1.raw.txt.gz"},
	} {
		t.Run(tc.btf, func(t *testing.T) {
			s, err := btf.Parse(testfixtures.Read(t, tc.btf), btf.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := rawdump.Write(&got, s, rawdump.Options{}); err != nil {
				t.Fatal(err)
			}
			testfixtures.CompareLines(t, got.Bytes(), testfixtures.Read(t, tc.golden))
		})
	}
}

func TestGoldenModules(t *testing.T) {
	base, err := btf.Parse(testfixtures.Read(t, testfixtures.DebianVmlinux), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mods := testfixtures.Modules(t)
	for _, name := range testfixtures.DebianGoldenModules {
		t.Run(name, func(t *testing.T) {
			s, err := btf.Parse(mods[name], btf.Options{Base: base})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := rawdump.Write(&got, s, rawdump.Options{Scope: btf.ScopeOwn}); err != nil {
				t.Fatal(err)
			}
			testfixtures.CompareLines(t, got.Bytes(), testfixtures.Read(t, "bpftool/modules/"+name+".raw.txt.gz"))
		})
	}
}

// TestBpftoolRunningKernel compares with bpftool on the kernel this test
// runs on, when the goldens do not already cover its BTF.
func TestBpftoolRunningKernel(t *testing.T) {
	testfixtures.SkipIfHostFixture(t)
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("needs bpftool (apt-get install bpftool)")
	}
	want, err := exec.Command(bpftool, "btf", "dump", "file", testfixtures.RunningKernelBTF).Output()
	if err != nil {
		t.Fatalf("bpftool: %v", err)
	}
	s, err := btf.Open(context.Background(), testfixtures.RunningKernelBTF, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testfixtures.CompareLines(t, testfixtures.RawDump(t, s, btf.ScopeAll), want)
}
