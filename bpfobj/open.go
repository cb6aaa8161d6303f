package bpfobj

import (
	"errors"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/kernel"
)

// Options control OpenBTF.
type Options struct {
	// Base is the vmlinux BTF that a module's BTF is split on. If nil,
	// OpenBTF opens the running kernel's (kernel.OpenVmlinux, as bpftool
	// reads /sys/kernel/btf/vmlinux) and closes it with the BTF. It is
	// not used for other objects. The caller keeps Base open while the
	// BTF is used, and closes it.
	Base *btf.Spec
	// MaxSize caps the raw BTF read; 0 means btf.DefaultMaxSize. A larger
	// object gives an error wrapping btf.ErrTooLarge.
	MaxSize int64
}

// BTF is one of the kernel's BTF objects, read into memory.
type BTF struct {
	Info BTFInfo
	// Spec holds the object's types. For a module's BTF it is split BTF
	// whose base is vmlinux, and dumps of its own types use btf.ScopeOwn.
	Spec *btf.Spec
	// Raw is the object's raw BTF as the kernel returned it; Spec reads
	// it in place, so it must not be modified.
	Raw []byte

	base *btf.Spec // closed by Close: opened by OpenBTF
}

// Close closes the Spec, and the vmlinux base if OpenBTF opened it.
// Types from the Spec must not be used after Close.
func (b *BTF) Close() error {
	err := b.Spec.Close()
	if b.base != nil {
		err = errors.Join(err, b.base.Close())
		b.base = nil
	}
	return err
}

// OpenBTF reads the BTF object id from the kernel. An id that names no BTF
// object gives an error wrapping ErrNotFound. A module's BTF is opened as
// split BTF on opts.Base, or on the running kernel's vmlinux BTF.
func OpenBTF(id uint32, opts Options) (*BTF, error) {
	f, err := bpfsys.BTFByID(id)
	if err != nil {
		return nil, wrap(btfWhat(id), err)
	}
	defer f.Close()
	info, name, err := btfInfo(f)
	if err != nil {
		return nil, wrap(btfWhat(id), err)
	}
	bi := BTFInfo{ID: info.ID, Name: name, Size: info.Size, Kernel: info.Kernel}
	limit := opts.MaxSize
	if limit <= 0 {
		limit = btf.DefaultMaxSize
	}
	if int64(info.Size) > limit {
		return nil, pkgerr.Errorf("bpfobj: BTF object %d: %d bytes: %w (limit %d)", id, info.Size, btf.ErrTooLarge, limit)
	}
	raw := make([]byte, info.Size)
	if _, err := f.BTFInfo(raw, nil); err != nil {
		return nil, wrap(btfWhat(id), err)
	}
	return fromRaw(bi, raw, opts)
}

// fromRaw opens the raw BTF of the object info: a module's on opts.Base or
// on the running kernel's vmlinux, any other alone.
func fromRaw(info BTFInfo, raw []byte, opts Options) (*BTF, error) {
	b := &BTF{Info: info, Raw: raw}
	var base *btf.Spec
	if info.Module() {
		base = opts.Base
		if base == nil {
			var err error
			if base, err = kernel.OpenVmlinux(); err != nil {
				return nil, pkgerr.Errorf("bpfobj: BTF object %d (module %s) is split BTF on vmlinux: %w", info.ID, info.Name, err)
			}
			b.base = base
		}
	}
	var err error
	if b.Spec, err = btf.Parse(raw, btf.Options{Base: base}); err != nil {
		if b.base != nil {
			b.base.Close()
		}
		return nil, pkgerr.Errorf("bpfobj: %s: %w", btfWhat(info.ID), err)
	}
	return b, nil
}

// OpenProgBTF opens the BTF that the program id was loaded with. A
// program without BTF gives an error wrapping ErrNoBTF.
func OpenProgBTF(id uint32, opts Options) (*BTF, ProgInfo, error) {
	p, err := ProgByID(id)
	if err != nil {
		return nil, p, err
	}
	if p.BTFID == 0 {
		return nil, p, pkgerr.Errorf("bpfobj: program %d (%s): %w", id, p.Name, ErrNoBTF)
	}
	b, err := OpenBTF(p.BTFID, opts)
	return b, p, err
}

// OpenMapBTF opens the BTF of the map id; MapInfo.KeyType and ValueType are
// the key's and value's types in it. A map without BTF gives an error
// wrapping ErrNoBTF.
func OpenMapBTF(id uint32, opts Options) (*BTF, MapInfo, error) {
	m, err := MapByID(id)
	if err != nil {
		return nil, m, err
	}
	if m.BTFID == 0 {
		return nil, m, pkgerr.Errorf("bpfobj: map %d (%s): %w", id, m.Name, ErrNoBTF)
	}
	b, err := OpenBTF(m.BTFID, opts)
	return b, m, err
}
