package core_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestResolveEachRepeated resolves prog.bpf.o with its first section's
// records repeated: every repetition after the second is calculated from
// the memo, and must say what the second says (the first saw the
// candidates before libbpf's pruning, and may count more of them).
func TestResolveEachRepeated(t *testing.T) {
	const k = 5
	raw, err := hostile.RepeatCORERelos(testfixtures.Read(t, objects["prog"]), k)
	if err != nil {
		t.Fatal(err)
	}
	o, err := bpfelf.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	obj := o.CORE()
	for name := range kernels {
		var first []core.Result
		var sec string
		err := core.ResolveEach(context.Background(), obj, core.NewTarget(kernel(t, name)), func(r *core.Result) error {
			if sec == "" {
				sec = r.Section
			}
			if r.Section == sec {
				first = append(first, *r)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		n := len(first) / k
		if n == 0 || len(first) != n*k {
			t.Fatalf("%s: %d records in %s, not %d repetitions", name, len(first), sec, k)
		}
		for i := n; i < len(first); i++ {
			got, want := first[i], first[n+i%n]
			if i < 2*n {
				want.Candidates = got.Candidates
			}
			got.Index, want.Index = 0, 0
			if got != want {
				t.Errorf("%s: record %d: %+v, want %+v", name, i, got, want)
			}
		}
	}
}

// TestResolveEachStops checks that fn's error ends the resolution and is
// returned.
func TestResolveEachStops(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := core.ResolveEach(context.Background(), object(t, "fields"), core.NewTarget(kernel(t, "host-6.18")), func(*core.Result) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Errorf("err %v after %d calls, want %v after 3", err, calls, stop)
	}
}

// TestResolveEachBadTargetNoResults: on a lazily opened target with a
// bad record that only prog.bpf.o's last section reaches (the pointer
// type of file.f_inode), ResolveEach gives fn no Result and returns the
// error an eager open gives: a caller that prints Results as they come
// prints none of them, then the error.
func TestResolveEachBadTargetNoResults(t *testing.T) {
	data := testfixtures.BreakPointer(t, testfixtures.Read(t, testfixtures.DebianVmlinux), "file", "f_inode")
	_, want := btf.Parse(data, btf.Options{})
	if want == nil {
		t.Fatal("Parse accepts the broken pointer")
	}
	obj := object(t, "prog")
	s, err := btf.Parse(data, btf.Options{Lazy: true, Flavors: core.TargetQuery(obj)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	calls := 0
	err = core.ResolveEach(context.Background(), obj, core.NewTarget(s), func(*core.Result) error {
		calls++
		return nil
	})
	if err == nil || err.Error() != want.Error() || calls != 0 {
		t.Errorf("err %v after %d Results, want %v after none", err, calls, want)
	}
}
