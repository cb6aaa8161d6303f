package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/bpfobj"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
)

func (c *cli) btfListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [id ID]",
		Short: "List the kernel's BTF objects, as bpftool btf list does",
		Long: `List the BTF objects the running kernel holds (vmlinux, modules, and the BTF
of loaded BPF programs and maps) with their ids, names and sizes, and the
programs and maps that use each: what "bpftool btf list" prints (bpftool
7.1, which prints no pids), byte for byte; --json prints the data of
"bpftool -j btf list" as a JSON document, an array of objects (also for
one id). "id ID" lists that object only, as "bpftool btf list id ID" does;
an id that does not exist gives exit status 1 (and [] with --json). Print an object's
types with "kmeta btf dump id ID". Needs root (CAP_SYS_ADMIN).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 0 && (len(args) != 2 || args[0] != "id") {
				return errors.New(`want no arguments, or "id ID"`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.btfList(asJSON, nil)
			}
			id, err := strconv.ParseUint(args[1], 0, 32)
			if err != nil {
				return usageError(cmd, fmt.Errorf("bad BTF id %q: want a number", args[1]))
			}
			one := uint32(id)
			return c.btfList(asJSON, &one)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: an array of objects with bpftool -j's keys")
	return cmd
}

// btfListJSON is one object of "btf list --json", with bpftool's keys in
// bpftool's order.
type btfListJSON struct {
	ID      uint32   `json:"id"`
	Size    uint32   `json:"size"`
	ProgIDs []uint32 `json:"prog_ids"`
	MapIDs  []uint32 `json:"map_ids"`
	Kernel  bool     `json:"kernel"`
	Name    string   `json:"name,omitempty"`
}

// btfList prints every BTF object, or the one with id *one.
func (c *cli) btfList(asJSON bool, one *uint32) error {
	progs, maps, err := bpftoolUsers()
	if err != nil {
		return liveError(err)
	}
	w := bufio.NewWriter(c.out())
	objs := []btfListJSON{} // bpftool -j prints [] for none
	add := func(info bpfobj.BTFInfo) {
		o := btfListJSON{ID: info.ID, Size: info.Size, ProgIDs: progs.get(info.ID),
			MapIDs: maps.get(info.ID), Kernel: info.Kernel, Name: info.Name}
		if asJSON {
			objs = append(objs, o)
		} else {
			writeBTFListLine(w, o)
		}
	}
	if one != nil {
		info, err := bpfobj.BTFByID(*one)
		if err != nil {
			if asJSON && errors.Is(err, bpfobj.ErrNotFound) {
				// Nothing found: an empty list, as btf find prints.
				if err := writeJSON(w, objs); err != nil {
					return err
				}
				w.Flush()
			}
			return liveError(err)
		}
		add(info)
	} else {
		for info, err := range bpfobj.BTFs() {
			if err != nil {
				return liveError(err)
			}
			add(info)
		}
	}
	if asJSON {
		// A document, as every --json list: an array also for one id
		// (bpftool -j prints that object alone).
		if err := writeJSON(w, objs); err != nil {
			return err
		}
	}
	return w.Flush()
}

// writeBTFListLine prints one object as bpftool's show_btf_plain does.
func writeBTFListLine(w *bufio.Writer, o btfListJSON) {
	w.WriteString(strconv.FormatUint(uint64(o.ID), 10))
	switch {
	case o.Kernel:
		w.WriteString(": name [" + o.Name + "]  ")
	case o.Name != "":
		w.WriteString(": name " + o.Name + "  ")
	default:
		w.WriteString(": name <anon>  ")
	}
	w.WriteString("size " + strconv.FormatUint(uint64(o.Size), 10) + "B")
	for i, id := range o.ProgIDs {
		w.WriteString(cond(i == 0, "  prog_ids ", ","))
		w.WriteString(strconv.FormatUint(uint64(id), 10))
	}
	for i, id := range o.MapIDs {
		w.WriteString(cond(i == 0, "  map_ids ", ","))
		w.WriteString(strconv.FormatUint(uint64(id), 10))
	}
	w.WriteByte('\n')
}

func cond(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

// bpftoolUsers returns the programs and the maps that use each BTF object,
// in the order in which bpftool 7.1 prints them.
func bpftoolUsers() (progs, maps *libbpfHashmap, err error) {
	users, err := bpfobj.BTFUsers()
	if err != nil {
		return nil, nil, err
	}
	// bpftool appends (btf id, object id) as it walks the objects in id
	// order: replay that walk.
	type pair struct{ btf, obj uint32 }
	var ps, ms []pair
	for btfID, u := range users {
		for _, id := range u.Progs {
			ps = append(ps, pair{btfID, id})
		}
		for _, id := range u.Maps {
			ms = append(ms, pair{btfID, id})
		}
	}
	byObj := func(a, b pair) int { return int(int64(a.obj) - int64(b.obj)) }
	slices.SortFunc(ps, byObj)
	slices.SortFunc(ms, byObj)
	progs, maps = new(libbpfHashmap), new(libbpfHashmap)
	for _, p := range ps {
		progs.append(p.btf, p.obj)
	}
	for _, m := range ms {
		maps.append(m.btf, m.obj)
	}
	return progs, maps, nil
}

// libbpfHashmap replays the libbpf hashmap that bpftool collects the users
// of each BTF object in (bpftool's build_btf_type_table, libbpf 1.1's
// hashmap.c), because bpftool prints a key's values in the order of its
// bucket's chain, which is neither insertion nor id order: an entry goes
// to the head of its bucket's chain; when the table is more than 3/4 full
// it doubles (from 4 buckets) and moves the entries, bucket by bucket and
// each chain from its head, to the head of their new chains. The hash of a
// key is its value times 11400714819323198485 (2^64 over the golden
// ratio), of which the top bits index the bucket (hash_bits, LP64).
type libbpfHashmap struct {
	buckets [][]hashEntry // each chain with its head last
	bits    uint
	n       int
}

type hashEntry struct{ key, value uint32 }

func (m *libbpfHashmap) bucket(key uint32) uint64 {
	if m.bits == 0 {
		return 0
	}
	return (uint64(key) * 11400714819323198485) >> (64 - m.bits)
}

// append is hashmap__append.
func (m *libbpfHashmap) append(key, value uint32) {
	if len(m.buckets) == 0 || (m.n+1)*4/3 > len(m.buckets) {
		m.grow()
	}
	b := m.bucket(key)
	m.buckets[b] = append(m.buckets[b], hashEntry{key, value})
	m.n++
}

// grow is hashmap_grow.
func (m *libbpfHashmap) grow() {
	old := m.buckets
	m.bits = max(m.bits+1, 2)
	m.buckets = make([][]hashEntry, 1<<m.bits)
	for _, chain := range old {
		for i := len(chain) - 1; i >= 0; i-- { // from the head
			b := m.bucket(chain[i].key)
			m.buckets[b] = append(m.buckets[b], chain[i])
		}
	}
}

// get returns the values of key in the order of hashmap__for_each_key_entry.
func (m *libbpfHashmap) get(key uint32) []uint32 {
	out := []uint32{} // bpftool -j prints [] for none
	if len(m.buckets) == 0 {
		return out
	}
	chain := m.buckets[m.bucket(key)]
	for i := len(chain) - 1; i >= 0; i-- {
		if chain[i].key == key {
			out = append(out, chain[i].value)
		}
	}
	return out
}

// liveSource is what "btf dump id|prog|map ID [PART]" names.
type liveSource struct {
	kind string // "id", "prog" or "map"
	id   uint32
	part string // for maps: "key", "value", "kv", "all"; "" is "kv"
}

// isLiveDump reports whether the arguments of "btf dump" name a kernel
// object (id N, prog N, map N) rather than a file.
func isLiveDump(args []string) bool {
	return len(args) >= 2 && (args[0] == "id" || args[0] == "prog" || args[0] == "map")
}

// parseLiveSource parses "id N", "prog [id] N" and "map [id] N [PART]".
func parseLiveSource(args []string) (liveSource, error) {
	src := liveSource{kind: args[0]}
	rest := args[1:]
	if src.kind != "id" && len(rest) > 1 && rest[0] == "id" { // bpftool's "prog id N"
		rest = rest[1:]
	}
	n, err := strconv.ParseUint(rest[0], 0, 32)
	if err != nil {
		return src, fmt.Errorf("bad %s id %q: want a number", src.kind, rest[0])
	}
	src.id = uint32(n)
	rest = rest[1:]
	if src.kind == "map" && len(rest) > 0 {
		switch rest[0] {
		case "key", "value", "kv", "all":
			src.part, rest = rest[0], rest[1:]
		default:
			return src, fmt.Errorf("unknown map part %q: want key, value, kv or all", rest[0])
		}
	}
	if len(rest) > 0 {
		return src, fmt.Errorf("unexpected argument %q", rest[0])
	}
	return src, nil
}

// btfDumpLive prints the BTF of a kernel object as "bpftool btf dump id N"
// (or prog, or map) does.
func (c *cli) btfDumpLive(cmd *cobra.Command, args []string, f btfDumpFlags) error {
	src, err := parseLiveSource(args)
	if err != nil {
		return usageError(cmd, err)
	}
	if f.json && f.format != "raw" {
		return fmt.Errorf("--json works with --format raw only")
	}
	if f.types != "" && f.format != "c" {
		return fmt.Errorf("--types works with --format c only")
	}
	if f.format != "raw" && f.format != "c" {
		return fmt.Errorf("unknown --format %q: want raw or c", f.format)
	}
	opts := bpfobj.Options{MaxSize: c.maxInput}
	if f.base != "" {
		if opts.Base, err = c.openBase(f.base); err != nil {
			return err
		}
		defer opts.Base.Close()
	}
	b, roots, err := openLive(src, opts)
	if err != nil {
		return liveError(err)
	}
	defer b.Close()
	w := bufio.NewWriterSize(c.out(), 256<<10)
	scope := btf.ScopeAll
	if b.Info.Module() {
		scope = btf.ScopeOwn // as bpftool prints a module's BTF: its own types
	}
	switch {
	case f.format == "c":
		var copts cdump.Options
		if copts, err = f.c.options(f.format, f.types); err == nil {
			copts.IDs = roots
			err = cdump.Write(w, b.Spec, copts)
		}
	case roots != nil:
		err = writeRoots(w, b.Spec, roots, f.json)
	case f.json:
		err = rawdump.WriteJSON(w, b.Spec, rawdump.Options{Scope: scope})
	default:
		err = rawdump.Write(w, b.Spec, rawdump.Options{Scope: scope})
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

// openLive opens the BTF that src names, and for a map the root types
// that bpftool prints of it (nil: all).
func openLive(src liveSource, opts bpfobj.Options) (*bpfobj.BTF, []btf.TypeID, error) {
	switch src.kind {
	case "prog":
		b, _, err := bpfobj.OpenProgBTF(src.id, opts)
		return b, nil, err
	case "map":
		b, m, err := bpfobj.OpenMapBTF(src.id, opts)
		if err != nil {
			return nil, nil, err
		}
		switch src.part {
		case "key":
			return b, []btf.TypeID{m.KeyType}, nil
		case "value":
			return b, []btf.TypeID{m.ValueType}, nil
		case "all":
			return b, nil, nil
		}
		return b, []btf.TypeID{m.KeyType, m.ValueType}, nil
	}
	b, err := bpfobj.OpenBTF(src.id, opts)
	return b, nil, err
}

// writeRoots prints the types roots in bpftool's raw format, or as JSON
// Lines (one type a line, as btf dump --json prints).
func writeRoots(w io.Writer, s *btf.Spec, roots []btf.TypeID, asJSON bool) error {
	types := make([]btf.Type, len(roots))
	for i, id := range roots {
		t, err := s.TypeByID(id)
		if err != nil {
			return fmt.Errorf("type %d: %w", id, err)
		}
		types[i] = t
	}
	if !asJSON {
		for _, t := range types {
			if err := rawdump.WriteType(w, t); err != nil {
				return err
			}
		}
		return nil
	}
	enc := newJSONLines(w)
	for _, t := range types {
		if err := enc.Encode(rawdump.ToJSON(t)); err != nil {
			return err
		}
	}
	return nil
}

// liveError gives the errors of reading kernel objects their exit status:
// 1 when the object does not exist or has no BTF.
func liveError(err error) error {
	if errors.Is(err, bpfobj.ErrNotFound) || errors.Is(err, bpfobj.ErrNoBTF) {
		return &statusError{status: exitNotFound, err: err}
	}
	return err
}
