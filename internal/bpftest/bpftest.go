// Package bpftest loads BPF objects into the running kernel for tests, with
// bpftool, and unloads them when the test ends.
//
// It is a test helper: only _test.go files (and other test helpers)
// import it, as docs/layers.md says and internal/apidoc's TestLayers
// checks.
package bpftest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// Object is a BPF object file loaded by Load.
type Object struct {
	Dir   string   // where its programs are pinned
	BTFID uint32   // the BTF object its programs were loaded with
	Progs []uint32 // its programs' ids, sorted
	Maps  []uint32 // the ids of the maps its programs use, sorted
}

// Bpftool returns the path of bpftool, or skips the test if it is missing
// or if the test does not run as root.
func Bpftool(tb testing.TB) string {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("not root: loading and reading BPF objects needs CAP_SYS_ADMIN")
	}
	for _, p := range []string{os.Getenv("KMETA_BPFTOOL"), "/usr/sbin/bpftool", "bpftool"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	tb.Skip("bpftool not found (set KMETA_BPFTOOL): it is the oracle and the loader")
	return ""
}

// Load loads the BPF object file obj n times with "bpftool prog loadall",
// each time pinned in its own directory of a bpf filesystem that Load
// mounts for the test; when the test ends it unmounts it, which unloads
// the programs and maps. It skips the test unless it runs as root with
// bpftool.
func Load(tb testing.TB, obj string, n int) []Object {
	tb.Helper()
	bpftool := Bpftool(tb)
	fs := mountBPF(tb)
	objs := make([]Object, n)
	for i := range objs {
		dir := filepath.Join(fs, "kmeta-test-"+string(rune('a'+i%26))+string(rune('0'+i/26%10)))
		out, err := exec.Command(bpftool, "prog", "loadall", obj, dir).CombinedOutput()
		if err != nil {
			tb.Fatalf("bpftool prog loadall %s %s: %v\n%s", obj, dir, err, out)
		}
		objs[i] = describe(tb, bpftool, dir)
	}
	return objs
}

// describe reads the ids of what was pinned in dir.
func describe(tb testing.TB, bpftool, dir string) Object {
	tb.Helper()
	o := Object{Dir: dir}
	pins, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, pin := range pins {
		out, err := exec.Command(bpftool, "-j", "prog", "show", "pinned", filepath.Join(dir, pin.Name())).Output()
		if err != nil {
			tb.Fatalf("bpftool prog show pinned %s: %v", pin.Name(), err)
		}
		var p struct {
			ID     uint32   `json:"id"`
			BTFID  uint32   `json:"btf_id"`
			MapIDs []uint32 `json:"map_ids"`
		}
		if err := json.Unmarshal(out, &p); err != nil {
			tb.Fatalf("bpftool prog show: %v: %s", err, out)
		}
		o.BTFID = p.BTFID
		o.Progs = append(o.Progs, p.ID)
		for _, m := range p.MapIDs {
			if !slices.Contains(o.Maps, m) {
				o.Maps = append(o.Maps, m)
			}
		}
	}
	slices.Sort(o.Progs)
	slices.Sort(o.Maps)
	return o
}
