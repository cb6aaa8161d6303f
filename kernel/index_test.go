package kernel

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
)

// found is a Result reduced to what tests compare.
type found struct {
	Matches []string // "module:id"
	Failed  []string
}

func summarize(r Result) found {
	var f found
	for _, m := range r.Matches {
		f.Matches = append(f.Matches, m.Module+":"+m.Type.String())
	}
	for _, e := range r.Failed {
		f.Failed = append(f.Failed, e.Module)
	}
	return f
}

// TestIndexMatchesScan checks that the name index built for repeated
// searches gives exactly what scanning every Spec gives, on vmlinux and
// all 1,121 modules with one of them corrupt.
func TestIndexMatchesScan(t *testing.T) {
	dir := fakeSysfs(t, nil, func(name string, b []byte) []byte {
		if name == "af_key" {
			return b[:len(b)/2]
		}
		return b
	})
	c := NewCache(Options{Workers: 4, Sysfs: dir})
	defer c.Close()
	h := acquire(t, c)

	// The first indexAfter searches scan; the next builds and uses the index.
	var scanned Result
	for range indexAfter {
		var err error
		if scanned, err = h.Find("xfs_mount", FindOptions{}); err != nil {
			t.Fatal(err)
		}
		if h.g.search.index != nil {
			t.Fatal("index built too early")
		}
	}
	indexed, err := h.Find("xfs_mount", FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h.g.search.index == nil {
		t.Fatalf("no index after %d searches", indexAfter+1)
	}
	if diff := cmp.Diff(summarize(scanned), summarize(indexed)); diff != "" {
		t.Errorf("scan and index differ (-scan +index):\n%s", diff)
	}

	mods, err := h.g.modules()
	if err != nil {
		t.Fatal(err)
	}
	x := h.g.search.index
	for _, tt := range []struct {
		name string
		kind btf.Kind
	}{
		{"module", btf.KindUnknown},
		{"module", btf.KindStruct},
		{"tls_sw_context_tx", btf.KindStruct},
		{"list_head", btf.KindUnknown},
		{"task_struct", btf.KindUnknown},
		{"init_module", btf.KindFunc},
		{"ops", btf.KindUnknown}, // a member name, not a type name
		{"no_such_type", btf.KindUnknown},
	} {
		opts := FindOptions{Kind: tt.kind}
		var scan, indexed Result
		q := newQuery(tt.name, opts).withPrefilter(h.g.vmlinux)
		if err := scan.add(Vmlinux, h.g.vmlinux, q); err != nil {
			t.Fatal(err)
		}
		h.scanModules(&scan, mods, q, nil)
		x.find(&indexed, h.g.vmlinux, mods, tt.name, tt.kind)
		if diff := cmp.Diff(summarize(scan), summarize(indexed)); diff != "" {
			t.Errorf("%s %v: scan and index differ (-scan +index):\n%s", tt.name, tt.kind, diff)
		}
		t.Logf("%s %v: %d matches", tt.name, tt.kind, len(scan.Matches))
	}
	t.Logf("%d index entries", len(x.entries))
}
