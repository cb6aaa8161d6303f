package btf_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// exercise reads everything a parsed Spec offers; none of it may panic or
// hang on data that passed validation.
func exercise(s *btf.Spec) {
	for id, typ := range s.All() {
		_ = typ.Name()
		_, _ = s.Resolve(id)
		_, _ = s.SizeOf(id)
		_, _ = s.AlignOf(id)
		for _, m := range typ.Members() {
			_ = m.Name()
		}
		for _, v := range typ.EnumValues() {
			_ = v.Name()
		}
	}
	_ = rawdump.Write(io.Discard, s, rawdump.Options{})
	_, _ = s.Find("task_struct", btf.FindOptions{Flavors: true})
}

// FuzzParse feeds arbitrary bytes to Parse, alone and with a small base
// base. Seeds: real module BTF (split and, unsplit, invalid), the host
// kernel's first bytes, and hand-made edge cases.
func FuzzParse(f *testing.F) {
	mods := testfixtures.Modules(f)
	for _, name := range []string{"af_key", "vsock_loopback", "vmw_vsock_virtio_transport"} {
		f.Add(mods[name])
	}
	f.Add(testfixtures.Read(f, testfixtures.HostVmlinux)[:4096])
	f.Add(testfixtures.Read(f, "bpftool/prog.bpf.o.raw.txt")[:64])
	b := newRaw(0)
	b.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
	b.typ("s", btf.KindStruct, 1, true, 4, b.str("x"), 1, 3<<24)
	b.typ("", btf.KindPointer, 0, false, 2)
	small := b.bytes()
	f.Add(small)
	// A big-endian header whose hdr_len ends inside the layout fields.
	f.Add([]byte{0xeb, 0x9f, 1, 0, 0, 0, 0, 25, 24: 0})
	base, err := btf.Parse(small, btf.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		one, err := btf.Parse(data, btf.Options{})
		fuzztest.CheckError(t, "btf", err)
		if err == nil {
			exercise(one)
		}
		// Walking the type section in two halves gives the same result.
		two, _, err2 := btf.ParseSplitWalk(data, nil, 0)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("in one piece: %v; in halves: %v", err, err2)
		}
		if err == nil {
			if one.NumTypes() != two.NumTypes() {
				t.Fatalf("%d types; in halves %d", one.NumTypes(), two.NumTypes())
			}
			for id := one.FirstID(); id <= one.LastID(); id++ {
				a, _ := one.TypeByID(id)
				b, _ := two.TypeByID(id)
				if !bytes.Equal(a.Record(), b.Record()) {
					t.Fatalf("type %d differs in halves", id)
				}
			}
		}
		// A lazy open finds the errors of records when they are handed out:
		// taking them all in id order gives Parse's result.
		lazy, err3 := btf.ParseLazy(data, btf.FlavorQuery{Names: []string{"s", "int"}, Kinds: []btf.Kind{btf.KindStruct, btf.KindInt}})
		if err3 == nil {
			for id := lazy.FirstID(); id <= lazy.LastID(); id++ {
				a, errA := lazy.TypeByID(id)
				if err == nil {
					b, _ := one.TypeByID(id)
					if errA != nil || !bytes.Equal(a.Record(), b.Record()) {
						t.Fatalf("type %d differs lazily: %v", id, errA)
					}
				}
			}
			err3 = lazy.Err()
			exercise(lazy)
		}
		if (err == nil) != (err3 == nil) || (err != nil && err.Error() != err3.Error()) {
			t.Fatalf("parsed: %v; lazily: %v", err, err3)
		}
		s, err := btf.Parse(data, btf.Options{Base: base})
		fuzztest.CheckError(t, "btf", err)
		if err == nil {
			exercise(s)
		}
		// StringsRange, given the first 256 bytes (which hold the
		// header unless it is longer), agrees with a
		// successful parse.
		h, rerr := btf.ParseHeader(data[:min(len(data), 256)])
		off, n := h.Strings()
		if err == nil && s.HeaderLen() <= 256 {
			strs, _ := s.StringSection()
			if rerr != nil || off+n > int64(len(data)) || !bytes.Equal(data[off:off+n], strs) {
				t.Fatalf("StringsRange = %d, %d, %v; the Spec has %d string bytes", off, n, rerr, len(strs))
			}
		}
	})
}

// FuzzParseELF feeds arbitrary bytes through the ELF and decompression
// paths of Read. Seeds: the real BPF object and gzip-compressed BTF.
func FuzzParseELF(f *testing.F) {
	f.Add(testfixtures.Read(f, "elf/prog.bpf.o.gz"))
	gz := testfixtures.Read(f, "elf/prog.bpf.o.gz")
	f.Add(gz[:4096])
	raw, _ := io.ReadAll(bytes.NewReader(mustRead(f, testfixtures.Path(f, "elf/prog.bpf.o.gz"))))
	f.Add(raw)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := btf.Read(context.Background(), bytes.NewReader(data), btf.Options{})
		fuzztest.CheckError(t, "btf", err)
		if err == nil {
			exercise(s)
		}
	})
}
