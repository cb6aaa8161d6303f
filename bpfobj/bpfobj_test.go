package bpfobj_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/bpfobj"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/bpftest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// load loads testdata/bpfobj/objs.bpf.o twice, or skips the test.
func load(t *testing.T) []bpftest.Object {
	t.Helper()
	return bpftest.Load(t, testfixtures.Path(t, "bpfobj/objs.bpf.o"), 2)
}

// bpftoolBTF is one object of "bpftool -j btf list".
type bpftoolBTF struct {
	ID      uint32   `json:"id"`
	Size    uint32   `json:"size"`
	ProgIDs []uint32 `json:"prog_ids"`
	MapIDs  []uint32 `json:"map_ids"`
	Kernel  bool     `json:"kernel"`
	Name    string   `json:"name"`
}

func bpftoolList(t *testing.T, bpftool string) []bpftoolBTF {
	t.Helper()
	out, err := exec.Command(bpftool, "-j", "btf", "list").Output()
	if err != nil {
		t.Fatalf("bpftool btf list: %v", err)
	}
	var l []bpftoolBTF
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	for i := range l {
		slices.Sort(l[i].ProgIDs)
		slices.Sort(l[i].MapIDs)
	}
	return l
}

// kmetaList is what BTFs and BTFUsers say, in bpftool's terms (ids
// sorted).
func kmetaList(t *testing.T) []bpftoolBTF {
	t.Helper()
	users, err := bpfobj.BTFUsers()
	if err != nil {
		t.Fatal(err)
	}
	l := []bpftoolBTF{}
	for info, err := range bpfobj.BTFs() {
		if err != nil {
			t.Fatal(err)
		}
		b := bpftoolBTF{ID: info.ID, Size: info.Size, Kernel: info.Kernel, Name: info.Name, ProgIDs: []uint32{}, MapIDs: []uint32{}}
		if u := users[info.ID]; u != nil {
			b.ProgIDs = append(b.ProgIDs, u.Progs...)
			b.MapIDs = append(b.MapIDs, u.Maps...)
		}
		l = append(l, b)
	}
	return l
}

// TestAgainstBpftool compares BTFs and BTFUsers with "bpftool -j btf
// list", with two copies of the test object loaded. Other processes may
// load and unload BPF objects meanwhile: a difference counts only when
// bpftool says the same before and after.
func TestAgainstBpftool(t *testing.T) {
	objs := load(t)
	bpftool := bpftest.Bpftool(t)
	var diff string
	compared := false
	for range 20 {
		before := bpftoolList(t, bpftool)
		got := kmetaList(t)
		after := bpftoolList(t, bpftool)
		if !cmp.Equal(before, after) {
			continue
		}
		compared = true
		if diff = cmp.Diff(before, got); diff == "" {
			break
		}
	}
	if !compared {
		t.Skip("the kernel's BPF objects changed during every one of 20 tries")
	}
	if diff != "" {
		t.Fatalf("BTFs and BTFUsers differ from bpftool btf list (-bpftool +kmeta):\n%s", diff)
	}
	for _, o := range objs {
		info, err := bpfobj.BTFByID(o.BTFID)
		if err != nil {
			t.Fatal(err)
		}
		if info.Kernel || info.Name != "" || info.Module() {
			t.Errorf("BTF of a program: %+v", info)
		}
	}
}

