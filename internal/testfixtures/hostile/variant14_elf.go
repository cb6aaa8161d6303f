package hostile

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// The fourteenth campaign's containers (issue 37): the ELF file that
// "kmeta pahole -J" writes .BTF into, mutated the ways a hostile or
// broken build leaves it; the .BTF.ext of a BPF object, mutated field by
// field; and BTFHub-style tar archives whose entries are named and typed
// the ways an archive extractor must guard against.

// ELFMutations names the mutations MutateELF makes of a relocatable
// ELF64 object with .BTF, .debug_info and .rela.debug_info sections.
func ELFMutations() []string {
	return []string{"shstrndx-oor", "shstrndx-zero", "btf-past-eof", "btf-size-huge", "btf-nobits",
		"info-nobits", "info-past-eof", "btf-overlap-info", "btf-overlap-shdrs", "two-btf",
		"shoff-past-eof", "shnum-huge", "shentsize-bad", "truncated", "link-oor", "rela-info-oor",
		"rela-entsize0", "btf-entsize7"}
}

// elfShdr is where the fields of an Elf64_Shdr are.
const (
	shName    = 0
	shType    = 4
	shOffset  = 24
	shSize    = 32
	shLink    = 40
	shInfo    = 44
	shEntsize = 56
	shLen     = 64
	ehShoff   = 0x28
	ehShent   = 0x3a
	ehShnum   = 0x3c
	ehShstr   = 0x3e
)

// MutateELF returns a copy of obj, a little-endian ELF64 object, with the
// mutation m (one of ELFMutations).
func MutateELF(obj []byte, m string) ([]byte, error) {
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil, err
	}
	if f.Class != elf.ELFCLASS64 || f.ByteOrder != binary.LittleEndian {
		return nil, errors.New("hostile: not a little-endian ELF64 object")
	}
	idx := map[string]int{}
	for i, s := range f.Sections {
		if _, dup := idx[s.Name]; !dup {
			idx[s.Name] = i
		}
	}
	for _, need := range []string{".BTF", ".debug_info", ".rela.debug_info"} {
		if _, ok := idx[need]; !ok {
			return nil, fmt.Errorf("hostile: no %s section", need)
		}
	}
	d := bytes.Clone(obj)
	le := binary.LittleEndian
	shoff := int(le.Uint64(d[ehShoff:]))
	shnum := int(le.Uint16(d[ehShnum:]))
	at := func(name string, field int) []byte { return d[shoff+idx[name]*shLen+field:] }
	switch m {
	case "shstrndx-oor":
		le.PutUint16(d[ehShstr:], uint16(shnum+5))
	case "shstrndx-zero":
		le.PutUint16(d[ehShstr:], 0)
	case "btf-past-eof":
		le.PutUint64(at(".BTF", shOffset), uint64(len(d)+4096))
	case "btf-size-huge":
		le.PutUint64(at(".BTF", shSize), 1<<40)
	case "btf-nobits":
		le.PutUint32(at(".BTF", shType), uint32(elf.SHT_NOBITS))
	case "info-nobits":
		le.PutUint32(at(".debug_info", shType), uint32(elf.SHT_NOBITS))
	case "info-past-eof":
		le.PutUint64(at(".debug_info", shOffset), uint64(len(d)+10))
	case "btf-overlap-info":
		copy(at(".BTF", shOffset)[:8], at(".debug_info", shOffset)[:8])
	case "btf-overlap-shdrs":
		le.PutUint64(at(".BTF", shOffset), uint64(shoff))
		le.PutUint64(at(".BTF", shSize), uint64(shnum*shLen))
	case "two-btf":
		// The section after .BTF (or before it) is named .BTF too.
		other := idx[".BTF"] - 1
		copy(d[shoff+other*shLen+shName:][:4], at(".BTF", shName)[:4])
	case "shoff-past-eof":
		le.PutUint64(d[ehShoff:], uint64(len(d)+100))
	case "shnum-huge":
		le.PutUint16(d[ehShnum:], 0xffff)
	case "shentsize-bad":
		le.PutUint16(d[ehShent:], 40)
	case "truncated":
		d = d[:len(d)/2]
	case "link-oor":
		le.PutUint32(at(".rela.debug_info", shLink), 0xffff)
	case "rela-info-oor":
		le.PutUint32(at(".rela.debug_info", shInfo), 0xfff0)
	case "rela-entsize0":
		le.PutUint64(at(".rela.debug_info", shEntsize), 0)
	case "btf-entsize7":
		le.PutUint64(at(".BTF", shEntsize), 7)
	default:
		return nil, fmt.Errorf("hostile: unknown ELF mutation %q", m)
	}
	return d, nil
}

