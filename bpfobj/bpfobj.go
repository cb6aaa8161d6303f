package bpfobj

import (
	"errors"
	"iter"
	"strconv"
	"syscall"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// ErrNotFound is wrapped by the errors for an id that names no object (or
// one that went away meanwhile).
var ErrNotFound = errors.New("bpfobj: no such object")

// ErrNoBTF is wrapped by the errors for a program or map that was loaded
// without BTF, when its BTF is asked for.
var ErrNoBTF = errors.New("bpfobj: object has no BTF")

// BTFInfo describes one of the kernel's BTF objects.
type BTFInfo struct {
	ID     uint32
	Name   string // "vmlinux", a module's name, or "" for a program's BTF
	Size   uint32 // bytes of raw BTF
	Kernel bool   // the kernel's own BTF: vmlinux's or a module's
}

// Module reports whether the object is a module's BTF: split BTF whose
// ids and strings continue those of vmlinux.
func (i BTFInfo) Module() bool { return i.Kernel && i.Name != "vmlinux" }

// ProgInfo describes a loaded BPF program.
type ProgInfo struct {
	ID    uint32
	Type  uint32 // enum bpf_prog_type
	Name  string // up to 15 bytes: the kernel truncates longer names
	Tag   [8]byte
	BTFID uint32 // the BTF object the program was loaded with; 0 if none
}

// MapInfo describes a BPF map.
type MapInfo struct {
	ID         uint32
	Type       uint32 // enum bpf_map_type
	Name       string // up to 15 bytes
	KeySize    uint32
	ValueSize  uint32
	MaxEntries uint32
	Flags      uint32
	BTFID      uint32     // the map's BTF object; 0 if none
	KeyType    btf.TypeID // the key's type in that BTF; 0 if none
	ValueType  btf.TypeID // the value's type in that BTF; 0 if none
	// VmlinuxValueType is the value's type in vmlinux BTF, for struct_ops
	// maps; 0 otherwise.
	VmlinuxValueType btf.TypeID
}

// BTFs yields the kernel's BTF objects in id order. Objects that go away
// during the walk are skipped. On an error (without privilege, for one) it
// yields the error and stops.
func BTFs() iter.Seq2[BTFInfo, error] {
	return walk("BTF objects", bpfsys.NextBTFID, BTFByID)
}

// Progs yields the loaded BPF programs in id order, as BTFs does.
func Progs() iter.Seq2[ProgInfo, error] {
	return walk("programs", bpfsys.NextProgID, ProgByID)
}

// Maps yields the BPF maps in id order, as BTFs does.
func Maps() iter.Seq2[MapInfo, error] {
	return walk("maps", bpfsys.NextMapID, MapByID)
}

// walk yields get(id) for every id that next finds, skipping the ids that
// are gone when get runs.
func walk[T any](what string, next func(uint32) (uint32, error), get func(uint32) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		for id := uint32(0); ; {
			n, err := next(id)
			if errors.Is(err, syscall.ENOENT) {
				return
			}
			if err != nil {
				yield(zero, wrap("listing "+what, err))
				return
			}
			id = n
			v, err := get(id)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

// BTFByID returns the information of the BTF object id. An id that names
// no BTF object gives an error wrapping ErrNotFound.
func BTFByID(id uint32) (BTFInfo, error) {
	f, err := bpfsys.BTFByID(id)
	if err != nil {
		return BTFInfo{}, wrap(btfWhat(id), err)
	}
	defer f.Close()
	info, name, err := btfInfo(f)
	if err != nil {
		return BTFInfo{}, wrap(btfWhat(id), err)
	}
	return BTFInfo{ID: info.ID, Name: name, Size: info.Size, Kernel: info.Kernel}, nil
}

// btfInfo reads the information of a BTF object and its name.
func btfInfo(f *bpfsys.FD) (bpfsys.BTFInfo, string, error) {
	info, err := f.BTFInfo(nil, nil)
	if err != nil {
		return info, "", err
	}
	if info.NameLen == 0 {
		return info, "", nil
	}
	// A BTF object's name is a module name or "vmlinux": the kernel
	// bounds it (MODULE_NAME_LEN); so does this buffer.
	name := make([]byte, min(info.NameLen, 4096)+1)
	if info, err = f.BTFInfo(nil, name); err != nil {
		return info, "", err
	}
	return info, cstring(name), nil
}

// ProgByID returns the information of the BPF program id. An id that
// names no program gives an error wrapping ErrNotFound.
func ProgByID(id uint32) (ProgInfo, error) {
	f, err := bpfsys.ProgByID(id)
	if err != nil {
		return ProgInfo{}, wrap(progWhat(id), err)
	}
	defer f.Close()
	p, err := f.ProgInfo()
	if err != nil {
		return ProgInfo{}, wrap(progWhat(id), err)
	}
	return ProgInfo{ID: p.ID, Type: p.Type, Name: p.Name, Tag: p.Tag, BTFID: p.BTFID}, nil
}

// MapByID returns the information of the BPF map id. An id that names no
// map gives an error wrapping ErrNotFound.
func MapByID(id uint32) (MapInfo, error) {
	f, err := bpfsys.MapByID(id)
	if err != nil {
		return MapInfo{}, wrap(mapWhat(id), err)
	}
	defer f.Close()
	m, err := f.MapInfo()
	if err != nil {
		return MapInfo{}, wrap(mapWhat(id), err)
	}
	return MapInfo{
		ID: m.ID, Type: m.Type, Name: m.Name,
		KeySize: m.KeySize, ValueSize: m.ValueSize, MaxEntries: m.MaxEntries, Flags: m.Flags,
		BTFID: m.BTFID, KeyType: btf.TypeID(m.BTFKeyTypeID), ValueType: btf.TypeID(m.BTFValueTypeID),
		VmlinuxValueType: btf.TypeID(m.BTFVmlinuxValueTypeID),
	}, nil
}

// Users are the programs and maps that use one BTF object, in id order.
type Users struct {
	Progs []uint32
	Maps  []uint32
}

// BTFUsers returns, for every BTF object that a loaded program or a map
// uses, the ids of those programs and maps. Objects that no program or map
// uses (vmlinux, modules, BTF loaded alone) are not in the map.
func BTFUsers() (map[uint32]*Users, error) {
	users := make(map[uint32]*Users)
	get := func(id uint32) *Users {
		u := users[id]
		if u == nil {
			u = new(Users)
			users[id] = u
		}
		return u
	}
	for p, err := range Progs() {
		if err != nil {
			return nil, err
		}
		if p.BTFID != 0 {
			u := get(p.BTFID)
			u.Progs = append(u.Progs, p.ID)
		}
	}
	for m, err := range Maps() {
		if err != nil {
			return nil, err
		}
		if m.BTFID != 0 {
			u := get(m.BTFID)
			u.Maps = append(u.Maps, m.ID)
		}
	}
	return users, nil
}

// wrap turns the errors of bpfsys about what into this package's: ENOENT
// wraps ErrNotFound, and ErrUnsupported errors.ErrUnsupported.
func wrap(what string, err error) error {
	switch {
	case errors.Is(err, bpfsys.ErrUnsupported):
		return pkgerr.Errorf("bpfobj: %s: %w (%w)", what, errors.ErrUnsupported, err)
	case errors.Is(err, syscall.ENOENT):
		return pkgerr.Errorf("bpfobj: %s: %w (%w)", what, ErrNotFound, err)
	}
	return pkgerr.Errorf("bpfobj: %s: %w", what, err)
}

func btfWhat(id uint32) string  { return "BTF object " + strconv.FormatUint(uint64(id), 10) }
func progWhat(id uint32) string { return "program " + strconv.FormatUint(uint64(id), 10) }
func mapWhat(id uint32) string  { return "map " + strconv.FormatUint(uint64(id), 10) }

func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