// TestOpenBTF opens the test object's BTF and vmlinux's, and compares
// programs' and maps' information with bpftool's.
func TestOpenBTF(t *testing.T) {
	objs := load(t)
	bpftool := bpftest.Bpftool(t)
	o := objs[0]
	b, err := bpfobj.OpenBTF(o.BTFID, bpfobj.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if int(b.Info.Size) != len(b.Raw) || b.Info.ID != o.BTFID {
		t.Errorf("info %+v for %d bytes", b.Info, len(b.Raw))
	}
	for _, name := range []string{"flow_key", "flow_stats", "verdict", "sock_count", ".maps"} {
		if _, err := b.Spec.FindOne(name, btf.FindOptions{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, id := range o.Progs {
		p, err := bpfobj.ProgByID(id)
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			ID    uint32 `json:"id"`
			Name  string `json:"name"`
			Tag   string `json:"tag"`
			BTFID uint32 `json:"btf_id"`
		}
		bpftoolJSON(t, &want, bpftool, "prog", "show", "id", strconv.Itoa(int(id)))
		got := want
		got.ID, got.Name, got.BTFID = p.ID, p.Name, p.BTFID
		got.Tag = ""
		for _, c := range p.Tag {
			got.Tag += strconv.FormatUint(uint64(c)>>4, 16) + strconv.FormatUint(uint64(c)&15, 16)
		}
		if got != want {
			t.Errorf("program %d: got %+v, bpftool says %+v", id, got, want)
		}
	}
	root := regexp.MustCompile(`^\[(\d+)\] `)
	for _, id := range o.Maps {
		m, err := bpfobj.MapByID(id)
		if err != nil {
			t.Fatal(err)
		}
		if m.BTFID == 0 {
			continue
		}
		// bpftool prints the key's and the value's type first in
		// "btf dump map id ID key|value".
		for part, got := range map[string]btf.TypeID{"key": m.KeyType, "value": m.ValueType} {
			out, err := exec.Command(bpftool, "btf", "dump", "map", "id", strconv.Itoa(int(id)), part).Output()
			if err != nil {
				t.Fatalf("bpftool btf dump map id %d %s: %v", id, part, err)
			}
			sub := root.FindSubmatch(out)
			if sub == nil || string(sub[1]) != strconv.Itoa(int(got)) {
				t.Errorf("map %d (%s): %s type %d, bpftool prints %.40q", id, m.Name, part, got, out)
			}
		}
	}
}

func bpftoolJSON(t *testing.T, v any, bpftool string, args ...string) {
	t.Helper()
	out, err := exec.Command(bpftool, append([]string{"-j"}, args...)...).Output()
	if err != nil {
		t.Fatalf("bpftool %v: %v", args, err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatal(err)
	}
}

// TestVmlinux finds vmlinux among the BTF objects: its raw BTF is what
// sysfs has.
func TestVmlinux(t *testing.T) {
	bpftest.Bpftool(t) // root
	want, err := os.ReadFile("/sys/kernel/btf/vmlinux")
	if err != nil {
		t.Skipf("no vmlinux BTF in sysfs: %v", err)
	}
	for info, err := range bpfobj.BTFs() {
		if err != nil {
			t.Fatal(err)
		}
		if info.Name != "vmlinux" {
			continue
		}
		b, err := bpfobj.OpenBTF(info.ID, bpfobj.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if !info.Kernel || info.Module() || string(b.Raw) != string(want) {
			t.Errorf("%+v: %d bytes, sysfs has %d", info, len(b.Raw), len(want))
		}
		return
	}
	t.Fatal("no BTF object named vmlinux")
}

// TestModules opens every module's BTF as split BTF on vmlinux, and checks
// its types against /sys/kernel/btf/MODULE (the same bytes).
func TestModules(t *testing.T) {
	bpftest.Bpftool(t)
	n := 0
	for info, err := range bpfobj.BTFs() {
		if err != nil {
			t.Fatal(err)
		}
		if !info.Module() {
			continue
		}
		n++
		b, err := bpfobj.OpenBTF(info.ID, bpfobj.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if b.Spec.Base() == nil || b.Spec.FirstID() == 1 {
			t.Errorf("module %s: not split BTF", info.Name)
		}
		if want, err := os.ReadFile("/sys/kernel/btf/" + info.Name); err == nil && string(want) != string(b.Raw) {
			t.Errorf("module %s: raw BTF differs from sysfs", info.Name)
		}
		b.Close()
	}
	if n == 0 {
		t.Skip("no module with BTF is loaded")
	}
}

func TestNotFound(t *testing.T) {
	bpftest.Bpftool(t)
	const none = 1<<32 - 1
	_, err := bpfobj.OpenBTF(none, bpfobj.Options{})
	if !errors.Is(err, bpfobj.ErrNotFound) {
		t.Errorf("OpenBTF: %v", err)
	}
	if _, err := bpfobj.ProgByID(none); !errors.Is(err, bpfobj.ErrNotFound) {
		t.Errorf("ProgByID: %v", err)
	}
	if _, err := bpfobj.MapByID(none); !errors.Is(err, bpfobj.ErrNotFound) {
		t.Errorf("MapByID: %v", err)
	}
}

// TestNoBTF asks for the BTF of a ring buffer map, which the kernel keeps
// without BTF.
func TestNoBTF(t *testing.T) {
	objs := load(t)
	for _, id := range objs[0].Maps {
		m, err := bpfobj.MapByID(id)
		if err != nil {
			t.Fatal(err)
		}
		if m.BTFID != 0 {
			continue
		}
		if _, _, err := bpfobj.OpenMapBTF(id, bpfobj.Options{}); !errors.Is(err, bpfobj.ErrNoBTF) {
			t.Errorf("map %d (%s): %v", id, m.Name, err)
		}
		return
	}
	t.Fatal("no map without BTF")
}

// TestUnprivileged runs as a user without CAP_SYS_ADMIN, if the test is
// one: the errors say what is missing.
func TestUnprivileged(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root: cmd/kmeta's TestBTFListUnprivileged drops privileges with setpriv")
	}
	for _, err := range bpfobj.BTFs() {
		if !errors.Is(err, os.ErrPermission) {
			t.Skipf("listing works without root here: %v", err)
		}
		t.Log(err)
		return
	}
}

func TestModuleInfo(t *testing.T) {
	for _, c := range []struct {
		info bpfobj.BTFInfo
		want bool
	}{
		{bpfobj.BTFInfo{Name: "vmlinux", Kernel: true}, false},
		{bpfobj.BTFInfo{Name: "xfs", Kernel: true}, true},
		{bpfobj.BTFInfo{Name: ""}, false},
		{bpfobj.BTFInfo{Name: "vmlinux"}, false},
	} {
		if got := c.info.Module(); got != c.want {
			t.Errorf("%+v: Module() = %v", c.info, got)
		}
	}
}

// TestConcurrent walks and opens from several goroutines at once (run
// with -race): the package keeps no state.
func TestConcurrent(t *testing.T) {
	objs := load(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 10 {
				for _, err := range bpfobj.BTFs() {
					if err != nil {
						t.Error(err)
						return
					}
				}
				b, err := bpfobj.OpenBTF(objs[1].BTFID, bpfobj.Options{})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := b.Spec.FindOne("flow_stats", btf.FindOptions{}); err != nil {
					t.Error(err)
				}
				b.Close()
			}
		})
	}
	wg.Wait()
}
