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

type encoder = recenc.Encoder[builder.Member, builder.Param, builder.Enumerator]

// TestStreamSameAsAdd: records written an element at a time are the Add
// methods' words, with the same positions listed and the names given in
// the same order.
func TestStreamSameAsAdd(t *testing.T) {
	members := []builder.Member{{Name: "a", Type: 1, BitOffset: 0}, {Name: "b", Type: 11, BitOffset: 32}, {Type: 12, BitOffset: 40, BitfieldSize: 3}}
	plain := members[:2]
	values := []builder.Enumerator{{Name: "x", Value: 1}, {Name: "y", Value: 1<<32 - 1}, {Name: "x", Value: 1<<63 + 5}}
	params := []builder.Param{{Name: "p", Type: 10}, {Type: 1}, {}}
	both := func(e *encoder, stream bool) {
		add := func(_ btf.TypeID, err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		if !stream {
			add(e.AddStruct("s", 8, members))
			add(e.AddUnion("u", 8, plain))
			add(e.AddEnum("e", 4, true, values[:2]))
			add(e.AddEnum64("e64", 8, false, values))
			add(e.AddFuncProto(11, params))
			add(e.AddStruct("", 0, nil))
			return
		}
		add(e.StartStruct("s", 8, len(members)))
		for _, m := range members {
			add(0, e.Member(m))
		}
		add(e.Finish())
		add(e.StartUnion("u", 8, len(plain)))
		for _, m := range plain {
			add(0, e.Member(m))
		}
		add(e.Finish())
		add(e.StartEnum("e", 4, true, 2))
		for _, v := range values[:2] {
			add(0, e.Value(v))
		}
		add(e.Finish())
		add(e.StartEnum64("e64", 8, false, len(values)))
		for _, v := range values {
			add(0, e.Value(v))
		}
		add(e.Finish())
		add(e.StartFuncProto(11, len(params)))
		for _, p := range params {
			add(0, e.Param(p))
		}
		add(e.Finish())
		add(e.StartStruct("", 0, 0))
		add(e.Finish())
	}
	type got struct {
		W, Ends, Names, Refs []uint32
		MaxRef               uint32
		Strs                 []string
		Ended                int
	}
	var results [2]got
	for i, stream := range []bool{false, true} {
		e, s := newEncoder(recenc.Options{NameFirst: true})
		both(e, stream)
		results[i] = got{e.W, e.Ends, e.Names, e.Refs, e.MaxRef, s.strs, s.ended}
	}
	if diff := cmp.Diff(results[0], results[1]); diff != "" {
		t.Errorf("element by element (-Add +stream):\n%s", diff)
	}
}

// TestStreamErrors: the Add methods' checks, and the misuses.
func TestStreamErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(e *encoder) error
		want  string
	}{
		{"bitfield", func(e *encoder) error {
			e.StartStruct("s", 4, 1)
			return e.Member(builder.Member{Name: "m", BitfieldSize: 300})
		}, `test: STRUCT "s" member "m": bitfield size 300 or offset 0 too large`},
		{"offset before a bitfield", func(e *encoder) error {
			e.StartStruct("s", 4, 2)
			if err := e.Member(builder.Member{Name: "far", BitOffset: wire.MaxBitOffset + 1}); err != nil {
				return err
			}
			return e.Member(builder.Member{Name: "bits", BitfieldSize: 1})
		}, `test: STRUCT "s" member "far": bitfield size 0 or offset 16777216 too large`},
		{"enum value", func(e *encoder) error {
			e.StartEnum("e", 4, false, 1)
			return e.Value(builder.Enumerator{Name: "v", Value: 1 << 40})
		}, `test: ENUM "e" value "v" = 0x10000000000 does not fit in 32 bits`},
		{"vlen", func(e *encoder) error {
			_, err := e.StartFuncProto(0, wire.MaxVlen+1)
			return err
		}, `test: FUNC_PROTO with 65536 elements, at most 65535`},
		{"NUL", func(e *encoder) error {
			e.StartUnion("u", 4, 1)
			return e.Member(builder.Member{Name: "x\x00"})
		}, `test: UNION element 0: string "x\x00" holds a NUL byte`},
		{"too few", func(e *encoder) error {
			e.StartEnum64("e", 8, false, 2)
			e.Value(builder.Enumerator{Name: "v"})
			_, err := e.Finish()
			return err
		}, `test: ENUM64 ended after 1 of its 2 elements`},
		{"too many", func(e *encoder) error {
			e.StartFuncProto(0, 0)
			return e.Param(builder.Param{})
		}, `test: element written outside a record begun element by element`},
		{"wrong kind", func(e *encoder) error {
			e.StartStruct("s", 0, 1)
			return e.Param(builder.Param{})
		}, `test: element written outside a record begun element by element`},
		{"not begun", func(e *encoder) error {
			_, err := e.Finish()
			return err
		}, `test: element written outside a record begun element by element`},
	} {
		e, _ := newEncoder(recenc.Options{NameFirst: true})
		if err := c.write(e); err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}
	e, _ := newEncoder(recenc.Options{})
	if _, err := e.StartStruct("s", 0, 0); err == nil {
		t.Error("StartStruct without NameFirst: no error")
	}
}
