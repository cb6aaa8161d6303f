package wire

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLayoutOnlyInWire keeps the BTF byte layout in this package (STYLE.md,
// "The wire format lives in one package"). It parses every non-test Go file
// of the module outside internal/wire and reports the tell-tale signs of
// a copy of the layout:
//
//   - the magic number 0xeb9f, anywhere;
//   - in files that handle BTF (under btf/ or dwarf2btf/, or importing a
//     kmeta btf package): the info word's and a member offset's bit fields
//     (shifts by 24 or 31, the masks 0x1f, 0xffff, 0xfffff, 0xffffff,
//     0x0fffffff, 0x60ff0000, 0x80000000), literal byte offsets given to a
//     word reader (Word, PutWord, Uint16/32/64, PutUint16/32/64, or a local
//     word helper), and constants that re-declare the record or header
//     sizes (12, 24, 32) under a layout-like name.
//
// Test files may build BTF by hand (an independent encoding is an oracle),
// so they are not scanned. allowed lists the few places that are not
// layout; keep it short and say why.
func TestLayoutOnlyInWire(t *testing.T) {
	root := moduleRoot(t)
	var findings []finding
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (skipDir(d.Name()) || rel == "internal/wire" || hasGoMod(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		found, err := scanLayout(path, rel)
		findings = append(findings, found...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	findings = slices.DeleteFunc(findings, func(f finding) bool { return allowed[f.key] != "" || otherFormat(f.key) })
	if len(findings) > 0 {
		var lines []string
		for _, f := range findings {
			lines = append(lines, f.pos+": "+strings.TrimPrefix(f.key, f.pos[:strings.LastIndexByte(f.pos, ':')]+": "))
		}
		t.Errorf("BTF byte layout outside internal/wire:\n\t%s\n\n"+
			"Read and write records through wire (wire.Record's accessors, wire.InfoKind/InfoVlen/Info,\n"+
			"wire.NameAt/InfoAt/SizeTypeAt/ExtraAt, wire.Shapes, wire.DefaultLayouts,\n"+
			"wire.MemberOffsetWord, wire.Magic, wire.TypeSize) or through the btf.Type views; if wire lacks\n"+
			"what you need, add it there. If a finding is not BTF layout at all (another format's field),\n"+
			"add its exact key to allowed in internal/wire/guard_test.go with the reason.",
			strings.Join(lines, "\n\t"))
	}
}

// finding is one sign of the layout: key ("path: what", without the line,
// so that allowed survives edits) and where it is.
type finding struct{ key, pos string }

// allowed maps a finding's key to why it is not BTF layout.
var allowed = map[string]string{
	"internal/dedup/output.go: literal offset in PutWord()": "4*j turns the index of a 32-bit word of dedup's word-form record into a byte offset",
	"btf/cdump/record.go: literal offset in Uint64()":       "not BTF: the first 16 bytes of a name, read as two big-endian words to compare names by prefix",
	"btf/builder/refstrings.go: literal offset in Uint64()": "not a record: the string section read 8 bytes at a time to find its NULs (markNULs)",
	"dwarf2btf/die.go: vlen mask 0xffff":                    "DWARF: limits of tag and form codes",
	"dwarf2btf/reloc.go: literal offset in Uint64()":        "ELF: the fields of an Elf64_Rela",
}

// otherFormats are files that own the layout of a format other than BTF's
// records, whose constants look alike: only the magic number, which they
// share with BTF, is checked in them.
var otherFormats = map[string]string{
	"btf/ext/":                               ".BTF.ext (func_info, line_info, CO-RE relocations): its one home",
	"btf/core/internal/insn/":                "BPF instructions (struct bpf_insn)",
	"internal/testfixtures/hostile/elf.go":   "ELF file and section headers of hostile ELF files (BuildELF)",
	"internal/testfixtures/hostile/elf12.go": "ELF section headers of the twelfth campaign's many .BTF-like sections (BuildELF12)",
	"internal/testfixtures/archimages.go":    "kernel image headers (arm64 and riscv64 Image, EFI zboot, s390 IPL record, arm zImage) for kimage's tests",
}

func otherFormat(key string) bool {
	if strings.Contains(key, ": magic ") {
		return false
	}
	for p := range otherFormats {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

func skipDir(name string) bool {
	return name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

func hasGoMod(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// moduleRoot returns the directory of the module's go.mod.
func moduleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for !hasGoMod(dir) {
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	return dir
}

// Masks of the info word and of a member's offset word.
var layoutMasks = map[uint64]string{
	0x1f: "kind mask", 0xffff: "vlen mask", 0xfffff: "type id limit", 0xffffff: "bit offset mask",
	0x0fffffff: "mask", 0x60ff0000: "unused info bits", 0x80000000: "kind flag",
}

// wordReaders are the calls whose offset must not be a literal, with the
// index of the argument that is the offset; -1 for readers given a slice
// (Uint32(b[8:])), whose slice bounds are checked.
var wordReaders = map[string]int{
	"Word": 1, "PutWord": 1, "at": 0, "word": -1,
	"Uint16": -1, "Uint32": -1, "Uint64": -1, "PutUint16": -1, "PutUint32": -1, "PutUint64": -1,
}

// scanLayout returns the findings of one file.
func scanLayout(path, rel string) ([]finding, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	btfFile := strings.HasPrefix(rel, "btf/") || strings.HasPrefix(rel, "dwarf2btf/") || importsBTF(f)
	var out []finding
	report := func(n ast.Node, what string) {
		p := fset.Position(n.Pos())
		out = append(out, finding{key: rel + ": " + what, pos: fmt.Sprintf("%s:%d", rel, p.Line)})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if v, ok := intLit(n); ok && v == 0xeb9f {
				report(n, "magic "+n.Value)
			}
		case *ast.BinaryExpr:
			if btfFile {
				checkMask(n, report)
			}
			if btfFile && (n.Op == token.SHL || n.Op == token.SHR) {
				x := n.X // 1<<31 and -1<<31 are limits, not fields
				if u, ok := x.(*ast.UnaryExpr); ok {
					x = u.X
				}
				_, litX := intLit(x)
				if v, ok := intLit(n.Y); ok && !litX && (v == 24 || v == 31) {
					report(n, fmt.Sprintf("shift by %d", v))
				}
			}
		case *ast.CallExpr:
			if btfFile {
				checkWordCall(n, report)
			}
		case *ast.ValueSpec:
			if btfFile {
				checkSizeConst(n, report)
			}
		}
		return true
	})
	return out, nil
}

// checkWordCall reports a word reader given a literal offset: as its
// second argument (Word(b, 8)) or in the slice it reads (Uint32(b[8:])).
func checkWordCall(c *ast.CallExpr, report func(ast.Node, string)) {
	name := ""
	switch fn := c.Fun.(type) {
	case *ast.SelectorExpr:
		name = fn.Sel.Name
	case *ast.Ident:
		name = fn.Name
	}
	at, ok := wordReaders[name]
	if !ok {
		return
	}
	var offs []ast.Expr
	for i, a := range c.Args {
		switch a := a.(type) {
		case *ast.SliceExpr:
			offs = append(offs, a.Low, a.High)
		case *ast.IndexExpr:
			offs = append(offs, a.Index)
		default:
			if i == at {
				offs = append(offs, a)
			}
		}
	}
	for _, o := range offs {
		if o != nil && hasOffsetLit(o) {
			report(c, "literal offset in "+name+"()")
			return
		}
	}
}

// checkSizeConst reports a constant or variable named like a record or
// header size whose value is one of the layout's sizes.
func checkSizeConst(v *ast.ValueSpec, report func(ast.Node, string)) {
	for i, n := range v.Names {
		if i >= len(v.Values) {
			return
		}
		val, ok := intLit(v.Values[i])
		lower := strings.ToLower(n.Name)
		layoutName := strings.Contains(lower, "rec") || strings.Contains(lower, "hdr") || strings.Contains(lower, "header")
		if ok && layoutName && (val == 12 || val == 24 || val == 32) {
			report(v, fmt.Sprintf("size constant %s = %d", n.Name, val))
		}
	}
}

// checkMask reports a layout mask or limit written in hex as an operand of
// a bit operation or a comparison (a constant declared with the same value
// is another format's, such as DWARF's).
func checkMask(b *ast.BinaryExpr, report func(ast.Node, string)) {
	switch b.Op {
	case token.AND, token.AND_NOT, token.OR, token.GTR, token.GEQ, token.LSS, token.LEQ:
	default:
		return
	}
	for _, e := range []ast.Expr{b.X, b.Y} {
		if l, ok := e.(*ast.BasicLit); ok && isHex(l) {
			if v, _ := intLit(l); layoutMasks[v] != "" {
				report(b, layoutMasks[v]+" "+l.Value)
			}
		}
	}
}

// hasOffsetLit reports whether e is, or adds or multiplies, a nonzero
// multiple of 4: a field offset or an element size.
func hasOffsetLit(e ast.Expr) bool {
	if v, ok := intLit(e); ok {
		return v != 0 && v%4 == 0
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return hasOffsetLit(e.X)
	case *ast.CallExpr: // uint32(off+8)
		return len(e.Args) == 1 && hasOffsetLit(e.Args[0])
	case *ast.BinaryExpr:
		if e.Op == token.ADD || e.Op == token.MUL {
			return hasOffsetLit(e.X) || hasOffsetLit(e.Y)
		}
	}
	return false
}

func intLit(n ast.Node) (uint64, bool) {
	l, ok := n.(*ast.BasicLit)
	if !ok || l.Kind != token.INT {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.ReplaceAll(l.Value, "_", ""), 0, 64)
	return v, err == nil
}

func isHex(l *ast.BasicLit) bool {
	return strings.HasPrefix(l.Value, "0x") || strings.HasPrefix(l.Value, "0X")
}

func importsBTF(f *ast.File) bool {
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p == "github.com/kmeta-dev/kmeta/btf" || strings.HasPrefix(p, "github.com/kmeta-dev/kmeta/btf/") {
			return true
		}
	}
	return false
}
