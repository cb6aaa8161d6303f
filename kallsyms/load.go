package kallsyms

import (
	"cmp"
	"context"
	"errors"
	"io"
	"time"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// DefaultPath is where the kernel publishes its symbols.
const DefaultPath = "/proc/kallsyms"

// Options controls how a snapshot is built. The zero value (or a nil
// *Options) loads text symbols only.
type Options struct {
	// Data keeps data symbols (types other than t, T, w, W) too, and the
	// type letter of every symbol. Without it, lookups of addresses outside
	// the runs of text symbols return ErrNotText (see Snapshot.Lookup).
	Data bool
	// Modules is module metadata from sysfs (see ReadModules) to attach to
	// the snapshot.
	Modules []ModuleInfo
	// Reuse is a previous snapshot whose module tables are kept in place of
	// equal new ones, so unchanged modules share memory across reloads.
	Reuse *Snapshot
	// Workers is how many goroutines loading may use: 0 or 1 reads and
	// parses on the caller's goroutine alone; 2 or more reads the input on
	// a second goroutine while the caller parses (the kernel's time to
	// produce /proc/kallsyms then overlaps with parsing) and lays out a big
	// table on two.
	Workers int
	// MaxSize bounds the text Parse and ReadFile read: past it they fail
	// with an error that matches btf.ErrTooLarge and names the input. Zero
	// means btf.DefaultMaxSize (1 GiB); /proc/kallsyms is tens of MB.
	MaxSize int64
}

// Parse reads kallsyms text ("ADDRESS TYPE NAME [MODULE]" lines) from r and
// returns its snapshot. The text may be compressed with gzip, xz or zstd
// (a saved kallsyms.gz), which Parse tells by its first bytes. Empty input gives an empty snapshot. Input whose
// addresses are all zero returns ErrRestricted; a malformed line returns a
// *ParseError. With opts.Workers of 2 or more, r is read on a separate
// goroutine until EOF or an error; if parsing fails first, that goroutine
// stops after its current Read. More than opts.MaxSize bytes of input
// fail as "kallsyms input is larger than the limit".
func Parse(r io.Reader, opts Options) (*Snapshot, error) {
	return parse(&input.LimitReader{R: r, What: "kallsyms input", Limit: opts.MaxSize}, "kallsyms input", &opts)
}

// parse is Parse of r, which the caller has bounded; what names the
// input in the bound's error of its decompressed text.
func parse(r io.Reader, what string, opts *Options) (*Snapshot, error) {
	start := time.Now()
	r, _, done, err := input.Uncompressed(r, what, opts.MaxSize)
	if err != nil {
		return nil, pkgerr.Errorf("kallsyms: %w", err)
	}
	defer done()
	in, err := readAll(r, opts.Data, opts.Workers >= 2)
	if err != nil {
		return nil, pkgerr.Errorf("kallsyms: %w", err)
	}
	s := build(in, opts)
	s.load = time.Since(start)
	return s, nil
}

// ReadFile reads the kallsyms file at path (DefaultPath for "") and returns
// its snapshot, as Parse does. The file is closed before ReadFile returns.
// A regular file larger than opts.MaxSize is refused before it is read; a
// file whose size is not known (/proc/kallsyms, a FIFO) is read up to it.
// The error for either names the file.
// For a snapshot kept current while the kernel changes, see package
// kallsyms/live.
func ReadFile(path string, opts Options) (*Snapshot, error) {
	return ReadFileContext(context.Background(), path, opts)
}

// ReadFileContext is ReadFile that gives up when ctx ends: a read that
// waits (a FIFO with no writer, or one that stops writing) is interrupted
// and ctx's cause returned. A long-lived reader (kallsyms/live's
// Symbolizer) passes the context its Close cancels, so that Close does not
// wait forever behind a reload of a path that has become a FIFO.
func ReadFileContext(ctx context.Context, path string, opts Options) (*Snapshot, error) {
	if path == "" {
		path = DefaultPath
	}
	start := time.Now()
	// Opened without blocking: a FIFO is read once a writer comes.
	f, fi, err := input.OpenFile(path)
	if err != nil {
		return nil, pkgerr.Errorf("kallsyms: %w", err)
	}
	defer f.Close()
	// f is non-blocking, so a FIFO is in Go's poller: a deadline interrupts
	// a read that waits. (A regular file never waits; its deadline fails.)
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	limit := cmp.Or(max(opts.MaxSize, 0), input.DefaultLimit)
	if fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, pkgerr.Errorf("kallsyms: %w", &input.TooLargeError{What: path, Limit: limit, Size: fi.Size()})
	}
	s, err := parse(&input.LimitReader{R: input.FileReader(f, fi), What: path, Limit: limit}, path, &opts)
	if err != nil && ctx.Err() != nil {
		return nil, pkgerr.Errorf("kallsyms: %s: %w", path, context.Cause(ctx))
	}
	if errors.Is(err, input.ErrTooLarge) {
		return nil, pkgerr.Errorf("kallsyms: %w", err) // it names the file
	} else if err != nil {
		return nil, pkgerr.Errorf("kallsyms: %s: %w", path, err)
	}
	s.load = time.Since(start)
	return s, nil
}

// build makes the tables of what the parser read: vmlinux's from its
// builder, then each module's from its lines, one module at a time
// through one builder's storage, so that what a module costs beyond its
// lines is its table alone.
func build(in *parsed, opts *Options) *Snapshot {
	var tabs []*table
	keep := func(b *builder) {
		b.parallel = opts.Workers >= 2
		t := b.finish()
		if t.len() == 0 { // only non-text symbols, without Options.Data
			return
		}
		if opts.Reuse != nil {
			if j, ok := opts.Reuse.module(t.name); ok {
				if old := opts.Reuse.mods[j].tab; old.equal(t) {
					t = old
				}
			}
		}
		tabs = append(tabs, t)
	}
	b, arena := in.vmlinux, &tableArena{}
	if b != nil {
		keep(b)
		in.vmlinux = nil
	}
	in.modules.replay(func(name string, events func(func(uint64, byte, []byte) bool)) {
		if b == nil {
			b = newBuilder(name, opts.Data)
		} else {
			b.reset(name)
		}
		b.arena = arena
		events(func(addr uint64, typ byte, name []byte) bool {
			if opts.Data || isText(typ) {
				b.add(addr, typ, name)
			} else {
				b.stop(addr)
			}
			return true
		})
		keep(b)
	})
	if b != nil {
		b.release()
	}
	return newSnapshot(tabs, opts.Modules, opts.Data)
}

// WithModules returns a snapshot with the same symbol tables as s and the
// module metadata infos in place of s's. s is not changed.
func (s *Snapshot) WithModules(infos []ModuleInfo) *Snapshot {
	var tabs []*table
	for i := range s.mods {
		if t := s.mods[i].tab; t.len() > 0 {
			tabs = append(tabs, t)
		}
	}
	n := newSnapshot(tabs, infos, s.data)
	n.load = s.load
	return n
}

// Shares reports how many of s's module tables are shared with other,
// because a reload found those modules unchanged.
func (s *Snapshot) Shares(other *Snapshot) int {
	n := 0
	for i := range s.mods {
		if j, ok := other.module(s.mods[i].tab.name); ok && other.mods[j].tab == s.mods[i].tab && s.mods[i].tab.len() > 0 {
			n++
		}
	}
	return n
}
