package hostile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Shapes of the sixth campaign (issue 37): what wraps BTF rather than BTF
// itself. Kernel images whose decompressor is dense with false payload
// magics, packages of more module files than a kernel has, and BPF
// objects of millions of CO-RE relocation records.

// DenseMagics returns n bytes made of magic over and over: the body of a
// kernel image (testfixtures.S390Image, testfixtures.ZImage) in which
// every few bytes look like the start of a compressed kernel.
func DenseMagics(magic []byte, n int) []byte {
	return bytes.Repeat(magic, n/len(magic))
}

// ModulePaths returns the paths of n module files of a package, each an
// empty .ko under lib/modules/1/kernel/.
func ModulePaths(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("lib/modules/1/kernel/m%d.ko", i)
	}
	return out
}

// btf.ext header fields (the kernel's include/uapi/linux/btf.h,
// struct btf_ext_header): after magic, version, flags and hdr_len, the
// offsets and lengths of func_info, line_info and core_relo, each
// relative to the end of the header.
const (
	extOffCoreOff = 24
	extOffCoreLen = 28
	extMinHeader  = 32
)

// RepeatCORERelos returns obj, a little-endian BPF ELF object, with the
// CO-RE relocation records of its .BTF.ext first section repeated k times
// (the same instructions relocated again and again: bpftool's gen
// min_core_btf and libbpf accept them). The new .BTF.ext is appended to
// the file and its section header pointed at it.
func RepeatCORERelos(obj []byte, k int) ([]byte, error) {
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil, err
	}
	idx := -1
	for i, s := range f.Sections {
		if s.Name == ".BTF.ext" {
			idx = i
		}
	}
	if idx < 0 || f.Class != elf.ELFCLASS64 || f.ByteOrder != binary.LittleEndian {
		return nil, errors.New("hostile: not a little-endian ELF64 object with .BTF.ext")
	}
	sec := f.Sections[idx]
	ext := obj[sec.Offset : sec.Offset+sec.Size]
	le := binary.LittleEndian
	if len(ext) < extMinHeader || le.Uint32(ext[extOffCoreLen:]) == 0 {
		return nil, errors.New("hostile: .BTF.ext has no CO-RE relocations")
	}
	hdr := int(le.Uint32(ext[4:]))
	core := ext[hdr+int(le.Uint32(ext[extOffCoreOff:])):][:le.Uint32(ext[extOffCoreLen:])]
	recSize, n := int(le.Uint32(core)), int(le.Uint32(core[8:]))
	first := core[12 : 12+n*recSize]
	var out []byte
	out = append(out, core[:8]...)
	out = le.AppendUint32(out, uint32(n*k))
	out = append(out, bytes.Repeat(first, k)...)
	out = append(out, core[12+n*recSize:]...)
	newExt := append(bytes.Clone(ext[:hdr+int(le.Uint32(ext[extOffCoreOff:]))]), out...)
	le.PutUint32(newExt[extOffCoreLen:], uint32(len(out)))
	res := bytes.Clone(obj)
	for len(res)%8 != 0 {
		res = append(res, 0)
	}
	off := len(res)
	res = append(res, newExt...)
	// Elf64_Shdr: sh_offset at 24, sh_size at 32.
	sh := int(le.Uint64(res[0x28:])) + idx*int(le.Uint16(res[0x3a:]))
	le.PutUint64(res[sh+24:], uint64(off))
	le.PutUint64(res[sh+32:], uint64(len(newExt)))
	return res, nil
}

// BTFCandidates returns the body of a kernel Image
// (testfixtures.Arm64Image) of n valid BTF headers 32 bytes apart, each
// with no types and a string section that runs to the end of the body:
// n valid BTFs, none of which is the kernel's.
func BTFCandidates(n int) []byte {
	const step = 32
	total := n*step + 16
	body := make([]byte, 0, total)
	for k := range n {
		h := wire.Header{Version: 1, HdrLen: wire.HeaderLen, StrLen: uint32(total - k*step - wire.HeaderLen)}
		body = wire.AppendHeader(body, h, binary.LittleEndian)
		body = append(body, make([]byte, step-wire.HeaderLen)...)
	}
	return append(body, make([]byte, total-len(body))...)
}
