package builder

import (
	"os"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
)

func TestZZPhases(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	s, err := btf.Open("/sys/kernel/btf/vmlinux")
	if err != nil {
		t.Fatal(err)
	}
	roots, _ := s.Find("task_struct", btf.FindOptions{Kind: btf.KindStruct})
	var tw, to, tc, tm, tn, tt time.Duration
	const N = 300
	for range N {
		t0 := time.Now()
		b := New()
		c := copier{b: b}
		src := b.sourceOf(s)
		src.refresh()
		for _, r := range roots {
			c.visit(src, r, levelValue)
		}
		t1 := time.Now()
		c.walk()
		t2 := time.Now()
		c.order()
		t3 := time.Now()
		if err := c.commit(); err != nil {
			t.Fatal(err)
		}
		t4 := time.Now()
		if _, err := b.Marshal(Options{}); err != nil {
			t.Fatal(err)
		}
		t5 := time.Now()
		mn := func(d *time.Duration, x time.Duration) {
			if *d == 0 || x < *d {
				*d = x
			}
		}
		mn(&tn, t1.Sub(t0))
		mn(&tw, t2.Sub(t1))
		mn(&to, t3.Sub(t2))
		mn(&tc, t4.Sub(t3))
		mn(&tm, t5.Sub(t4))
		mn(&tt, t5.Sub(t0))
	}
	t.Logf("min: new %v walk %v order %v commit %v marshal %v total %v", tn, tw, to, tc, tm, tt)
}

func TestZZGolden(t *testing.T) {
	dir := os.Getenv("ZZG")
	if dir == "" {
		t.Skip()
	}
	s, err := btf.Open("/sys/kernel/btf/vmlinux")
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range [][]Want{{{Name: "task_struct"}}, {{Name: "sk_buff"}, {Name: "bpf_prog"}}, {{Name: "int"}}, {{Name: "file_operations"}}} {
		for _, fwd := range []bool{false, true} {
			m, err := Minimal(s, w, MinimalOptions{FwdPointees: fwd})
			if err != nil {
				t.Fatal(err)
			}
			out, err := m.Marshal(Options{})
			if err != nil {
				t.Fatal(err)
			}
			name := dir + "/" + string(rune('a'+i))
			if fwd {
				name += "f"
			}
			if os.Getenv("ZZW") != "" {
				os.WriteFile(name, out, 0o644)
			} else if old, _ := os.ReadFile(name); string(old) != string(out) {
				t.Errorf("%s differs", name)
			}
		}
	}
	b := New()
	if err := b.CopyAll(s); err != nil {
		t.Fatal(err)
	}
	out, _ := b.Marshal(Options{})
	if os.Getenv("ZZW") != "" {
		os.WriteFile(dir+"/all", out, 0o644)
	} else if old, _ := os.ReadFile(dir + "/all"); string(old) != string(out) {
		t.Errorf("all differs")
	}
}
