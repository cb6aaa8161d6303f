package dwarf2btf

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkUnits runs the workers' part of the encoding alone (load,
// recode and emit every unit of $KMETA_DWARF_FILE, an uncompressed vmlinux
// or .ko, as run.unit does, on one goroutine, with the input's own encoder
// and no merge): the CPU the workers spend, without the merge and the
// deduplication beside them. See BENCH.md.
func BenchmarkUnits(b *testing.B) {
	data := benchFile(b)
	o, err := openObject(data)
	if err != nil {
		b.Fatal(err)
	}
	defer o.free()
	opts := Options{}
	if err := opts.resolve(o); err != nil {
		b.Fatal(err)
	}
	syms, err := o.symbols(&opts, &encodeInfo{})
	if err != nil {
		b.Fatal(err)
	}
	d := o.dwarfData(&opts)
	units, err := d.units()
	if err != nil {
		b.Fatal(err)
	}
	little := o.order.Uint16([]byte{1, 0}) == 1
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for b.Loop() {
		l := &loader{cu: &cuData{}}
		cache := map[abbrevKey]*abbrevTable{}
		out := &encoded{}
		types := 0
		for _, u := range units {
			// run.unit's steps, with no output beyond the unit's.
			out.reset()
			if len(cache) > 8 {
				clear(cache)
			}
			r, err := d.newUnitReader(u, cache)
			if err != nil {
				b.Fatal(err)
			}
			l.r = r
			l.cu.reset(u)
			l.mems, l.anns, l.ps = l.mems[:0], l.anns[:0], l.ps[:0]
			if err := l.load(); err != nil {
				b.Fatal(err)
			}
			if l.cu.language == langRust || l.cu.types.len() == 1 && len(l.cu.funcs) == 0 && len(l.cu.vars) == 0 {
				continue
			}
			if err := l.cu.recode(little); err != nil {
				b.Fatal(err)
			}
			em := &emitter{cu: l.cu, obj: syms, opts: &opts, out: out}
			if err := em.emit(); err != nil {
				b.Fatal(err)
			}
			types += len(out.types)
		}
		b.ReportMetric(float64(types), "types")
	}
	// The CPU time of the process (the loop and the garbage collector),
	// which a busy machine disturbs less than the wall time.
	b.ReportMetric(float64((cpuTime(b)-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU time the process used so far, user and system.
func cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// units returns the header of every unit of .debug_info.
func (d *dwarfData) units() ([]unitHeader, error) {
	offs, err := d.unitOffsets()
	if err != nil {
		return nil, err
	}
	us := make([]unitHeader, len(offs))
	for i, off := range offs {
		if us[i], err = d.unitAt(uint64(off)); err != nil {
			return nil, err
		}
	}
	return us, nil
}
