package lazyfuzz_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	"github.com/kmeta-dev/kmeta/btf/diff"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
	"github.com/kmeta-dev/kmeta/kernel"
)

// TestSharedSpec (issue 37, redteam7c): one Spec, opened eagerly or
// lazily (before anything has checked its records), used at once by
// goroutines that look types up and walk them and by goroutines that
// deduplicate, copy, minimize, print and compare it, under GOMAXPROCS 1,
// 2 and 8: each answer is the one it gives alone, and -race sees no
// race. The inputs are a real BTF (a CO-RE test kernel's), the nested
// records of issue 37, and the dangling reference that a lazy open
// accepts and every consumer must refuse.
func TestSharedSpec(t *testing.T) {
	nested, err := hostile.Nested(200, hostile.NestedCycle)
	if err != nil {
		t.Fatal(err)
	}
	dangling, err := hostile.DanglingRef()
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]byte{
		"flav1":    seeds(t)[1],
		"nested":   nested,
		"dangling": dangling,
	}
	for _, procs := range []int{1, 2, 8} {
		for name, raw := range inputs {
			for _, lazy := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/procs=%d/lazy=%v", name, procs, lazy), func(t *testing.T) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					shared(t, raw, lazy)
				})
			}
		}
	}
}

// shared runs every user of a Spec alone on a fresh Spec of raw, then all
// of them at once, twice each, on one Spec, and compares the answers.
func shared(t *testing.T, raw []byte, lazy bool) {
	opts := btf.Options{Lazy: lazy}
	if _, err := btf.Parse(raw, btf.Options{}); err != nil && !lazy {
		return // eager refuses it: nothing to share
	}
	users := specUsers()
	want := make([]string, len(users))
	for i, u := range users {
		s, err := btf.Parse(raw, opts)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = u(s)
	}
	s, err := btf.Parse(raw, opts)
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 2
	got := make([][rounds]string, len(users))
	var wg sync.WaitGroup
	for i, u := range users {
		for r := range rounds {
			wg.Go(func() { got[i][r] = u(s) })
		}
	}
	wg.Wait()
	for i := range users {
		for r := range rounds {
			if got[i][r] != want[i] {
				t.Errorf("user %d, round %d: shared gives\n%.300s\nalone\n%.300s", i, r, got[i][r], want[i])
			}
		}
	}
}

// specUsers are the ways a program uses a Spec, each returning a summary
// of its answer.
func specUsers() []func(*btf.Spec) string {
	ctx := context.Background()
	res := func(b []byte, err error) string { return fmt.Sprintf("%x %v", sum(b), err) }
	return []func(*btf.Spec) string{
		func(s *btf.Spec) string { return api(s, nil) },
		func(s *btf.Spec) string { return res(dedup.Specs(nil, s)) },
		func(s *btf.Spec) string {
			var b bytes.Buffer
			return res(b.Bytes(), cdump.WriteContext(ctx, &b, s, cdump.Options{}))
		},
		func(s *btf.Spec) string {
			var b bytes.Buffer
			return res(b.Bytes(), layout.WriteJSON(ctx, &b, s, layout.Options{}))
		},
		func(s *btf.Spec) string {
			ch, err := diff.Compare(ctx, s, s, diff.Options{})
			return fmt.Sprint(len(ch), err)
		},
		func(s *btf.Spec) string {
			var b bytes.Buffer
			return res(b.Bytes(), builder.WriteCopy(&b, s, nil, builder.Options{}))
		},
		func(s *btf.Spec) string {
			b := builder.New()
			if err := b.CopyAll(s); err != nil {
				return err.Error()
			}
			return res(b.Marshal(builder.Options{}))
		},
		func(s *btf.Spec) string { return minimal(s) },
		func(s *btf.Spec) string {
			var b bytes.Buffer
			return res(b.Bytes(), rawdump.Write(&b, s, rawdump.Options{}))
		},
		func(s *btf.Spec) string { return fmt.Sprint(s.Check()) },
	}
}

