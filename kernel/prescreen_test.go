package kernel

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
)

// opened returns the names of h's modules that were opened.
func opened(h *Handle) []string {
	var out []string
	for _, m := range h.g.mods {
		if m.opened.Load() {
			out = append(out, m.name)
		}
	}
	return out
}

// TestCacheFind checks that Cache.Find, on a cold Cache (where it screens
// the modules while vmlinux is opened) and on a warm one, gives what
// Acquire and Handle.Find give.
func TestCacheFind(t *testing.T) {
	dir := fakeSysfs(t, nil, nil)
	tests := []struct {
		name        string
		opts        FindOptions
		prescreened bool     // a cold Find screens the modules ahead
		opened      []string // and opens only these
	}{
		{"xfs_mount", FindOptions{}, true, []string{"xfs"}},
		{"xfs_mount", FindOptions{Kind: btf.KindTypedef}, true, []string{"xfs"}},
		{"no_such_type_anywhere", FindOptions{}, true, nil},
		// vmlinux's strings hold these: every module may have them.
		{"tls_sw_context_tx", FindOptions{Kind: btf.KindStruct}, false, nil},
		{"task_struct", FindOptions{}, false, nil},
		{"xfs_mount___x", FindOptions{Flavors: true, Module: "xfs"}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := NewCache(Options{Workers: 4, Sysfs: dir})
			defer ref.Close()
			rh := acquire(t, ref)
			want, wantErr := rh.Find(tt.name, tt.opts)

			c := NewCache(Options{Workers: 4, Sysfs: dir})
			defer c.Close()
			for round := range 2 { // cold, then warm
				h, got, err := c.Find(tt.name, tt.opts)
				if (h == nil) != (err != nil) {
					t.Fatalf("round %d: Handle %v with err %v: want a Handle exactly when err is nil", round, h, err)
				}
				if (err == nil) != (wantErr == nil) || err != nil && errors.Is(err, btf.ErrNotFound) != errors.Is(wantErr, btf.ErrNotFound) {
					t.Errorf("round %d: err %v, want %v", round, err, wantErr)
				}
				if h == nil { // not found: released, nothing more to look at
					if len(got.Matches) != 0 || len(want.Matches) != 0 {
						t.Errorf("round %d: matches %v with err %v; want %v", round, got.Matches, err, want.Matches)
					}
					continue
				}
				if diff := cmp.Diff(places(rh, want.Matches), places(h, got.Matches)); diff != "" {
					t.Errorf("round %d: matches (-want +got):\n%s", round, diff)
				}
				if len(got.Failed) != 0 {
					t.Errorf("round %d: failed %v", round, got.Failed)
				}
				if round == 0 && h.g.prescreened != tt.prescreened {
					t.Errorf("prescreened = %v, want %v", h.g.prescreened, tt.prescreened)
				}
				if round == 0 && tt.prescreened {
					if diff := cmp.Diff(tt.opened, opened(h)); diff != "" {
						t.Errorf("opened modules (-want +got):\n%s", diff)
					}
				}
				if err := h.Release(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}

	c := NewCache(Options{Workers: 4, Sysfs: dir})
	c.Close()
	if h, _, err := c.Find("xfs_mount", FindOptions{}); h != nil || !errors.Is(err, ErrClosed) {
		t.Errorf("Find on a closed Cache: %v, %v; want ErrClosed", h, err)
	}
	c = NewCache(Options{Workers: 4, Sysfs: t.TempDir()})
	if h, _, err := c.Find("xfs_mount", FindOptions{}); h != nil || !errors.Is(err, ErrNoVmlinux) {
		t.Errorf("Find without vmlinux: %v, %v; want ErrNoVmlinux", h, err)
	}
}

// TestCacheFindCorruptModule is TestFindScreensModules for a cold
// Cache.Find (see corruptXFSSysfs).
func TestCacheFindCorruptModule(t *testing.T) {
	c := NewCache(Options{Workers: 4, Sysfs: corruptXFSSysfs(t)})
	defer c.Close()
	h, res, err := c.Find("btrfs_fs_info", FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]place{{"btrfs", "STRUCT", "btrfs_fs_info", true}}, places(h, res.Matches)); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	if !h.g.prescreened {
		t.Error("the modules were not screened ahead")
	}
	if diff := cmp.Diff([]string{"btrfs"}, opened(h)); diff != "" || len(res.Failed) != 0 {
		t.Errorf("opened modules (-want +got):\n%s; failed %v", diff, res.Failed)
	}
	h.Release()
	c.Flush()

	h, res, err = c.Find("xfs_mount", FindOptions{})
	if h != nil {
		t.Error("a Handle with an error")
	}
	var me *ModuleError
	if !errors.Is(err, btf.ErrNotFound) || !errors.As(err, &me) || me.Module != "xfs" {
		t.Errorf("find xfs_mount: %v, want ErrNotFound and the xfs *ModuleError", err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Module != "xfs" {
		t.Errorf("failed: %v, want xfs", res.Failed)
	}
}

// TestCacheFindConcurrent runs cold and warm Finds, Flushes and Releases
// on one Cache from 8 goroutines (run it with -race).
func TestCacheFindConcurrent(t *testing.T) {
	c := NewCache(Options{Workers: 4, Sysfs: fakeSysfs(t, nil, nil)})
	defer c.Close()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 6 {
				h, res, err := c.Find("xfs_mount", FindOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				if len(res.Matches) != 1 || res.Matches[0].Module != "xfs" || res.Matches[0].Type.Name() != "xfs_mount" {
					t.Errorf("matches %v", res.Matches)
				}
				if (g+i)%3 == 0 {
					if err := c.Flush(); err != nil {
						t.Error(err)
					}
				}
				if err := h.Release(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}
