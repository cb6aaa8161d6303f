package core_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// objects are the committed BPF objects (testdata/README.md), kernels the
// committed vmlinux BTFs, by the names the goldens use.
var (
	objects = map[string]string{
		"prog":    "elf/prog.bpf.o.gz",
		"fields":  "core/fields.bpf.o.gz",
		"types":   "core/types.bpf.o.gz",
		"matches": "core/matches.bpf.o.gz",
		"edge":    "core/edge.bpf.o.gz",
		"task":    "core/task.bpf.o.gz",
		"ambig":   "core/ambig.bpf.o.gz",
		"gen1":    "core/gen/gen1.bpf.o.gz",
		"gen2":    "core/gen/gen2.bpf.o.gz",
		"flav1":   "core/gen/flav1.bpf.o.gz",
		"flav2":   "core/gen/flav2.bpf.o.gz",
		// arrshift fails on both kernels, after matching on one;
		// patchfail fails on host 6.18 when its instruction is patched.
		"arrshift":  "core/gen/arrshift.bpf.o.gz",
		"patchfail": "core/gen/patchfail.bpf.o.gz",
	}
	// objectOrder are the objects that resolve on both kernels; ambig
	// fails on Debian 6.1 (libbpf refuses it).
	objectOrder = []string{"prog", "fields", "types", "matches", "edge", "task"}
	// generated are random relocations (testdata/core/gen, about 500
	// each): of the host kernel's fields, types and enumerators, and of
	// flavors of its structs and enums with members left out, retyped or
	// made up. Their goldens are libbpf 1.1's and bpftool 7.1's results.
	generated = []string{"gen1", "gen2", "flav1", "flav2"}
	kernels   = map[string]string{
		"debian-6.1": testfixtures.DebianVmlinux,
		"host-6.18":  testfixtures.HostVmlinux,
	}
)

var specCache sync.Map

// kernel returns the parsed vmlinux BTF called name, shared by the tests.
func kernel(tb testing.TB, name string) *btf.Spec {
	tb.Helper()
	if s, ok := specCache.Load(name); ok {
		return s.(*btf.Spec)
	}
	s, err := btf.Parse(testfixtures.Read(tb, kernels[name]), btf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	s2, _ := specCache.LoadOrStore(name, s)
	return s2.(*btf.Spec)
}

func object(tb testing.TB, name string) core.Object {
	tb.Helper()
	obj, err := bpfelf.Parse(testfixtures.Read(tb, objects[name]))
	if err != nil {
		tb.Fatal(err)
	}
	return obj.CORE()
}

// goldenRelo is what libbpf's debug log says about one relocation.
type goldenRelo struct {
	Local    string // "<byte_off> [13] struct task_struct.tgid (0:93 @ offset 1268)"
	Target   string // the first matching candidate, "" if none
	Value    string // the patched value, "" if poisoned
	MemSize  string // the new size of a load or store, "" if unchanged
	Poisoned bool
	Failed   bool // libbpf refused the object at this relocation
}

var (
	reRelo    = regexp.MustCompile(`^libbpf: prog '([^']+)': relo #(\d+): (.*)$`)
	reMatch   = regexp.MustCompile(`^matching candidate #\d+ (.*)$`)
	rePatched = regexp.MustCompile(`^patched insn #\d+ \((?:ALU/ALU64|LDX/ST/STX|LDIMM64)\) (?:imm|off|imm64) \S+ -> (\d+)$`)
	reMemSize = regexp.MustCompile(`^patched insn #\d+ \(LDX/ST/STX\) mem_sz \d+ -> (\d+)$`)
)

// parseGolden reads a libbpf log (testdata/core/libbpf/*.txt), keyed by
// "prog #N".
func parseGolden(tb testing.TB, data []byte) map[string]*goldenRelo {
	tb.Helper()
	out := map[string]*goldenRelo{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		m := reRelo.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		key := m[1] + " #" + m[2]
		g := out[key]
		if g == nil {
			g = &goldenRelo{Local: m[3]}
			out[key] = g
			continue
		}
		switch msg := m[3]; {
		case reMatch.MatchString(msg):
			if g.Target == "" {
				g.Target = reMatch.FindStringSubmatch(msg)[1]
			}
		case rePatched.MatchString(msg):
			g.Value = rePatched.FindStringSubmatch(msg)[1]
		case reMemSize.MatchString(msg):
			g.MemSize = reMemSize.FindStringSubmatch(msg)[1]
		case bytes.HasPrefix([]byte(msg), []byte("failed to relocate")),
			bytes.HasPrefix([]byte(msg), []byte("failed to patch insn")): // the value does not fit, or the instruction is not what clang emits
			g.Failed = true
		case bytes.HasPrefix([]byte(msg), []byte("substituting insn")):
			g.Poisoned = true
		}
	}
	return out
}

// fromResults turns Results into the golden's shape, up to the first
// relocation that fails, where libbpf stops.
func fromResults(rs []core.Result) (map[string]*goldenRelo, error) {
	out := map[string]*goldenRelo{}
	for _, r := range rs {
		if r.Skipped {
			continue
		}
		key := fmt.Sprintf("%s #%d", r.Program, r.Index)
		if r.Err != nil {
			out[key] = &goldenRelo{Local: "<" + r.Kind.String() + "> " + r.LocalSpec, Failed: true}
			if r.LocalSpec == "" {
				return nil, fmt.Errorf("%s: %w", key, r.Err)
			}
			if r.TargetSpec != "" {
				out[key].Target = "<" + r.Kind.String() + "> " + r.TargetSpec
			}
			break
		}
		g := &goldenRelo{Local: "<" + r.Kind.String() + "> " + r.LocalSpec, Poisoned: r.Poisoned}
		if r.Patch.MemSize != 0 {
			g.MemSize = strconv.FormatUint(uint64(r.Patch.MemSize), 10)
		}
		if r.TargetSpec != "" {
			g.Target = "<" + r.Kind.String() + "> " + r.TargetSpec
		}
		if !r.Poisoned {
			g.Value = strconv.FormatUint(r.Value, 10)
		}
		out[key] = g
	}
	return out, nil
}

var builderOptions = builder.Options{}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
