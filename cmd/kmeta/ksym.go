package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/kallsyms"
	"github.com/kmeta-dev/kmeta/kallsyms/live"
	"github.com/kmeta-dev/kmeta/uevent"
	"github.com/spf13/cobra"
)

// ksymFlags are the flags every ksym subcommand takes.
type ksymFlags struct {
	kallsyms string
	sysfs    string
	json     bool
	data     bool
}

func (c *cli) ksymCmd() *cobra.Command {
	f := &ksymFlags{}
	cmd := &cobra.Command{
		Use:   "ksym",
		Short: "Resolve kernel addresses and symbols from kallsyms",
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.kallsyms, "kallsyms", kallsyms.DefaultPath, "kallsyms `FILE` (\"-\": standard input)")
	pf.BoolVar(&f.data, "data", false, "keep data symbols too (by default only text symbols: t, T, w, W)")
	pf.StringVar(&f.sysfs, "sysfs", kallsyms.DefaultSysfs, "sysfs mount `DIR` (module metadata)")
	pf.BoolVar(&f.json, "json", false, "print JSON")
	var module string
	nameCmd := &cobra.Command{
		Use:   "name NAME",
		Short: "Print the addresses of a symbol",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.ksymName(f, args[0], module)
		},
	}
	nameCmd.Flags().StringVar(&module, "module", "", "only symbols of module `M`")
	cmd.AddCommand(
		&cobra.Command{
			Use:   "addr ADDR...",
			Short: "Print SYMBOL+0xOFFSET [MODULE] for each address",
			Args:  cobra.MinimumNArgs(1),
			RunE:  func(cmd *cobra.Command, args []string) error { return c.ksymAddr(f, args) },
		},
		nameCmd,
		&cobra.Command{
			Use:   "modules",
			Short: "List modules with address ranges and build IDs",
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, args []string) error { return c.ksymModules(f) },
		},
		&cobra.Command{
			Use:   "stats",
			Short: "Print symbol and module counts, memory and load time",
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, args []string) error { return c.ksymStats(f) },
		},
		&cobra.Command{
			Use:   "watch",
			Short: "Print module events, BPF symbols added and removed, and reloads until interrupted",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				if f.kallsyms == "-" {
					return usageError(cmd, errors.New("--kallsyms -: watch rereads kallsyms when modules come and go, and standard input cannot be read twice; name a file"))
				}
				return c.ksymWatch(cmd.Context(), f)
			},
		},
	)
	return cmd
}

// load reads sysfs module metadata and kallsyms ("-": standard input)
// into a snapshot.
func (c *cli) load(f *ksymFlags) (*kallsyms.Snapshot, error) {
	infos, err := kallsyms.ReadModules(f.sysfs)
	if err != nil {
		return nil, err
	}
	opts := kallsyms.Options{Modules: infos, Data: f.data, Workers: runtime.GOMAXPROCS(0), MaxSize: c.maxInput}
	if f.kallsyms == "-" {
		return c.loadStream(c.stdinReader(c.ctx), "stdin", opts)
	}
	path := cmp.Or(f.kallsyms, kallsyms.DefaultPath)
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		if compressedFile(path) {
			file, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer file.Close()
			if fi.Size() > c.maxInput && c.maxInput > 0 {
				return nil, withHint(fmt.Errorf("kallsyms: %w", &input.TooLargeError{What: path, Limit: c.maxInput, Size: fi.Size()}))
			}
			return c.loadStream(file, path, opts)
		}
		limitMemory(fi.Size()) // a larger one fails before it is read
	}
	s, err := kallsyms.ReadFile(path, opts)
	return s, withHint(err)
}

// compressedFile tells whether the regular file at path starts as gzip,
// xz or zstd data (a saved kallsyms.gz).
func compressedFile(path string) bool {
	file, err := os.Open(path)
	if err != nil {
		return false
	}
	defer file.Close()
	var head [input.MagicLen]byte
	n, _ := io.ReadFull(file, head[:])
	return input.Detect(head[:n]) != input.None
}

