package cdump_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// aafs is the type that sorts first in every Debian kernel tried (6.1,
// 6.12, 7.3), which bpftool 7.5 leaves out: an anonymous enum of AppArmor.
const aafs = "enum {\n\tAAFS_LOADDATA_ABI = 0,\n"

// golden75 is what bpftool 7.5 (Debian 13's 7.5.0+6.12.118-1) prints for a
// committed input: the SHA-256 of "bpftool [-B BASE] btf dump file FILE
// format c" (sorted) and "... format c unsorted" (see testdata/README.md),
// and how Write's sorted header begins where bpftool leaves out the type
// that sorts first; for Debian 13's kernels also the SHA-256 of Debian
// 12's bpftool 7.1 "format c" (the other goldens of 7.1 are whole headers,
// in cdump_test.go).
//
// The plain "go test" checks two of them: Debian 13's 6.12 (7.5 and 7.1)
// and a Debian 6.1 module on its base; each is a vmlinux-sized dump, four
// times, so the others run with KMETA_HEAVY=1 (.ci/run). (cmd/kmeta's
// TestBTFDumpC75 also checks the host's unsorted header against 7.5's.)
type golden75 struct {
	name             string
	spec             func(testing.TB) *btf.Spec
	sorted, unsorted string
	first            string
	v71              string
}

// plain75 are the goldens75 that run without KMETA_HEAVY.
var plain75 = map[string]bool{"debian-6.12": true, "debian-6.1 af_key": true}

var goldens75 = []golden75{
	{"host-6.18.44", hostSpec,
		"5715ae472c00b0e1eab67b0a16ec4178865d66fcb7b3a6c7eb0e1dd370e028ef",
		"7c1569270a1af87ced83b05738bebce6aac6b3d7a483b9cd4e36dd262e4f6237",
		"enum {\n\tACOMP_WALK_SLEEP = 1,\n", ""},
	{"debian-6.1", debianSpec,
		"c047e1855872a8410a5fb4c76daa5a12952de1554e71b6e83dbcb7e572e566b0",
		"45c0c4264eeb8e9b7a28544584c34d3b3d9fbc8f4f8483d56c080a23eb720040",
		aafs, ""},
	{"debian-6.1 af_key", mod("af_key"),
		"6b48458e1b74cd5e4672b4603d102d284c4f26b4aff9652987c701524dd0c030",
		"7be313f181f0ef2287ad187857f59caa838450f93f461659ebbd9a3a7fc6bba1",
		aafs, ""},
	{"debian-6.1 kvm", mod("kvm"),
		"e653f708836e8d231eb3f6a996397d3893d76d04bdadc9918b64ff399b695b4c",
		"27768777a4908a1802b2c0f1a897d455167e7764f53823a43078fd6c99c62a29",
		aafs, ""},
	{"debian-6.1 tun", mod("tun"),
		"f88954f9efd1ee722713e999a7ad9c9dda0d6b9edf5bd57502133b45f80c1783",
		"abdd02fa39fca98d32248fcb04bc9bb080fb10fdee96f7b4cdb860c84c6510f7",
		aafs, ""},
	{"debian-6.1 xfs", mod("xfs"),
		"e0293ffc66aa481752f6809e30950a263c024462e87e2e4bee33f8357dca8dc0",
		"1872558e1389fa6ff9d28333c4dd91963ab3fd372c8995675d93175c6d265314",
		aafs, ""},
	// Debian 13's kernels: the BTF they ship, kfunc tags and all.
	{"debian-6.12", modern("6.12", ""),
		"684b0f366b3efebb0a5fac1b93d145f73dc9e044a574b70330554cba1297a54d",
		"d931a52777338ce00ce247de0bd7728629d3e64f9951628a6327eddc95a644d4",
		aafs, "ecfe9431e5742021f764595f6a9e3a112b7e34170b63b7313d27b634e55f00b4"},
	{"debian-6.12 af_key", modern("6.12", "af_key"),
		"6fdb4df7ae675d71fb2e60ddca45db566f9b57a6c2003de20909be0fffb4c7bd",
		"9c5ea12d4391d077cd23626795050b910c05100f47c20298d53df31adf3d02a4",
		aafs, "72e635d29e95a2e2c7c4d9414957de9fa1106209159010d5603673c39e727184"},
	{"debian-6.12 tun", modern("6.12", "tun"),
		"3e8e7efab901cf4e6a0293511c3b0146bddf4c830772e1162f190856d77d73df",
		"e61f5a26e81fc5c18267d7b659d6ca696a39a4bf17b0102a293d5c6c467c0872",
		aafs, "9770d2295f09fcefbc0f5ba25f57c581454c8db5e847e04331666bb3acc77143"},
	{"debian-7.3", modern("7.3", ""),
		"704030de691418adbaa4c005a0c441414ce96d179909056516db8aafe69caafc",
		"3e1e6ec4c73a493b4ace32ef71688dd5b316b6543221f01912d7e493971440b8",
		aafs, "0986714f2d8a2fc3aa5f9c6f241c6f578bfa481888824804725af1d467490869"},
	{"debian-7.3 af_key", modern("7.3", "af_key"),
		"1aa12796ea04fc251c631da27618542fddfacbaa487dceb0eb15854b35ebb41a",
		"fa4631630bc6f3791887352ab0bf22c249d22101004d534a53ce50d9dc792de7",
		aafs, "d61f1020a1e55cac94003a3c4ac0b553b649791fd2ec1cf3f3a04d2c27eceb53"},
	{"debian-7.3 tun", modern("7.3", "tun"),
		"0c915b372607bb11b275edb6490634f3cbf2e1c5c45e3f065daa632fb37dccd1",
		"d66813e3bb2ee550f1e54e3c1b45d0518d44ae0d0a0eee779c2db9167aaccb65",
		aafs, "7a39b505a7e1ddcfcbf9e5c3bf7a0c472890a4d113d153b89d177a8b37c9cce5"},
}

