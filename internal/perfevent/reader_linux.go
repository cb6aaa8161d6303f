//go:build linux

package perfevent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Reader reads ksymbol (and with Options.BPFEvents, BPF event) records
// from one perf event per online CPU. CPUs that come online later are not
// followed.
type Reader struct {
	rings   []ring
	wakeMu  sync.Mutex // guards wake against a wakeup racing with Close
	wake    int        // an eventfd that Close and a done context write to
	pfds    []unix.PollFd
	mu      sync.Mutex // held by Read; Close takes it to free the rings
	closed  atomic.Bool
	scratch []byte
	raw     func(cpu int, rec []byte) // a test hook: every record's bytes
}

// ring is one CPU's perf event and its mapped ring buffer.
type ring struct {
	cpu  int
	fd   int
	mem  []byte                  // the whole mapping
	meta *unix.PerfEventMmapPage // its first page
	data []byte                  // the ring itself
}

// Options configures Open. The zero value (or nil) asks for ksymbol records
// with 8 pages of ring per CPU.
type Options struct {
	// Pages is the size of each CPU's ring in pages, a power of two; 8
	// when 0. A ksymbol record of a BPF program is about 64 bytes.
	Pages int
	// BPFEvents also asks for PERF_RECORD_BPF_EVENT records.
	BPFEvents bool
}

// The bits of perf_event_attr's flags word that Open sets, numbered as in
// include/uapi/linux/perf_event.h (unix has constants only up to bit 27).
const (
	bitWatermark   = unix.PerfBitWatermark
	bitSampleIDAll = unix.PerfBitSampleIDAll
	bitUseClockID  = unix.PerfBitUseClockID
	bitKsymbol     = unix.CBitFieldMaskBit29
	bitBPFEvent    = unix.CBitFieldMaskBit30
)

// Open opens one dummy software perf event per online CPU, with ksymbol
// records on, and maps their rings. The events count nothing: they only
// carry side-band records. Without permission it returns an error
// matching os.ErrPermission that names kernel.perf_event_paranoid; on a
// kernel without ksymbol records (before 5.1), one that says so.
func Open(opts *Options) (*Reader, error) {
	if opts == nil {
		opts = &Options{}
	}
	pages := opts.Pages
	if pages == 0 {
		pages = 8
	}
	if pages < 1 || pages&(pages-1) != 0 || pages > 1<<16 {
		return nil, fmt.Errorf("perfevent: %d pages per ring: want a power of two", pages)
	}
	cpus, err := onlineCPUs()
	if err != nil {
		return nil, err
	}
	r := &Reader{wake: -1}
	r.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("perfevent: eventfd: %w", err)
	}
	for _, cpu := range cpus {
		rg, err := openRing(cpu, pages, opts.BPFEvents)
		if err != nil {
			r.free()
			return nil, err
		}
		r.rings = append(r.rings, rg)
		r.pfds = append(r.pfds, unix.PollFd{Fd: int32(rg.fd), Events: unix.POLLIN})
	}
	r.pfds = append(r.pfds, unix.PollFd{Fd: int32(r.wake), Events: unix.POLLIN})
	return r, nil
}

// openRing opens the event of one CPU and maps its ring.
func openRing(cpu, pages int, bpfEvents bool) (ring, error) {
	attr := unix.PerfEventAttr{
		Type:        unix.PERF_TYPE_SOFTWARE,
		Config:      unix.PERF_COUNT_SW_DUMMY,
		Sample_type: unix.PERF_SAMPLE_TIME,
		Bits:        bitWatermark | bitSampleIDAll | bitUseClockID | bitKsymbol,
		Wakeup:      1, // with watermark: wake the reader for every record
		Clockid:     unix.CLOCK_MONOTONIC,
	}
	if bpfEvents {
		attr.Bits |= bitBPFEvent
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return ring{}, openError(cpu, err)
	}
	ps := os.Getpagesize()
	mem, err := unix.Mmap(fd, 0, (1+pages)*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(fd)
		return ring{}, fmt.Errorf("perfevent: mmap of the ring of cpu %d: %w", cpu, err)
	}
	rg := ring{cpu: cpu, fd: fd, mem: mem, meta: (*unix.PerfEventMmapPage)(unsafe.Pointer(&mem[0]))}
	off, size := rg.meta.Data_offset, rg.meta.Data_size
	if off == 0 || size == 0 { // before Linux 4.1: the ring follows the first page
		off, size = uint64(ps), uint64(pages*ps)
	}
	if off+size > uint64(len(mem)) || size&(size-1) != 0 {
		rg.close()
		return ring{}, fmt.Errorf("perfevent: cpu %d: ring at %d of %d bytes does not fit the mapping", cpu, off, size)
	}
	rg.data = mem[off : off+size]
	return rg, nil
}

