package recenc_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/recenc"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// sink numbers the strings it is given from 1, as pending, in the order
// the Encoder gives them, and ids from 10.
type sink struct {
	enc   *recenc.Encoder[builder.Member, builder.Param, builder.Enumerator]
	strs  []string
	ended int
}

func (s *sink) Str(v string) (uint32, bool, error) {
	if strings.IndexByte(v, 0) >= 0 {
		return 0, false, recenc.NULError(v)
	}
	s.strs = append(s.strs, v)
	return uint32(len(s.strs)), true, nil
}

func (s *sink) Begin() (btf.TypeID, error) { return 10 + btf.TypeID(len(s.enc.Ends)), nil }
func (s *sink) End()                       { s.ended++ }
func (s *sink) Fail(err error) error       { return fmt.Errorf("test: %w", err) }

func newEncoder(opts recenc.Options) (*recenc.Encoder[builder.Member, builder.Param, builder.Enumerator], *sink) {
	e := new(recenc.Encoder[builder.Member, builder.Param, builder.Enumerator])
	s := &sink{enc: e}
	e.Init(s, opts)
	e.Reset(10)
	return e, s
}

// TestLayout: a bitfield struct's record, the positions listed, and the
// order in which names reach the Sink under each Options.
func TestLayout(t *testing.T) {
	for _, nameFirst := range []bool{false, true} {
		e, s := newEncoder(recenc.Options{NameFirst: nameFirst, Deferred: true})
		id, err := e.AddStruct("s", 8, []builder.Member{
			{Name: "a", Type: 1, BitfieldSize: 3},
			{Name: "b", Type: 11, BitOffset: 3, BitfieldSize: 5},
		})
		if err != nil || id != 10 {
			t.Fatalf("AddStruct: %d, %v", id, err)
		}
		if _, err := e.AddArray(btf.ArrayInfo{Type: 10, Index: recenc.Deferred, Nelems: 4}); err != nil {
			t.Fatal(err)
		}
		order := []string{"a", "b", "s"}
		names := []uint32{1, 2, 3} // a, b, s
		if nameFirst {
			order = []string{"s", "a", "b"}
			names = []uint32{2, 3, 1}
		}
		want := []uint32{
			names[2], wire.Info(wire.KindStruct, 2, true), 8,
			names[0], 1, wire.MemberOffsetWord(3, 0),
			names[1], 11, wire.MemberOffsetWord(5, 3),
			0, wire.Info(wire.KindArray, 0, false), 0, 10, uint32(recenc.Deferred), 4,
		}
		if diff := cmp.Diff(want, e.W); diff != "" {
			t.Errorf("NameFirst %v: words (-want +got):\n%s", nameFirst, diff)
		}
		if diff := cmp.Diff(order, s.strs); diff != "" {
			t.Errorf("NameFirst %v: names given (-want +got):\n%s", nameFirst, diff)
		}
		got := [][]uint32{e.Ends, e.Names, e.Refs, e.Later, {e.MaxRef, uint32(s.ended)}}
		if diff := cmp.Diff([][]uint32{{9, 15}, {0, 3, 6}, {7, 12}, {13}, {11, 2}}, got); diff != "" {
			t.Errorf("NameFirst %v: ends, names, refs, later, max and records (-want +got):\n%s", nameFirst, diff)
		}
	}
}

// TestErrors: each check's error, with the Sink's prefix.
func TestErrors(t *testing.T) {
	e, _ := newEncoder(recenc.Options{})
	for _, c := range []struct {
		add  func() (btf.TypeID, error)
		want string
	}{
		{func() (btf.TypeID, error) {
			return e.AddStruct("s", 4, []builder.Member{{Name: "m", BitfieldSize: 300}})
		}, `test: STRUCT "s" member "m": bitfield size 300 or offset 0 too large`},
		{func() (btf.TypeID, error) {
			return e.AddEnum("e", 4, false, []builder.Enumerator{{Name: "v", Value: 1 << 40}})
		}, `test: ENUM "e" value "v" = 0x10000000000 does not fit in 32 bits`},
		{func() (btf.TypeID, error) {
			return e.AddFuncProto(0, make([]builder.Param, wire.MaxVlen+1))
		}, `test: FUNC_PROTO with 65536 elements, at most 65535`},
		{func() (btf.TypeID, error) { return e.AddInt("a\x00b", 4, btf.IntInfo{}) },
			`test: INT name: string "a\x00b" holds a NUL byte`},
		{func() (btf.TypeID, error) {
			return e.AddUnion("u", 4, []builder.Member{{Name: "x\x00"}})
		}, `test: UNION element 0: string "x\x00" holds a NUL byte`},
	} {
		_, err := c.add()
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
	if _, err := e.AddString("\x00"); err == nil || errors.Unwrap(err) == nil {
		t.Errorf("AddString of a NUL: %v, want a wrapped error", err)
	}
}
