package ext_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/ext"
)

// FuzzParse feeds mutated .BTF.ext sections of real objects (and their
// byte-swapped forms) to Parse, with the object's BTF and without; a
// parsed Ext must read back every record, with every accessor, without
// panicking.
func FuzzParse(f *testing.F) {
	s, raw := sections(f, "core/matches.bpf.o.gz")
	f.Add(raw)
	f.Add(swap(f, raw))
	f.Add(raw[:40])
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, local := range []*ext.Ext{parse(data, s, true), parse(data, s, false)} {
			if local == nil {
				continue
			}
			for p := ext.FuncInfos; p <= ext.CORERelos; p++ {
				for _, sec := range local.Sections(p) {
					for i := range sec.Len() + 1 {
						_, _, _ = sec.FuncInfo(i), sec.LineInfo(i), sec.CORERelo(i)
					}
				}
			}
		}
	})
}

func parse(data []byte, s *btf.Spec, withSpec bool) *ext.Ext {
	var e *ext.Ext
	var err error
	if withSpec {
		e, err = ext.Parse(data, s)
	} else {
		e, err = ext.Parse(data, nil)
	}
	if err != nil {
		return nil
	}
	return e
}