var (
	modernMu  sync.Mutex
	modernRaw = map[string][]byte{}
)

// modern returns the committed BTF of Debian 13's cloud kernel KVER (6.12
// or 7.3): its vmlinux, or with module, that module's on it.
func modern(kver, module string) func(testing.TB) *btf.Spec {
	return func(tb testing.TB) *btf.Spec {
		modernMu.Lock()
		raw, ok := modernRaw[kver]
		if !ok {
			raw = testfixtures.Read(tb, "btf/debian-"+kver+"-cloud.btf.zst") // 1.3 MB of zstd: read once
			modernRaw[kver] = raw
		}
		modernMu.Unlock()
		base := parse(tb, raw, nil)
		if module == "" {
			return base
		}
		return parse(tb, testfixtures.Read(tb, "pahole/encode/debian-"+kver+"/"+module+".btf.gz"), base)
	}
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
			if !plain75[g.name] {
				testfixtures.SkipUnlessHeavy(t, "one more vmlinux-sized input")
			}
			t.Parallel()
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
			if g.v71 != "" {
				if got := sha(dumpC(t, s, v71)); got != g.v71 {
					t.Errorf("bpftool 7.1: SHA-256 %s, bpftool 7.1's is %s", got, g.v71)
				}
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
// inputs are too big to commit; bench/cdump-identity.sh checks them too).
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

// TestCompileVmlinux75Debian13 compiles the sorted headers of Debian 13's
// 6.12 and 7.3 kernels, with a program that calls their kfuncs. The
// plain "go test" compiles the host's (TestCompileVmlinux75).
func TestCompileVmlinux75Debian13(t *testing.T) {
	clang(t)
	if testing.Short() {
		t.Skip("short")
	}
	testfixtures.SkipUnlessHeavy(t, "two more vmlinux.h compiles")
	for _, kver := range []string{"6.12", "7.3"} {
		t.Run(kver, func(t *testing.T) {
			compile(t, dumpC(t, modern(kver, "")(t), cdump.Options{}), `
int use_kfuncs(struct task_struct *task)
{
	struct task_struct *acquired = bpf_task_acquire(task);

	if (!acquired)
		return 0;
	bpf_task_release(acquired);
	return bpf_cpumask_first(task->cpus_ptr);
}`)
		})
	}
}

// TestCompileVmlinux75Module compiles the sorted header of a Debian 6.1
// module on its base, and the unsorted header of the host.
func TestCompileVmlinux75Module(t *testing.T) {
	clang(t)
	if testing.Short() {
		t.Skip("short")
	}
	testfixtures.SkipUnlessHeavy(t, "two more vmlinux.h compiles")
	compile(t, dumpC(t, moduleSpec(t, goldenModule), cdump.Options{}),
		"int size_of_kvm(void) { return sizeof(struct kvm_vcpu); }")
	compile(t, dumpC(t, hostSpec(t), cdump.Options{Unsorted: true}),
		"int size_of_task(void) { return sizeof(struct task_struct); }")
}

// TestSortPrintingOnly checks that sorting only the types that print
// something, as Write does, gives the same header as sorting every type,
// as bpftool does: on the host's vmlinux and the crafted cases, and with
// KMETA_HEAVY=1 on a module and its base.
func TestSortPrintingOnly(t *testing.T) {
	for name, s := range sortSpecs(t) {
		var all bytes.Buffer
		if err := cdump.WriteSortAll(&all, s, cdump.Options{}); err != nil {
			t.Fatal(err)
		}
		if got := dumpC(t, s, cdump.Options{}); !bytes.Equal(got, all.Bytes()) {
			t.Errorf("%s: sorting only the printing types changes the header: %s", name, firstDiff(got, all.Bytes()))
		}
	}
}

// sortSpecs are the inputs of the sort's tests: the host's vmlinux and
// the crafted cases, and with KMETA_HEAVY=1 a module and its base.
func sortSpecs(t *testing.T) map[string]*btf.Spec {
	t.Helper()
	specs := map[string]*btf.Spec{"host-6.18.44": hostSpec(t)}
	if !testing.Short() && testfixtures.Heavy() {
		specs["debian-6.1 kvm"] = moduleSpec(t, goldenModule)
	}
	for _, c := range cases {
		specs[c.name] = parse(t, c.raw(), nil)
	}
	return specs
}

// TestParseCompat: the names of the modes round-trip, others are errors,
// and Write refuses a mode it does not know before writing anything.
func TestParseCompat(t *testing.T) {
	for _, c := range []cdump.Compat{cdump.CompatBpftool75, cdump.CompatBpftool71} {
		got, err := cdump.ParseCompat(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCompat(%q) = %v, %v; want %v", c.String(), got, err, c)
		}
	}
	if got, err := cdump.ParseCompat(""); err != nil || got != cdump.CompatBpftool75 {
		t.Errorf(`ParseCompat("") = %v, %v`, got, err)
	}
	for _, name := range []string{"bpftool-7.3", "bpftool", "7.1", "BPFTOOL-7.1"} {
		if _, err := cdump.ParseCompat(name); err == nil {
			t.Errorf("ParseCompat(%q): no error", name)
		}
	}
	var buf bytes.Buffer
	if err := cdump.Write(&buf, parse(t, newGen().bytes(), nil), cdump.Options{Compat: 7}); err == nil || buf.Len() != 0 {
		t.Errorf("Compat(7): err %v, %d bytes written", err, buf.Len())
	}
	if s := cdump.Compat(7).String(); s != "Compat(7)" {
		t.Errorf("Compat(7).String() = %q", s)
	}
}