// TestUseWhileFlush (issue 37, redteam7c): goroutines that acquire the
// kernel's BTF from a Cache and run the heavy consumers on a module's
// split Spec (a layout, a copy, a raw dump, a comparison) while another
// goroutine flushes the Cache, evicting the Specs they hold from it,
// under GOMAXPROCS 1, 2 and 8: each answer is the one a Spec of its own
// gives, and -race sees no race.
func TestUseWhileFlush(t *testing.T) {
	keep := func(name string) bool { return name == "vmlinux" || name == "xfs" || name == "tls" }
	c := kernel.NewCache(kernel.Options{Sysfs: testfixtures.FakeSysfs(t, keep, nil), Workers: 2})
	defer c.Close()
	users := moduleUsers()
	h, err := c.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(users))
	for i, u := range users {
		if want[i], err = u(h); err != nil {
			t.Fatal(err)
		}
	}
	h.Release()
	for _, procs := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var wg sync.WaitGroup
			stop := make(chan struct{})
			flushes := 0
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := c.Flush(); err != nil {
						t.Error(err)
						return
					}
					flushes++
					// Often enough that most uses span a flush.
					time.Sleep(time.Millisecond)
				}
			})
			var users sync.WaitGroup
			for i, u := range moduleUsers() {
				users.Go(func() {
					for range 2 {
						h, err := c.Acquire()
						if err != nil {
							t.Error(err)
							return
						}
						got, err := u(h)
						h.Release()
						if err != nil || got != want[i] {
							t.Errorf("user %d: %v, %.200s; alone %.200s", i, err, got, want[i])
						}
					}
				})
			}
			users.Wait()
			close(stop)
			wg.Wait()
			t.Logf("%d flushes", flushes)
		})
	}
}

// moduleUsers use the xfs module's Spec from a Handle.
func moduleUsers() []func(*kernel.Handle) (string, error) {
	ctx := context.Background()
	mod := func(h *kernel.Handle, f func(s *btf.Spec, b *bytes.Buffer) error) (string, error) {
		s, err := h.Module("xfs")
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		err = f(s, &b)
		return fmt.Sprintf("%d %x", b.Len(), sum(b.Bytes())), err
	}
	return []func(*kernel.Handle) (string, error){
		func(h *kernel.Handle) (string, error) {
			return mod(h, func(s *btf.Spec, b *bytes.Buffer) error {
				return layout.Write(ctx, b, s, layout.Options{Names: []string{"xfs_mount", "xfs_inode"}})
			})
		},
		func(h *kernel.Handle) (string, error) {
			return mod(h, func(s *btf.Spec, b *bytes.Buffer) error {
				return builder.WriteCopy(b, s, s.Base(), builder.Options{})
			})
		},
		func(h *kernel.Handle) (string, error) {
			return mod(h, func(s *btf.Spec, b *bytes.Buffer) error {
				return rawdump.Write(b, s, rawdump.Options{Scope: btf.ScopeOwn})
			})
		},
		func(h *kernel.Handle) (string, error) {
			return mod(h, func(s *btf.Spec, b *bytes.Buffer) error {
				ch, err := diff.Compare(ctx, s, s, diff.Options{Scope: btf.ScopeOwn})
				fmt.Fprint(b, len(ch))
				return err
			})
		},
		func(h *kernel.Handle) (string, error) {
			return mod(h, func(s *btf.Spec, b *bytes.Buffer) error {
				t, err := s.FindOne("xfs_mount", btf.FindOptions{Kind: btf.KindStruct})
				if err != nil {
					return err
				}
				for _, m := range t.Members() {
					size, err := s.SizeOf(m.Type)
					f, ferr := s.Field("xfs_mount." + m.Name())
					fmt.Fprintln(b, m.Name(), size, err, f.BitOffset, f.Size, ferr)
				}
				return nil
			})
		},
	}
}
