package btf_test

import (
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestConcurrentLookups runs eight goroutines that look up types in a base
// Spec and in a split Spec over it at the same time; run it with -race.
// cilium/ebpf fails the same test (a split spec and its base race).
func TestConcurrentLookups(t *testing.T) {
	base := debianSpec(t)
	split := mustParse(t, testfixtures.Modules(t)["xfs"], base)
	names := []string{"task_struct", "xfs_mount", "sk_buff", "xfs_inode", "list_head", "inode"}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			s := base
			if g%2 == 1 {
				s = split
			}
			for i := range 36 {
				name := names[(g+i)%len(names)]
				// A flavoured Find scans every type: one in twelve keeps
				// both paths under contention in every goroutine.
				ts, err := s.Find(name, btf.FindOptions{Flavors: i%12 == 0})
				if err != nil && (s == split || name[:3] != "xfs") {
					errs <- err
					return
				}
				for _, typ := range ts {
					for _, m := range typ.Members() {
						if _, err := s.SizeOf(m.Type); err != nil && m.Type != 0 {
							// FUNC_PROTO members are fine; others must size.
							if r, _ := s.Resolve(m.Type); r.Kind() != btf.KindFuncProto {
								errs <- err
								return
							}
						}
					}
					_ = typ.Name()
				}
				_ = s.PointerSize()
				if _, err := split.TypeByID(btf.TypeID(1 + (i*7919)%int(split.LastID()))); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
