package cdump_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// aafs is the type that sorts first in every Debian kernel tried (6.1,
// 6.12, 7.3), which bpftool 7.5 leaves out: an anonymous enum of AppArmor.
const aafs = "enum {\n\tAAFS_LOADDATA_ABI = 0,\n"

// golden75 is what bpftool 7.5 (Debian 13's 7.5.0+6.12.118-1) prints for a
// committed input: the SHA-256 of "bpftool [-B debian-6.1.btf] btf dump
// file FILE format c" (sorted) and "... format c unsorted" (see
// testdata/README.md), and how Write's sorted header begins where bpftool
// leaves out the type that sorts first.
type golden75 struct {
	name             string
	spec             func(testing.TB) *btf.Spec
	sorted, unsorted string
	first            string
}

var goldens75 = []golden75{
	{"host-6.18.44", hostSpec,
		"5715ae472c00b0e1eab67b0a16ec4178865d66fcb7b3a6c7eb0e1dd370e028ef",
		"7c1569270a1af87ced83b05738bebce6aac6b3d7a483b9cd4e36dd262e4f6237",
		"enum {\n\tACOMP_WALK_SLEEP = 1,\n"},
	{"debian-6.1", debianSpec,
		"c047e1855872a8410a5fb4c76daa5a12952de1554e71b6e83dbcb7e572e566b0",
		"45c0c4264eeb8e9b7a28544584c34d3b3d9fbc8f4f8483d56c080a23eb720040",
		aafs},
	{"debian-6.1 af_key", mod("af_key"),
		"6b48458e1b74cd5e4672b4603d102d284c4f26b4aff9652987c701524dd0c030",
		"7be313f181f0ef2287ad187857f59caa838450f93f461659ebbd9a3a7fc6bba1",
		aafs},
	{"debian-6.1 kvm", mod("kvm"),
		"e653f708836e8d231eb3f6a996397d3893d76d04bdadc9918b64ff399b695b4c",
		"27768777a4908a1802b2c0f1a897d455167e7764f53823a43078fd6c99c62a29",
		aafs},
	{"debian-6.1 tun", mod("tun"),
		"f88954f9efd1ee722713e999a7ad9c9dda0d6b9edf5bd57502133b45f80c1783",
		"abdd02fa39fca98d32248fcb04bc9bb080fb10fdee96f7b4cdb860c84c6510f7",
		aafs},
	{"debian-6.1 xfs", mod("xfs"),
		"e0293ffc66aa481752f6809e30950a263c024462e87e2e4bee33f8357dca8dc0",
		"1872558e1389fa6ff9d28333c4dd91963ab3fd372c8995675d93175c6d265314",
		aafs},
}

