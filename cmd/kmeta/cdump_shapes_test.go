package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// cdumpShapes are shapes of many small types, besides hostile's, that
// load the C header's sort and name tables in other ways: a type of each
// for i, in an input with int as [1] (so type i is [i+2]).
var cdumpShapes = map[string]func(b *builder.Builder, i, n int) error{
	// Every struct renamed "s___n".
	"structs-one-name": func(b *builder.Builder, i, _ int) error {
		_, err := b.AddStruct("s", 4, []builder.Member{{Name: fmt.Sprintf("x%d", i), Type: 1}})
		return err
	},
	"enums-one-value": func(b *builder.Builder, i, _ int) error {
		_, err := b.AddEnum(fmt.Sprintf("e%d", i), 4, false, []builder.Enumerator{{Name: fmt.Sprintf("V%d", i), Value: 1}})
		return err
	},
	// Sorted by their enumerator, in an order other than the ids'.
	"anon-enums-one-value": func(b *builder.Builder, i, n int) error {
		_, err := b.AddEnum("", 4, false, []builder.Enumerator{{Name: fmt.Sprintf("V%d", i*7919%n), Value: 1}})
		return err
	},
	"protos": func(b *builder.Builder, _, _ int) error {
		_, err := b.AddFuncProto(1, nil)
		return err
	},
	// Names that share their first 35 bytes, in an order other than the ids'.
	"long-names": func(b *builder.Builder, i, n int) error {
		_, err := b.AddStruct(fmt.Sprintf("a_struct_with_a_long_common_prefix_%09d", i*7919%n), 0, nil)
		return err
	},
	// Chains of 1,000 typedefs, each of the one before.
	"typedef-chains": func(b *builder.Builder, i, _ int) error {
		to := btf.TypeID(i + 1)
		if i%1000 == 0 {
			to = 1
		}
		_, err := b.AddTypedef(fmt.Sprintf("t%d", i), to)
		return err
	},
	// Chains of 1,000 pointers, each to the one after.
	"pointer-chains": func(b *builder.Builder, i, _ int) error {
		to := btf.TypeID(i + 3)
		if i%1000 == 999 {
			to = 1
		}
		_, err := b.AddPointer(to)
		return err
	},
	"mixed": func(b *builder.Builder, i, _ int) error {
		var err error
		switch id := btf.TypeID(i + 2); i % 6 {
		case 0:
			_, err = b.AddStruct(fmt.Sprintf("s%d", i), 4, []builder.Member{{Name: "x", Type: 1}})
		case 1:
			_, err = b.AddPointer(id - 1)
		case 2:
			_, err = b.AddTypedef(fmt.Sprintf("t%d", i), id-2)
		case 3:
			_, err = b.AddConst(id - 1)
		case 4:
			_, err = b.AddFuncProto(id-2, nil)
		case 5:
			_, err = b.AddEnum("", 4, false, []builder.Enumerator{{Name: fmt.Sprintf("V%d", i), Value: 1}})
		}
		return err
	},
}

// buildCdumpShape returns the shape of n types (and int).
func buildCdumpShape(tb testing.TB, add func(b *builder.Builder, i, n int) error, n int) []byte {
	tb.Helper()
	b := builder.New()
	b.AllowManyTypes()
	if _, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		if err := add(b, i, n); err != nil {
			tb.Fatal(err)
		}
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// TestCdumpShapesPeakRSS checks the peak RSS of dump --format c, sorted
// (which merges sorted chunks of ids past 6 MiB of keys), unsorted and as
// bpftool 7.1, against the README's rule on cdumpShapes and on hostile's
// shapes of many small types, each of 300,000 types. Only with
// KMETA_HEAVY=1 (.ci/run sets it).
func TestCdumpShapesPeakRSS(t *testing.T) {
	t.Parallel()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("peak RSS of dump --format c on shapes of many types: set KMETA_HEAVY=1")
	}
	const n = 300_000
	timeBin := gnuTime(t)
	bin := buildRealKmeta(t)
	dir := t.TempDir()
	paths := map[string]string{}
	for name, add := range cdumpShapes {
		paths[name] = writeFile(t, dir, name+".btf", buildCdumpShape(t, add, n))
	}
	for _, k := range []hostile.Shape{hostile.Pointers, hostile.Typedefs, hostile.TinyStructs, hostile.EmptyStructs} {
		paths[k.String()] = shapeFile(t, dir, k, n)
	}
	for name, path := range paths {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range [][]string{nil, {"--unsorted"}, {"--compat", "bpftool-7.1"}} {
			args := append([]string{"btf", "dump", "--format", "c", path}, mode...)
			peak, code, stderr := peakRSS(t, timeBin, bin, args...)
			t.Logf("%s %v: %d MB (bound %d MB)", name, mode, peak>>20, readBound(fi.Size())>>20)
			if code != 0 {
				t.Errorf("%s: kmeta %v: status %d, %.300q", filepath.Base(path), args, code, stderr)
			}
			if peak > readBound(fi.Size()) {
				t.Errorf("%s: kmeta %v: peak RSS %d MB, over the bound of %d MB", name, args, peak>>20, readBound(fi.Size())>>20)
			}
		}
	}
}
