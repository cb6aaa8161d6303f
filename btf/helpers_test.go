package btf_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// rawBuilder assembles small BTF blobs record by record for tests that need
// shapes no real kernel has (flavors, cycles, bad references).
type rawBuilder struct {
	strStart uint32
	strs     []byte
	types    []byte
}

func newRaw(strStart uint32) *rawBuilder { return &rawBuilder{strStart: strStart, strs: []byte{0}} }

func (b *rawBuilder) str(s string) uint32 {
	if s == "" {
		return 0
	}
	off := b.strStart + uint32(len(b.strs))
	b.strs = append(append(b.strs, s...), 0)
	return off
}

// typ appends a record: name, kind, vlen, kind flag, size/type, extra words.
func (b *rawBuilder) typ(name string, k btf.Kind, vlen int, kflag bool, sizeType uint32, extra ...uint32) {
	for _, w := range append([]uint32{b.str(name), wire.Info(wire.Kind(k), vlen, kflag), sizeType}, extra...) {
		b.types = wire.AppendWord(b.types, w)
	}
}

func (b *rawBuilder) bytes() []byte {
	h := wire.Header{Version: 1, HdrLen: 24, TypeLen: uint32(len(b.types)), StrOff: uint32(len(b.types)), StrLen: uint32(len(b.strs))}
	out := wire.AppendHeader(nil, h, binary.NativeEndian)
	return append(append(out, b.types...), b.strs...)
}

func mustParse(tb testing.TB, b []byte, base *btf.Spec) *btf.Spec {
	tb.Helper()
	return testfixtures.Spec(tb, b, base)
}

var (
	hostSpec   = testfixtures.HostSpec
	debianSpec = testfixtures.DebianSpec
	dump       = testfixtures.RawDump
)

func names(ts []btf.Type) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.String())
	}
	return out
}

// sameRecords fails the test unless got has want's types, record for
// record.
func sameRecords(tb testing.TB, what string, want, got *btf.Spec) {
	tb.Helper()
	if want.NumTypes() != got.NumTypes() {
		tb.Fatalf("%s: %d types, want %d", what, got.NumTypes(), want.NumTypes())
	}
	for id := want.FirstID(); id <= want.LastID(); id++ {
		a, errA := want.TypeByID(id)
		b, errB := got.TypeByID(id)
		if errA != nil || errB != nil || !bytes.Equal(a.Record(), b.Record()) {
			tb.Fatalf("%s: type %d differs: %v, %v", what, id, errA, errB)
		}
	}
}
