package dwarf2btf

import (
	"encoding/binary"
	"testing"
)

// testReader is a unitReader over a DWARF 5, 64-bit-address unit with
// loclists as its .debug_loclists, for x86-64.
func testReader(loclists []byte) *unitReader {
	d := &dwarfData{order: binary.LittleEndian, loclists: loclists, regParams: registerParams(62)}
	return &unitReader{d: d, u: unitHeader{version: 5, addrSize: 8}}
}

// TestParamReg follows pahole's parameter__reg on the expressions gcc
// writes: a register first, an entry value anywhere, and what it ignores.
func TestParamReg(t *testing.T) {
	rdi, rsi := opReg0+5, opReg0+4
	list := func(exprs ...[]byte) []byte {
		var b []byte
		b = append(b, lleGNUViewPair, 0, 1)
		for _, e := range exprs {
			b = append(b, lleOffsetPair, 0, 4, byte(len(e)))
			b = append(b, e...)
		}
		return append(b, lleEndOfList)
	}
	for _, c := range []struct {
		name string
		v    attrVal
		ll   []byte
		want int
	}{
		{"block rdi", attrVal{class: classBlock, b: []byte{byte(rdi)}}, nil, rdi},
		{"block rsi", attrVal{class: classBlock, b: []byte{byte(rsi)}}, nil, rsi},
		{"breg", attrVal{class: classBlock, b: []byte{0x77, 0x08}}, nil, -1},
		{"list rsi then entry rdi", attrVal{class: classOffset}, list([]byte{byte(rsi)}, []byte{opEntryValue, 1, byte(rdi), opStackValue}), rdi},
		{"list entry rsi", attrVal{class: classOffset}, list([]byte{0x77, 0}, []byte{opEntryValue, 1, byte(rsi), opStackValue}), rsi},
		{"register not first", attrVal{class: classOffset}, list([]byte{0x77, 0}, []byte{byte(rsi)}), -1},
		{"bad operation stops", attrVal{class: classOffset}, list([]byte{0xe5}, []byte{byte(rsi)}), -1},
	} {
		r := testReader(c.ll)
		if got := r.paramReg(&c.v, rdi); got != c.want {
			t.Errorf("%s: register %d, want %d", c.name, got, c.want)
		}
	}
}

// FuzzParamReg reads arbitrary location lists and expressions: no panic,
// no endless loop.
func FuzzParamReg(f *testing.F) {
	f.Add([]byte{lleOffsetPair, 0, 4, 1, opReg0 + 5, lleEndOfList}, []byte{opEntryValue, 1, opReg0 + 4, opStackValue}, uint64(0))
	f.Add([]byte{lleBaseAddressx, 3, lleStartxLength, 1, 2, 2, 0x77, 0, lleEndOfList}, []byte{0x03, 1, 2, 3, 4, 5, 6, 7, 8}, uint64(0))
	f.Fuzz(func(t *testing.T, ll, expr []byte, off uint64) {
		r := testReader(ll)
		r.paramReg(&attrVal{class: classOffset, u: off}, opReg0+5)
		r.paramReg(&attrVal{class: classLoclistx, u: off}, opReg0+5)
		r.paramReg(&attrVal{class: classBlock, b: expr}, opReg0+5)
		r.u.version = 4
		r.d.loc = ll
		r.paramReg(&attrVal{class: classOffset, u: off}, opReg0+5)
	})
}