// loadStream parses the kallsyms text of r, which what names, or of the
// data r holds compressed, raising the runtime's memory limit as the
// compressed data and the text come (memoryFollows).
func (c *cli) loadStream(r io.Reader, what string, opts kallsyms.Options) (*kallsyms.Snapshot, error) {
	m := &memoryFollows{}
	limitMemory(0)
	text, format, done, err := input.Uncompressed(m.follow(&input.LimitReader{R: r, What: what, Limit: c.maxInput}), what, c.maxInput)
	if errors.Is(err, input.ErrTooLarge) {
		return nil, withHint(fmt.Errorf("kallsyms: %w", err)) // it names the input
	} else if err != nil {
		return nil, fmt.Errorf("kallsyms: %s: %w", what, err)
	}
	defer done()
	if format != input.None {
		text = m.follow(text)
	}
	s, err := kallsyms.Parse(text, opts)
	return s, withHint(err)
}

// memoryFollows raises the runtime's memory limit (limitMemory) as the
// kallsyms text of standard input, or a compressed file's data and then
// its text, come, a MB at a time: the snapshot is a fraction of its text,
// so the reading commands' rule (twice the input plus 20 MB) holds for it
// as for a file, whose size is known. Every reader it follows adds to one
// count.
type memoryFollows struct{ n, set int64 }

// follow returns r, counting what it reads.
func (m *memoryFollows) follow(r io.Reader) io.Reader { return &followed{r: r, m: m} }

type followed struct {
	r io.Reader
	m *memoryFollows
}

func (f *followed) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	m := f.m
	if m.n += int64(n); m.n-m.set >= 1<<20 {
		m.set = m.n
		limitMemory(m.n)
	}
	return n, err
}

func (c *cli) printJSON(v any) error {
	return writeJSON(c.out(), v)
}

func parseAddr(s string) (uint64, error) {
	a, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("bad address %q: want hex", s)
	}
	return a, nil
}