// openError explains a failed perf_event_open.
func openError(cpu int, err error) error {
	switch {
	case errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM):
		p, _ := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
		return fmt.Errorf("perfevent: perf_event_open on cpu %d: %w (a CPU-wide event needs CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 0; it is %s)",
			cpu, err, strings.TrimSpace(string(p)))
	case errors.Is(err, unix.EINVAL):
		return fmt.Errorf("perfevent: perf_event_open on cpu %d: %w (a kernel without ksymbol records, before 5.1?)", cpu, err)
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOENT):
		return fmt.Errorf("perfevent: perf_event_open on cpu %d: %w (perf events are not supported)", cpu, err)
	}
	return fmt.Errorf("perfevent: perf_event_open on cpu %d: %w", cpu, err)
}

// onlineCPUs reads the online CPUs ("0-3,6") from sysfs.
func onlineCPUs() ([]int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, fmt.Errorf("perfevent: %w", err)
	}
	cpus, err := parseCPUList(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("perfevent: /sys/devices/system/cpu/online: %w", err)
	}
	return cpus, nil
}

// parseCPUList parses a kernel CPU list such as "0-3,6" (at most 1<<16
// CPUs).
func parseCPUList(s string) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= 1<<16 || len(out)+b-a >= 1<<16 {
			return nil, fmt.Errorf("bad CPU list %q", s)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

// Read appends to dst the records available in every CPU's ring, sorted by
// time (a stable sort: a CPU's own order is kept), and returns the
// extended slice. When no record is available it blocks until one is, ctx
// is done (it returns ctx.Err()) or the Reader is closed (ErrClosed). A
// ring found corrupt is skipped to its end and reported as a RecordLost
// record with Lost 0 and that CPU, so that the caller resyncs.
func (r *Reader) Read(ctx context.Context, dst []Record) ([]Record, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	stop := context.AfterFunc(ctx, r.wakeup)
	defer stop()
	start := len(dst)
	for {
		if r.closed.Load() {
			return dst, ErrClosed
		}
		dst = r.drainAll(dst)
		if len(dst) > start {
			slices.SortStableFunc(dst[start:], func(a, b Record) int {
				switch {
				case a.Time < b.Time:
					return -1
				case a.Time > b.Time:
					return 1
				}
				return 0
			})
			return dst, nil
		}
		if err := ctx.Err(); err != nil {
			return dst, err
		}
		if _, err := unix.Poll(r.pfds, -1); err != nil && err != unix.EINTR {
			return dst, fmt.Errorf("perfevent: poll: %w", err)
		}
		if r.pfds[len(r.pfds)-1].Revents != 0 {
			var buf [8]byte
			unix.Read(r.wake, buf[:]) // reset the eventfd; the loop checks why
		}
	}
}

// drainAll appends the records of every ring to dst.
func (r *Reader) drainAll(dst []Record) []Record {
	for i := range r.rings {
		rg := &r.rings[i]
		head := atomic.LoadUint64(&rg.meta.Data_head)
		tail := rg.meta.Data_tail
		if head == tail {
			continue
		}
		var bad bool
		newTail, err := drain(rg.data, tail, head, &r.scratch, func(b []byte) {
			if r.raw != nil {
				r.raw(rg.cpu, b)
			}
			rec, _, err := Parse(b, true)
			if err != nil {
				bad = true
				return
			}
			rec.CPU = rg.cpu
			dst = append(dst, rec)
		})
		if err != nil || bad {
			dst = append(dst, Record{Type: RecordLost, CPU: rg.cpu})
		}
		atomic.StoreUint64(&rg.meta.Data_tail, newTail)
	}
	return dst
}

// wakeup interrupts a blocked Read. It may run on any goroutine, also
// after Close (a context's AfterFunc).
func (r *Reader) wakeup() {
	one := [8]byte{1}
	if !isLittle() {
		one = [8]byte{7: 1}
	}
	r.wakeMu.Lock()
	defer r.wakeMu.Unlock()
	if r.wake >= 0 {
		unix.Write(r.wake, one[:])
	}
}

// Close stops the events, unmaps the rings and ends a blocked Read with
// ErrClosed. It is safe to call more than once; later calls return nil.
func (r *Reader) Close() error {
	if r.closed.Swap(true) {
		return nil
	}
	r.wakeup()
	r.mu.Lock() // wait for a Read in progress
	defer r.mu.Unlock()
	r.free()
	return nil
}

// free releases the rings and the eventfd.
func (r *Reader) free() {
	for i := range r.rings {
		r.rings[i].close()
	}
	r.rings, r.pfds = nil, nil
	r.wakeMu.Lock()
	defer r.wakeMu.Unlock()
	if r.wake >= 0 {
		unix.Close(r.wake)
		r.wake = -1
	}
}

func (rg *ring) close() {
	unix.Munmap(rg.mem)
	unix.Close(rg.fd)
}

// Now returns the current CLOCK_MONOTONIC time in nanoseconds, the clock
// of Record.Time.
func Now() uint64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return uint64(ts.Nano())
}
