package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
)

// place is a Match reduced to what tests compare.
type place struct {
	Module string
	Kind   string
	Name   string
	Own    bool // the type is one of the place's own types, not vmlinux's
}

func places(h *Handle, ms []Match) []place {
	var out []place
	last := h.Vmlinux().LastID()
	for _, m := range ms {
		out = append(out, place{Module: m.Module, Kind: m.Type.Kind().String(), Name: m.Type.Name(), Own: m.Module == Vmlinux || m.Type.ID() > last})
	}
	return out
}

func TestFindAcrossKernel(t *testing.T) {
	c := NewCache(Options{Workers: 4, Sysfs: fakeSysfs(t, nil, nil)})
	defer c.Close()
	h := acquire(t, c)

	mods, err := h.Modules()
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != numDebianModules {
		t.Fatalf("%d modules listed, want %d", len(mods), numDebianModules)
	}

	tests := []struct {
		name string
		opts FindOptions
		want []place
	}{
		// Only the xfs module has it.
		{"xfs_mount", FindOptions{}, []place{{"xfs", "STRUCT", "xfs_mount", true}}},
		{"xfs_mount", FindOptions{Kind: btf.KindStruct, Module: "xfs"}, []place{{"xfs", "STRUCT", "xfs_mount", true}}},
		// In vmlinux and (a different definition) in one module: once per place.
		{"tls_sw_context_tx", FindOptions{Kind: btf.KindStruct}, []place{
			{Vmlinux, "STRUCT", "tls_sw_context_tx", true},
			{"tls", "STRUCT", "tls_sw_context_tx", true},
		}},
		{"tls_sw_context_tx", FindOptions{Module: Vmlinux}, []place{{Vmlinux, "STRUCT", "tls_sw_context_tx", true}}},
		{"tls_sw_context_tx", FindOptions{Module: "tls"}, []place{{"tls", "STRUCT", "tls_sw_context_tx", true}}},
		// A vmlinux type is not reported again for the modules that use it.
		{"task_struct", FindOptions{Kind: btf.KindStruct}, []place{{Vmlinux, "STRUCT", "task_struct", true}}},
		// Flavors: xfs_mount___x matches xfs_mount.
		{"xfs_mount___x", FindOptions{Flavors: true, Module: "xfs"}, []place{{"xfs", "STRUCT", "xfs_mount", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.opts.Module, func(t *testing.T) {
			res, err := h.Find(tt.name, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Failed) != 0 {
				t.Errorf("failed modules: %v", res.Failed)
			}
			if diff := cmp.Diff(tt.want, places(h, res.Matches)); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFindOncePerPlace checks, for a struct that many modules define again,
// that every place reports it at most once, and that each match's id lies
// in the place that reports it.
func TestFindOncePerPlace(t *testing.T) {
	c := NewCache(Options{Workers: 4, Sysfs: fakeSysfs(t, nil, nil)})
	defer c.Close()
	h := acquire(t, c)
	res, err := h.Find("module", FindOptions{Kind: btf.KindStruct})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range res.Matches {
		if seen[m.Module] {
			t.Errorf("%s reported twice", m.Module)
		}
		seen[m.Module] = true
		spec, err := h.Module(m.Module)
		if err != nil {
			t.Fatal(err)
		}
		if m.Type.ID() < spec.FirstID() || m.Type.ID() > spec.LastID() {
			t.Errorf("%s: id %d outside [%d, %d]", m.Module, m.Type.ID(), spec.FirstID(), spec.LastID())
		}
	}
	if !seen[Vmlinux] || len(seen) < 2 {
		t.Errorf("places %v: want vmlinux and at least one module", seen)
	}
}

func TestFindNotFound(t *testing.T) {
	c := NewCache(Options{Workers: 4, Sysfs: fakeSysfs(t, only("xfs", "tls"), nil)})
	defer c.Close()
	h := acquire(t, c)
	tests := []struct {
		name string
		opts FindOptions
		is   error
	}{
		{"no_such_type_anywhere", FindOptions{}, btf.ErrNotFound},
		{"xfs_mount", FindOptions{Module: Vmlinux}, btf.ErrNotFound},
		{"xfs_mount", FindOptions{Kind: btf.KindUnion}, btf.ErrNotFound},
		{"xfs_mount", FindOptions{Module: "ext4"}, fs.ErrNotExist},
		{"xfs_mount", FindOptions{Module: "../xfs"}, fs.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.opts.Module, func(t *testing.T) {
			res, err := h.Find(tt.name, tt.opts)
			if !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			if len(res.Matches) != 0 {
				t.Errorf("matches: %v", res.Matches)
			}
			var me *ModuleError
			if errors.As(err, &me) != (tt.is != btf.ErrNotFound) {
				t.Errorf("errors.As(%v, *ModuleError) = %v", err, !(tt.is != btf.ErrNotFound))
			}
		})
	}
}

// TestCorruptModule truncates or empties some of the 1,121 module BTFs and
// checks that each fails alone, with an error that names it, while every
// other module can still be opened and searched.
func TestCorruptModule(t *testing.T) {
	broken := map[string]func([]byte) []byte{
		"af_key":    func(b []byte) []byte { return b[:len(b)/2] }, // mid-record
		"btrfs":     func(b []byte) []byte { return b[:12] },       // inside the header
		"kvm":       func([]byte) []byte { return nil },            // empty file
		"vport_gre": func(b []byte) []byte { return b[:len(b)-1] }, // string section cut
	}
	dir := fakeSysfs(t, nil, func(name string, b []byte) []byte {
		if f := broken[name]; f != nil {
			return f(b)
		}
		return b
	})
	c := NewCache(Options{Workers: 4, Sysfs: dir})
	defer c.Close()
	h := acquire(t, c)

	// Searching everything finds xfs_mount and reports the broken modules.
	res, err := h.Find("xfs_mount", FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]place{{"xfs", "STRUCT", "xfs_mount", true}}, places(h, res.Matches)); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	var failed []string
	for _, e := range res.Failed {
		failed = append(failed, e.Module)
		var fe *btf.FormatError
		if !errors.As(e, &fe) {
			t.Errorf("%s: %v is not a *btf.FormatError", e.Module, e)
		}
	}
	if diff := cmp.Diff([]string{"af_key", "btrfs", "kvm", "vport_gre"}, failed); diff != "" {
		t.Errorf("failed modules (-want +got):\n%s", diff)
	}

	// A name only a broken module has: not found, and the reasons are there.
	_, err = h.Find("btrfs_fs_info", FindOptions{})
	var me *ModuleError
	if !errors.Is(err, btf.ErrNotFound) || !errors.As(err, &me) {
		t.Errorf("find btrfs_fs_info: %v, want ErrNotFound and a *ModuleError", err)
	}
	// With the module named, the error is the module's.
	_, err = h.Find("btrfs_fs_info", FindOptions{Module: "btrfs"})
	if !errors.As(err, &me) || me.Module != "btrfs" {
		t.Errorf("find btrfs_fs_info in btrfs: %v, want the btrfs *ModuleError", err)
	}

	// Every other module opens.
	mods, err := h.Modules()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range mods {
		spec, err := h.Module(name)
		if broken[name] != nil {
			if !errors.As(err, &me) || me.Module != name || spec != nil {
				t.Errorf("%s: %v, want its *ModuleError", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if spec.Base() != h.Vmlinux() || spec.NumTypes() == 0 {
			t.Errorf("%s: base %p, %d types", name, spec.Base(), spec.NumTypes())
		}
	}
}

func TestModuleNames(t *testing.T) {
	c := NewCache(Options{Workers: 4, Sysfs: fakeSysfs(t, only("xfs", "vport_gre"), nil)})
	defer c.Close()
	h := acquire(t, c)
	mods, err := h.Modules()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"vport_gre", "xfs"}, mods); diff != "" {
		t.Errorf("modules (-want +got):\n%s", diff)
	}
	if s, err := h.Module(Vmlinux); err != nil || s != h.Vmlinux() {
		t.Errorf("Module(vmlinux) = %p, %v", s, err)
	}
	for _, name := range []string{"", ".", "..", "../btf/xfs", "x/y", "nul\x00"} {
		_, err := h.Module(name)
		var me *ModuleError
		if !errors.As(err, &me) || !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Module(%q) = %v, want a *ModuleError wrapping fs.ErrInvalid", name, err)
		}
	}
	// Opened once: the same Spec every time.
	a, err := h.Module("xfs")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := h.Module("xfs"); a != b {
		t.Error("Module(xfs) opened twice")
	}
}

// TestFindScreensModules checks that a search for a name that vmlinux's
// strings lack opens only the modules whose own strings hold it, and what
// that means for a module whose type records are corrupt under a sound
// header: it is reported by the searches it could answer and by Module,
// and left alone by the others.
// corruptXFSSysfs is the fake sysfs of all modules with xfs's type records
// corrupt under a sound header: its first type has kind 31, which does not
// exist.
func corruptXFSSysfs(t *testing.T) string {
	return fakeSysfs(t, nil, func(name string, b []byte) []byte {
		if name != "xfs" {
			return b
		}
		b = bytes.Clone(b)
		hdrLen := binary.LittleEndian.Uint32(b[4:])
		typeOff := binary.LittleEndian.Uint32(b[8:])
		b[hdrLen+typeOff+7] = 0x1f
		return b
	})
}

func TestFindScreensModules(t *testing.T) {
	c := NewCache(Options{Workers: 4, Sysfs: corruptXFSSysfs(t)})
	defer c.Close()
	h := acquire(t, c)

	res, err := h.Find("btrfs_fs_info", FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]place{{"btrfs", "STRUCT", "btrfs_fs_info", true}}, places(h, res.Matches)); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	if len(res.Failed) != 0 {
		t.Errorf("failed: %v; xfs's strings do not hold btrfs_fs_info", res.Failed)
	}
	var opened []string
	for _, m := range h.g.mods {
		if m.opened.Load() {
			opened = append(opened, m.name)
		}
	}
	if diff := cmp.Diff([]string{"btrfs"}, opened); diff != "" {
		t.Errorf("opened modules (-want +got):\n%s", diff)
	}

	// xfs's strings hold xfs_mount: it is parsed, and fails.
	res, err = h.Find("xfs_mount", FindOptions{})
	var me *ModuleError
	var fe *btf.FormatError
	if !errors.Is(err, btf.ErrNotFound) || !errors.As(err, &me) || me.Module != "xfs" || !errors.As(err, &fe) {
		t.Errorf("find xfs_mount: %v, want ErrNotFound and the xfs *ModuleError", err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Module != "xfs" {
		t.Errorf("failed: %v, want xfs", res.Failed)
	}
	if _, err := h.Module("xfs"); !errors.As(err, &me) || me.Module != "xfs" {
		t.Errorf("Module(xfs): %v, want its *ModuleError", err)
	}
}