// addrJSON is one address of ksym addr --json: the symbol that holds it
// (name, byte offset into it, module), or why there is none.
type addrJSON struct {
	Addr   string  `json:"addr"`
	Name   string  `json:"name,omitempty"`
	Offset *uint64 `json:"offset,omitempty"`
	Module string  `json:"module,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// ksymAddr prints one line per address, in order; unresolved addresses
// print "?" and make the command fail after all lines are printed.
func (c *cli) ksymAddr(f *ksymFlags, args []string) error {
	addrs := make([]uint64, len(args))
	for i, a := range args {
		var err error
		if addrs[i], err = parseAddr(a); err != nil {
			return err
		}
	}
	snap, err := c.load(f)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(c.out())
	results := newJSONArray(w)
	missing := 0
	for _, a := range addrs {
		// Without --data, an address past a run of text (rodata after
		// _etext) is kallsyms.ErrNotText, not the text symbol below it.
		sym, err := snap.Lookup(a)
		if errors.Is(err, kallsyms.ErrNotText) {
			err = fmt.Errorf("%#x is outside every text symbol (in data? --data names it)", a)
		}
		if err != nil {
			missing++
		}
		if !f.json {
			if _, err := w.WriteString(formatAddr(a, sym, err) + "\n"); err != nil {
				return err
			}
			continue
		}
		r := addrJSON{Addr: fmt.Sprintf("0x%x", a), Name: sym.Name, Offset: ptr(sym.Offset), Module: sym.Module}
		if err != nil {
			r = addrJSON{Addr: r.Addr, Error: err.Error()}
		}
		if err := results.add(r); err != nil {
			return err
		}
	}
	if f.json {
		if err := results.close(); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if missing > 0 {
		return notFound("%d of %d addresses not found", missing, len(addrs))
	}
	return nil
}

// formatAddr renders "ADDR SYMBOL+0xOFFSET [MODULE]", the module omitted
// for vmlinux and the symbol "?" when only the module is known.
func formatAddr(a uint64, sym kallsyms.Symbol, err error) string {
	if err != nil {
		return fmt.Sprintf("%016x ?", a)
	}
	name := escapeName(sym.Name)
	if name == "" {
		name = "?"
	}
	s := fmt.Sprintf("%016x %s+0x%x", a, name, sym.Offset)
	if sym.Module != kallsyms.Vmlinux {
		s += " [" + escapeName(sym.Module) + "]"
	}
	return s
}

// nameJSON is one symbol of ksym name --json.
type nameJSON struct {
	Addr   string `json:"addr"`
	Name   string `json:"name"`
	Module string `json:"module"`
}

// ksymName prints the symbols called name (of module, when not ""), each
// as it is found: a name that many symbols share (hundreds of thousands in
// a hostile kallsyms) costs no memory for its matches.
func (c *cli) ksymName(f *ksymFlags, name, module string) error {
	snap, err := c.load(f)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(c.out())
	results := newJSONArray(w)
	escName := escapeName(name)
	lastMod, escMod := "", "" // the module of the last match, escaped
	found := 0
	for s := range snap.LookupNameSeq(name, module) {
		found++
		if f.json {
			if err := results.add(nameJSON{fmt.Sprintf("0x%x", s.Addr), s.Name, s.Module}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(w, "%016x %s", s.Addr, escName)
		if s.Module != kallsyms.Vmlinux {
			if s.Module != lastMod {
				lastMod, escMod = s.Module, escapeName(s.Module)
			}
			w.WriteString(" [" + escMod + "]")
		}
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
	}
	if f.json { // nothing found: an empty list, as btf find prints
		if err := results.close(); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if found == 0 {
		_, err := snap.LookupName(name, module) // its ErrNotFound names what was sought
		return notFound("%w", err)
	}
	return nil
}

func (c *cli) ksymModules(f *ksymFlags) error {
	snap, err := c.load(f)
	if err != nil {
		return err
	}
	type modJSON struct {
		Name    string `json:"name"`
		Start   string `json:"start"`
		End     string `json:"end"`
		Symbols int    `json:"symbols"`
		BuildID string `json:"build_id,omitempty"`
		State   string `json:"state,omitempty"`
		Pseudo  bool   `json:"pseudo"`
	}
	w := bufio.NewWriter(c.out())
	results := newJSONArray(w)
	if !f.json {
		fmt.Fprintf(w, "%-24s %-33s %8s %s\n", "MODULE", "START-END", "SYMBOLS", "BUILD_ID")
	}
	for _, m := range snap.Modules() {
		j := modJSON{m.Name, fmt.Sprintf("0x%x", m.Start), fmt.Sprintf("0x%x", m.End), m.Symbols, hex.EncodeToString(m.BuildID), m.State, m.Pseudo}
		if f.json {
			if err := results.add(j); err != nil {
				return err
			}
			continue
		}
		id := j.BuildID
		if id == "" {
			id = "-"
		}
		if _, err := fmt.Fprintf(w, "%-24s %016x-%016x %8d %s\n", escapeName(m.Name), m.Start, m.End, m.Symbols, id); err != nil {
			return err
		}
	}
	if f.json {
		if err := results.close(); err != nil {
			return err
		}
	}
	return w.Flush()
}

// listedModules is the number of modules ksym modules lists for s, whose
// Stats are st: st's modules and vmlinux. It counts them without making
// the list (a Module each, 65,536 of them in a hostile kallsyms).
func listedModules(s *kallsyms.Snapshot, st kallsyms.Stats) int {
	if _, err := s.Module(kallsyms.Vmlinux); err == nil {
		return st.Modules + 1
	}
	return st.Modules
}

func (c *cli) ksymStats(f *ksymFlags) error {
	snap, err := c.load(f)
	if err != nil {
		return err
	}
	st := snap.Stats()
	st.Modules = listedModules(snap, st)
	perSym := 0.0
	if st.Symbols > 0 {
		perSym = float64(st.Bytes) / float64(st.Symbols)
	}
	if f.json {
		return c.printJSON(map[string]any{
			"symbols": st.Symbols, "modules": st.Modules, "bytes": st.Bytes,
			"bytes_per_symbol": perSym, "load_seconds": st.LoadTime.Seconds(),
		})
	}
	_, err = fmt.Fprintf(c.stdout, "symbols:          %d\nmodules:          %d\nbytes:            %d\nbytes_per_symbol: %.2f\nload_seconds:     %.4f\n",
		st.Symbols, st.Modules, st.Bytes, perSym, st.LoadTime.Seconds())
	return err
}

// ksymWatch prints module events, BPF symbol events and reloads until ctx
// ends.
func (c *cli) ksymWatch(ctx context.Context, f *ksymFlags) error {
	var mu sync.Mutex // OnEvent, OnKsym and OnReload run on different goroutines
	lines := newJSONLines(c.stdout)
	emit := func(text string, v map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		if f.json {
			lines.Encode(v)
			return
		}
		io.WriteString(c.stdout, text+"\n")
	}
	sym, err := live.NewSymbolizer(live.Options{
		Workers:  runtime.GOMAXPROCS(0),
		Kallsyms: f.kallsyms, Sysfs: f.sysfs, MaxSize: c.maxInput,
		OnReload: func(ev live.ReloadEvent) { emitReload(emit, ev) },
		OnKsym:   func(ev live.KsymEvent) { emitKsym(emit, ev) },
	})

	if err != nil {
		return err
	}
	defer sym.Close()
	st := sym.Snapshot().Stats()
	st.Modules = listedModules(sym.Snapshot(), st)
	text := fmt.Sprintf("loaded %d symbols, %d modules; watching module uevents and BPF symbols", st.Symbols, st.Modules)
	v := map[string]any{"event": "loaded", "symbols": st.Symbols, "modules": st.Modules, "ksym_events": true}
	if kerr := sym.KsymEventsErr(); kerr != nil {
		text = fmt.Sprintf("loaded %d symbols, %d modules; watching module uevents (%v)", st.Symbols, st.Modules, kerr)
		v["ksym_events"], v["ksym_error"] = false, kerr.Error()
	}
	emit(text, v)
	err = sym.Watch(ctx, live.WatchOptions{OnEvent: func(ev uevent.Event, err error) {
		v := map[string]any{"event": "uevent", "action": ev.Action, "devpath": ev.DevPath, "subsystem": ev.Subsystem, "port_id": ev.PortID}
		text := fmt.Sprintf("uevent %s %s subsystem=%s port=%d", escapeName(ev.Action), escapeName(ev.DevPath), escapeName(ev.Subsystem), ev.PortID)
		if err != nil {
			v["ignored"] = err.Error()
			text += " ignored: " + err.Error()
		}
		emit(text, v)
	}})
	if ctx.Err() != nil {
		// Interrupted: the output is complete up to here, and the exit
		// status says how it ended (130 or 143), as for every command.
		return context.Cause(ctx)
	}
	return err
}

// emitKsym prints one ksymbol event: "bpf add NAME addr=0x... len=N" (or
// "ool" for out-of-line code), or the kernel's lost events.
func emitKsym(emit func(string, map[string]any), ev live.KsymEvent) {
	if ev.Op == live.KsymLost {
		emit(fmt.Sprintf("ksym lost %d events; resync", ev.Lost), map[string]any{"event": "ksym", "action": "lost", "lost": ev.Lost})
		return
	}
	kind := map[uint16]string{live.KsymTypeBPF: "bpf", live.KsymTypeOOL: "ool"}[ev.Type]
	if kind == "" {
		kind = fmt.Sprintf("type%d", ev.Type)
	}
	emit(fmt.Sprintf("%s %s %s addr=0x%x len=%d", kind, ev.Op, escapeName(ev.Name), ev.Addr, ev.Len),
		map[string]any{"event": "ksym", "action": ev.Op.String(), "ksym_type": kind, "name": ev.Name,
			"addr": fmt.Sprintf("0x%x", ev.Addr), "size": ev.Len})
}

func emitReload(emit func(string, map[string]any), ev live.ReloadEvent) {
	if ev.Err != nil {
		emit("reload failed (keeping the old symbols): "+ev.Err.Error(),
			map[string]any{"event": "reload", "error": ev.Err.Error(), "reasons": ev.Reasons})
		return
	}
	st := ev.Snapshot.Stats()
	st.Modules = listedModules(ev.Snapshot, st)
	emit(fmt.Sprintf("reload (%s): %d symbols, %d modules, %d tables reused, %v",
		strings.Join(ev.Reasons, ", "), st.Symbols, st.Modules, ev.Reused, ev.Duration),
		map[string]any{"event": "reload", "reasons": ev.Reasons, "symbols": st.Symbols, "modules": st.Modules,
			"reused": ev.Reused, "seconds": ev.Duration.Seconds()})
}
