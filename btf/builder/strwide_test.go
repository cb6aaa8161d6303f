package builder_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// libbpfInts is the SHA-256 of the type and string sections that libbpf
// 1.8's btf__add_int writes for 66,844 ints named "%0250d" of their
// index (16,777,594 bytes of strings, past the kernel's 2^24):
// testdata/addints.c says how it was made.
const libbpfInts = "743a939ca253cbf1ccbc7a75b3683fe985a19441038c290c41b723c60a51ac65"

// TestStringsPastKernel checks that the Builder writes a string section
// past the kernel's 2^24 bytes as libbpf does (its own limit is 2^31-1,
// wire.MaxStrLen): Marshal of the ints libbpf's golden adds, and
// WriteCopy of them as split BTF on a small base, which reserves its
// table for every string at once. About 0.3 s CPU.
func TestStringsPastKernel(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the golden is little-endian")
	}
	const n = (wire.MaxNameOffset+1)/251 + 2
	b := builder.New()
	for i := range n {
		if _, err := b.AddInt(fmt.Sprintf("%0250d", i), 4, btf.IntInfo{Bits: 32}); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw[wire.HeaderLen:])
	if got := hex.EncodeToString(sum[:]); got != libbpfInts {
		t.Errorf("Marshal: sections' SHA-256 %s, libbpf's %s", got, libbpfInts)
	}

	// The same ints as split BTF on a base of one int.
	bb := builder.New()
	if _, err := bb.AddInt("int", 4, btf.IntInfo{Bits: 32}); err != nil {
		t.Fatal(err)
	}
	baseRaw, err := bb.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := btf.Parse(baseRaw, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := builder.NewSplit(base)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := sb.AddInt(fmt.Sprintf("%0250d", i), 4, btf.IntInfo{Bits: 32}); err != nil {
			t.Fatal(err)
		}
	}
	split, err := sb.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(split, btf.Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	// libbpf writes back the BTF it parsed (btf__raw_data): the copy is
	// its input.
	var out bytes.Buffer
	if err := builder.WriteCopy(&out, s, base, builder.Options{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), split) {
		t.Errorf("WriteCopy of %d bytes differs from its input of %d", out.Len(), len(split))
	}
}
