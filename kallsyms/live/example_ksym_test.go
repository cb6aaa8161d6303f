package live_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kmeta-dev/kmeta/kallsyms"
	"github.com/kmeta-dev/kmeta/kallsyms/live"
)

// events is a KsymReader that hands over prepared batches, as the kernel's
// perf events would, and then blocks until closed.
type events struct {
	batches chan []live.KsymEvent
	closed  chan struct{}
}

func (e *events) Read(ctx context.Context, dst []live.KsymEvent) ([]live.KsymEvent, error) {
	select {
	case b := <-e.batches:
		return append(dst, b...), nil
	case <-e.closed:
		return dst, live.ErrClosed
	case <-ctx.Done():
		return dst, ctx.Err()
	}
}

func (e *events) Close() error { close(e.closed); return nil }

// A Symbolizer of the running kernel follows BPF programs as they load
// and unload (live.NewSymbolizer(live.Options{}); KsymEventsErr says whether
// it can). Here a kallsyms file and prepared events stand in for the
// kernel: the program's symbol resolves as soon as its event is applied,
// over its length, and no longer once it is removed.
func ExampleKsymReader() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "kallsyms")
	os.WriteFile(path, []byte("ffffffff81000000 T _stext\nffffffff81000010 t do_work\n"), 0o644)

	ev := &events{batches: make(chan []live.KsymEvent), closed: make(chan struct{})}
	applied := make(chan live.KsymEvent)
	sym, err := live.NewSymbolizer(live.Options{Kallsyms: path, NoSysfs: true, KsymEvents: ev,
		OnKsym: func(e live.KsymEvent) { applied <- e }})

	if err != nil {
		panic(err)
	}
	defer sym.Close()

	const prog = "bpf_prog_59f4a931744dcdc6_filter"
	const addr = 0xffffffffc0001000
	show := func(a uint64) {
		s, err := sym.Lookup(a)
		if errors.Is(err, kallsyms.ErrNotFound) {
			fmt.Printf("%#x: not found\n", a)
			return
		}
		fmt.Printf("%#x: %s+%#x [%s]\n", a, s.Name, s.Offset, s.Module)
	}
	ev.batches <- []live.KsymEvent{{Op: live.KsymAdd, Type: live.KsymTypeBPF, Name: prog, Addr: addr, Len: 20}}
	fmt.Println((<-applied).Op)
	show(addr + 4)
	ev.batches <- []live.KsymEvent{{Op: live.KsymRemove, Type: live.KsymTypeBPF, Name: prog, Addr: addr, Len: 20}}
	fmt.Println((<-applied).Op)
	show(addr + 4)
	// Output:
	// add
	// 0xffffffffc0001004: bpf_prog_59f4a931744dcdc6_filter+0x4 [bpf]
	// remove
	// 0xffffffffc0001004: not found
}