// ExtMutations names the mutations MutateCOREExt makes of a BPF object's
// .BTF.ext: its CO-RE relocation records (the first's instruction offset,
// type id, access string and kind, or every record's kind in turn),
// their section header (record size, count, section name), the header,
// and the func_info and line_info parts.
func ExtMutations() []string {
	return []string{"insn-past", "insn-odd", "type-huge", "type-zero", "access-past", "access-name",
		"access-empty", "kind-99", "kind-all", "num-huge", "num-zero", "recsize-0", "recsize-3",
		"recsize-huge", "recsize-8", "secname-past", "secname-other", "hdrlen-huge", "corelen-past",
		"func-recsize0", "func-num-huge", "line-num-huge", "line-recsize-huge", "magic", "version",
		"all-same-insn", "line-str-past", "line-str-last"}
}

// .BTF.ext header fields (btf_ext_header) past its common 8 bytes.
const (
	extFuncOff = 8
	extLineOff = 16
)

// MutateCOREExt returns a copy of obj, a little-endian BPF ELF64 object
// with CO-RE relocations, with the mutation m (one of ExtMutations) made
// in its .BTF.ext in place. The string offsets it plants ("access-name",
// "secname-other") are of the name "task_struct" in obj's .BTF.
func MutateCOREExt(obj []byte, m string) ([]byte, error) {
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil, err
	}
	ext, btfSec := f.Section(".BTF.ext"), f.Section(".BTF")
	if ext == nil || btfSec == nil || f.Class != elf.ELFCLASS64 || f.ByteOrder != binary.LittleEndian {
		return nil, errors.New("hostile: not a little-endian ELF64 object with .BTF and .BTF.ext")
	}
	d := bytes.Clone(obj)
	le := binary.LittleEndian
	e := d[ext.Offset : ext.Offset+ext.Size]
	if len(e) < extMinHeader || le.Uint32(e[extOffCoreLen:]) == 0 {
		return nil, errors.New("hostile: .BTF.ext has no CO-RE relocations")
	}
	hl := int(le.Uint32(e[4:]))
	core := e[hl+int(le.Uint32(e[extOffCoreOff:])):]
	fn := e[hl+int(le.Uint32(e[extFuncOff:])):]
	line := e[hl+int(le.Uint32(e[extLineOff:])):]
	rec := core[12:] // the first record: insn_off, type_id, access_str_off, kind
	n := int(le.Uint32(core[8:]))
	b := d[btfSec.Offset : btfSec.Offset+btfSec.Size]
	strs := b[le.Uint32(b[4:])+le.Uint32(b[16:]):]
	taskStruct := uint32(bytes.Index(strs, []byte("\x00task_struct\x00")) + 1)
	switch m {
	case "insn-past":
		le.PutUint32(rec, 0x100000)
	case "insn-odd":
		le.PutUint32(rec, 3)
	case "type-huge":
		le.PutUint32(rec[4:], 0xfffffff)
	case "type-zero":
		le.PutUint32(rec[4:], 0)
	case "access-past":
		le.PutUint32(rec[8:], 0xffffff)
	case "access-name":
		le.PutUint32(rec[8:], taskStruct)
	case "access-empty":
		le.PutUint32(rec[8:], 0)
	case "kind-99":
		le.PutUint32(rec[12:], 99)
	case "kind-all":
		for i := range n {
			le.PutUint32(rec[16*i+12:], uint32(i%14))
		}
	case "all-same-insn":
		for i := range n {
			le.PutUint32(rec[16*i:], 0)
		}
	case "num-huge":
		le.PutUint32(core[8:], 0xffffffff)
	case "num-zero":
		le.PutUint32(core[8:], 0)
	case "recsize-0":
		le.PutUint32(core, 0)
	case "recsize-3":
		le.PutUint32(core, 3)
	case "recsize-huge":
		le.PutUint32(core, 0xffffffff)
	case "recsize-8":
		le.PutUint32(core, 8)
	case "secname-past":
		le.PutUint32(core[4:], 0xffffff)
	case "secname-other":
		le.PutUint32(core[4:], taskStruct)
	case "hdrlen-huge":
		le.PutUint32(e[4:], 0xffffff)
	case "corelen-past":
		le.PutUint32(e[extOffCoreLen:], 0xffffff)
	case "func-recsize0":
		le.PutUint32(fn, 0)
	case "func-num-huge":
		le.PutUint32(fn[8:], 0xffffffff)
	case "line-num-huge":
		le.PutUint32(line[8:], 0xffffffff)
	case "line-str-past":
		le.PutUint32(line[16:], uint32(len(strs))) // the first record's file name
	case "line-str-last":
		le.PutUint32(line[20:], uint32(len(strs)-1)) // its line text: the last NUL, ""
	case "line-recsize-huge":
		le.PutUint32(line, 0x7fffffff)
	case "magic":
		le.PutUint16(e, 0x1234)
	case "version":
		e[2] = 9
	default:
		return nil, fmt.Errorf("hostile: unknown .BTF.ext mutation %q", m)
	}
	return d, nil
}

// TarEntry is an entry of a generated tar archive: a regular file of
// Data, or with Link set a symbolic (Type tar.TypeSymlink) or hard link,
// or a directory (tar.TypeDir).
type TarEntry struct {
	Name string
	Type byte
	Link string
	Data []byte
}

