package distill_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/distill"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// The SHA-256 of the type and string sections of libbpf 1.8's
// btf__distill_base (/work/data/peers/libbpfdistill18, from
// bench/testdata/libbpfdistill.c) on wideStrings' base and split, which
// TestDistillPastKernelStrings writes to $KMETA_STRWIDE_OUT/{base,split}.btf
// when that is set: `libbpfdistill18 base.btf split.btf split.out
// base.out`, then `tail -c +33 F | sha256sum` of each output (libbpf
// 1.8 writes a 32-byte header).
const (
	libbpfWideBase  = "743a939ca253cbf1ccbc7a75b3683fe985a19441038c290c41b723c60a51ac65"
	libbpfWideSplit = "959a634e8ef8f6f2adb5065ef1578ae93032b07bd45b1dbcad72dd70b7930e14"
)

// wideStrings returns a base of n ints named "%0250d" of their index, past
// the kernel's 2^24 bytes of strings, and split BTF on it of two structs
// whose members, named "m%0249d", take every base int once: both the
// distilled base and the new split's own strings pass 2^24 bytes.
func wideStrings(t *testing.T) (base, split []byte) {
	const n = (wire.MaxNameOffset+1)/251 + 2
	b := builder.New()
	for i := range n {
		if _, err := b.AddInt(fmt.Sprintf("%0250d", i), 4, btf.IntInfo{Bits: 32}); err != nil {
			t.Fatal(err)
		}
	}
	base, err := b.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bs, err := btf.Parse(base, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := builder.NewSplit(bs)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		var members []builder.Member
		for i := k; i < n; i += 2 {
			members = append(members, builder.Member{Name: fmt.Sprintf("m%0249d", i), Type: btf.TypeID(i + 1), BitOffset: uint32(32 * len(members))})
		}
		if _, err := sb.AddStruct(fmt.Sprintf("wide%d", k), uint32(4*len(members)), members); err != nil {
			t.Fatal(err)
		}
	}
	split, err = sb.Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return base, split
}

// TestDistillPastKernelStrings checks that distill writes string sections
// past the kernel's 2^24 bytes, to both outputs, as libbpf's
// btf__distill_base does (its limit is 2^31-1, wire.MaxStrLen), byte for
// byte. About 0.5 s CPU (50 MB of input).
func TestDistillPastKernelStrings(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the golden is little-endian")
	}
	base, split := wideStrings(t)
	if dir := os.Getenv("KMETA_STRWIDE_OUT"); dir != "" {
		for name, b := range map[string][]byte{"base.btf": base, "split.btf": split} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	bs, err := btf.Parse(base, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(split, btf.Options{Base: bs})
	if err != nil {
		t.Fatal(err)
	}
	newBase, newSplit, err := distill.Distill(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		out  []byte
		want string
	}{{"base", newBase, libbpfWideBase}, {"split", newSplit, libbpfWideSplit}} {
		h, err := wire.ParseHeader(c.out, binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		if h.StrLen <= wire.MaxNameOffset+1 {
			t.Errorf("%s: %d bytes of strings, want more than %d", c.what, h.StrLen, wire.MaxNameOffset+1)
		}
		sum := sha256.Sum256(c.out[h.HdrLen:])
		if got := hex.EncodeToString(sum[:]); got != c.want {
			t.Errorf("%s: sections' SHA-256 %s, libbpf's %s", c.what, got, c.want)
		}
	}
}