func mod(name string) func(testing.TB) *btf.Spec {
	return func(tb testing.TB) *btf.Spec { return moduleSpec(tb, name) }
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// TestGolden75 checks Write against bpftool 7.5 on the committed kernels
// and modules: unsorted byte for byte, sorted byte for byte once the type
// that bpftool leaves out is left out, and the one difference.
func TestGolden75(t *testing.T) {
	for _, g := range goldens75 {
		t.Run(g.name, func(t *testing.T) {
			if testing.Short() && strings.Contains(g.name, " ") {
				t.Skip("short: modules")
			}
			s := g.spec(t)
			if got := sha(dumpC(t, s, cdump.Options{Unsorted: true})); got != g.unsorted {
				t.Errorf("unsorted: SHA-256 %s, bpftool 7.5's is %s", got, g.unsorted)
			}
			skipped := dumpSkipFirst(t, s)
			if got := sha(skipped); got != g.sorted {
				t.Errorf("sorted, first type left out: SHA-256 %s, bpftool 7.5's is %s", got, g.sorted)
			}
			added := checkOnlyFirstAdded(t, dumpC(t, s, cdump.Options{}), skipped)
			if !strings.HasPrefix(added, g.first) {
				t.Errorf("Write adds to bpftool 7.5's header:\n%s\nwant a declaration starting %q", added, g.first)
			}
		})
	}
}

// TestAgainstBpftool75 runs bpftool 7.5, when there is one, on the
// committed host BTF and on the running kernel's.
func TestAgainstBpftool75(t *testing.T) {
	bin := bpftool75(t)
	if testing.Short() {
		t.Skip("short")
	}
	inputs := map[string][]byte{"host-6.18.44": testfixtures.Read(t, testfixtures.HostVmlinux)}
	if raw, err := os.ReadFile(testfixtures.RunningKernelBTF); err == nil {
		inputs["running kernel"] = raw
	}
	for name, raw := range inputs {
		t.Run(name, func(t *testing.T) {
			compare75(t, bin, raw, nil)
		})
	}
}

// compare75 compares Write with bpftool 7.5 on raw (split on base if base
// is not nil): sorted and unsorted.
func compare75(t *testing.T, bin string, raw, base []byte) {
	t.Helper()
	var bs *btf.Spec
	if base != nil {
		bs = parse(t, base, nil)
	}
	s := parse(t, raw, bs)
	want, err := runBpftool(t, bin, raw, base, "unsorted")
	if err != nil {
		t.Fatal(err)
	}
	if got := dumpC(t, s, cdump.Options{Unsorted: true}); !bytes.Equal(got, want) {
		t.Errorf("unsorted: differs from bpftool 7.5: %s", firstDiff(got, want))
	}
	if want, err = runBpftool(t, bin, raw, base); err != nil {
		t.Fatal(err)
	}
	skipped := dumpSkipFirst(t, s)
	if !bytes.Equal(skipped, want) {
		t.Errorf("sorted, first type left out: differs from bpftool 7.5: %s", firstDiff(skipped, want))
	}
	added := checkOnlyFirstAdded(t, dumpC(t, s, cdump.Options{}), want)
	t.Logf("Write prints, where bpftool 7.5 does not:\n%s", added)
}

// TestModern compares with bpftool 7.5 on the BTF that Debian 13's 6.12
// and 7.3 cloud kernels ship, vmlinux and modules, when KMETA_MODERN names
// the directory that ../shared/fixtures/fetch-modern.sh filled (these
// inputs are too big to commit; bench/cdump75.sh checks them too).
func TestModern(t *testing.T) {
	dir := os.Getenv("KMETA_MODERN")
	if dir == "" {
		t.Skip("KMETA_MODERN not set: no Debian 13 kernels to compare on")
	}
	bin := bpftool75(t)
	for _, k := range []string{"k612cloud", "k73cloud"} {
		shipped := filepath.Join(dir, k, "shipped")
		base, err := os.ReadFile(filepath.Join(shipped, "vmlinux.btf"))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(k+"/vmlinux", func(t *testing.T) {
			compare75(t, bin, base, nil)
			added := checkOnlyFirstAdded(t, dumpC(t, parse(t, base, nil), cdump.Options{}),
				dumpSkipFirst(t, parse(t, base, nil)))
			if !strings.HasPrefix(added, aafs) {
				t.Errorf("Write adds %q, want the AAFS_LOADDATA_ABI enum", added)
			}
		})
		for _, m := range []string{"af_key", "tun", "xfs"} {
			t.Run(k+"/"+m, func(t *testing.T) {
				raw, err := os.ReadFile(filepath.Join(shipped, m+".btf"))
				if err != nil {
					t.Fatal(err)
				}
				compare75(t, bin, raw, base)
			})
		}
	}
}

// TestCompileVmlinux75 compiles the host's sorted header with a program
// that calls kfuncs through its prototypes, with clang -target bpf.
func TestCompileVmlinux75(t *testing.T) {
	clang(t)
	compile(t, dumpC(t, hostSpec(t), cdump.Options{}), `
int size_of_task(void) { return sizeof(struct task_struct) + sizeof(struct sk_buff); }
int use_kfuncs(void)
{
	struct cgroup *cg = bpf_cgroup_from_id(1);

	if (!cg)
		return 0;
	bpf_cgroup_release(cg);
	return 1;
}`)
}

// TestCompileVmlinux75Module compiles the sorted header of a Debian 6.1
// module on its base, and the unsorted header of the host.
func TestCompileVmlinux75Module(t *testing.T) {
	clang(t)
	if testing.Short() {
		t.Skip("short")
	}
	compile(t, dumpC(t, moduleSpec(t, goldenModule), cdump.Options{}),
		"int size_of_kvm(void) { return sizeof(struct kvm_vcpu); }")
	compile(t, dumpC(t, hostSpec(t), cdump.Options{Unsorted: true}),
		"int size_of_task(void) { return sizeof(struct task_struct); }")
}

// TestSortPrintingOnly checks that sorting only the types that print
// something, as Write does, gives the same header as sorting every type,
// as bpftool does.
func TestSortPrintingOnly(t *testing.T) {
	specs := map[string]*btf.Spec{"host-6.18.44": hostSpec(t)}
	if !testing.Short() {
		specs["debian-6.1 kvm"] = moduleSpec(t, goldenModule)
	}
	for _, c := range cases {
		specs[c.name] = parse(t, c.raw(), nil)
	}
	for name, s := range specs {
		var all bytes.Buffer
		if err := cdump.WriteSortAll(&all, s, cdump.Options{}); err != nil {
			t.Fatal(err)
		}
		if got := dumpC(t, s, cdump.Options{}); !bytes.Equal(got, all.Bytes()) {
			t.Errorf("%s: sorting only the printing types changes the header: %s", name, firstDiff(got, all.Bytes()))
		}
	}
}