// BTFHubTar returns a tar archive of entries, as BTFHub packs one
// kernel's BTF (RELEASE.btf.tar.xz holds RELEASE.btf), here with what a
// hostile archive holds instead.
func BTFHubTar(entries []TarEntry) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Typeflag: e.Type, Linkname: e.Link, Mode: 0o644, Format: tar.FormatGNU}
		if e.Type == tar.TypeReg {
			h.Size = int64(len(e.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("hostile: tar %q: %w", e.Name, err)
		}
		if _, err := tw.Write(e.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// HostileBTFHubTars returns BTFHub archives around the raw BTF raw, by
// name: an entry named with "..", one with an absolute path, a symbolic
// link then a regular file of one name, a hard link alone, two files of
// one name, and 20,000 directories before the file.
func HostileBTFHubTars(raw []byte) (map[string][]byte, error) {
	dirs := make([]TarEntry, 0, 20_001)
	for i := range 20_000 {
		dirs = append(dirs, TarEntry{Name: fmt.Sprintf("d%d/", i), Type: tar.TypeDir})
	}
	dirs = append(dirs, TarEntry{Name: "x.btf", Type: tar.TypeReg, Data: raw})
	sets := map[string][]TarEntry{
		"dotdot":     {{Name: "../../../../etc/kmeta-rt14", Type: tar.TypeReg, Data: raw}},
		"abs":        {{Name: "/tmp/kmeta-rt14-abs", Type: tar.TypeReg, Data: raw}},
		"symthenreg": {{Name: "x.btf", Type: tar.TypeSymlink, Link: "/etc/passwd"}, {Name: "x.btf", Type: tar.TypeReg, Data: raw}},
		"hardlink":   {{Name: "x.btf", Type: tar.TypeLink, Link: "/etc/passwd"}},
		"dup":        {{Name: "x.btf", Type: tar.TypeReg, Data: raw}, {Name: "x.btf", Type: tar.TypeReg, Data: raw}},
		"dirs":       dirs,
	}
	out := map[string][]byte{}
	for name, es := range sets {
		t, err := BTFHubTar(es)
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

// TarBombZstd returns a zstd stream (without a content size) of a tar
// archive whose one file x.btf claims size bytes of zeros: kilobytes
// that inflate to size.
func TarBombZstd(size int64) ([]byte, error) {
	return zstdOf(func(w io.Writer) error {
		tw := tar.NewWriter(w)
		if err := tw.WriteHeader(&tar.Header{Name: "x.btf", Typeflag: tar.TypeReg, Size: size, Mode: 0o644, Format: tar.FormatGNU}); err != nil {
			return err
		}
		if _, err := io.Copy(tw, io.LimitReader(zeroReader{}, size)); err != nil {
			return err
		}
		return tw.Close()
	})
}

// RepeatLineInfos returns obj, a little-endian BPF ELF64 object, with the
// line_info records of its .BTF.ext first section repeated k times (the
// same lines again and again: bpftool gen min_core_btf and libbpf's open
// accept them). The new .BTF.ext, its parts in the order func_info,
// line_info, core_relo, is appended to the file and its section header
// pointed at it.
func RepeatLineInfos(obj []byte, k int) ([]byte, error) {
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil, err
	}
	ext := f.Section(".BTF.ext")
	if ext == nil || f.Class != elf.ELFCLASS64 || f.ByteOrder != binary.LittleEndian {
		return nil, errors.New("hostile: not a little-endian ELF64 object with .BTF.ext")
	}
	idx := slices.Index(f.Sections, ext)
	le := binary.LittleEndian
	e := obj[ext.Offset : ext.Offset+ext.Size]
	if len(e) < extMinHeader {
		return nil, errors.New("hostile: .BTF.ext has no CO-RE relocations")
	}
	hl := int(le.Uint32(e[4:]))
	part := func(at int) []byte { return e[hl+int(le.Uint32(e[at:])):][:le.Uint32(e[at+4:])] }
	fn, line, core := part(extFuncOff), part(extLineOff), part(extOffCoreOff)
	rs, n := int(le.Uint32(line)), int(le.Uint32(line[8:]))
	var newLine []byte
	newLine = append(newLine, line[:8]...)
	newLine = le.AppendUint32(newLine, uint32(n*k))
	newLine = append(newLine, bytes.Repeat(line[12:12+n*rs], k)...)
	newLine = append(newLine, line[12+n*rs:]...)
	hdr := bytes.Clone(e[:hl])
	for i, v := range []int{0, len(fn), len(fn), len(newLine), len(fn) + len(newLine), len(core)} {
		le.PutUint32(hdr[8+4*i:], uint32(v))
	}
	newExt := slices.Concat(hdr, fn, newLine, core)
	res := bytes.Clone(obj)
	for len(res)%8 != 0 {
		res = append(res, 0)
	}
	off := len(res)
	res = append(res, newExt...)
	sh := int(le.Uint64(res[ehShoff:])) + idx*shLen
	le.PutUint64(res[sh+shOffset:], uint64(off))
	le.PutUint64(res[sh+shSize:], uint64(len(newExt)))
	return res, nil
}
