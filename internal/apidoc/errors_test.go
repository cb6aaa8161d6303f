package apidoc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// wrappedHelpers lists the functions ("DIR.Func" or "DIR.Type.Method")
// and whole packages ("DIR") whose error messages carry no prefix of their
// own, because every caller that returns them from an exported entry point
// adds its package's prefix once. Each says why.
var wrappedHelpers = map[string]string{
	"btf/core.marker.addComposite":      "build wraps it: \"core: minimal BTF: TYPE: ...\"",
	"kernel.readFile":                   "a module's file, as os.ReadFile: its *fs.PathError reaches users in a ModuleError, \"kernel: module NAME: read PATH: ...\"",
	"kernel.readFd":                     "readFile puts it in a *fs.PathError",
	"kallsyms.readSmall":                "readModule only asks whether a module's sysfs file reads; its errors are not returned",
	"btf/builder.Builder.copyStr":       "copy wraps it: \"builder: copy TYPE: ...\"",
	"btf/builder.Builder.encodeRecord":  "encode and WriteCopy wrap it: \"builder: copy TYPE: ...\"",
	"btf/builder.Builder.collectRecord": "WriteCopy's first read wraps it: \"builder: copy TYPE: ...\"",
	"btf/layout.tooDeepError":           "Write's run wraps it: \"layout: STRUCT 'NAME' [ID]: ...\"",
	"btf/layout.protosTooDeepError":     "as tooDeepError, whose cause it names when prototypes nest",
	"internal/dedup.checkRecord":        "its callers wrap it: \"dedup: base type N: ...\", \"dedup: type [N]: ...\"",
	"internal/dedup.wordRoom":           "its callers wrap it: \"dedup: %w\", \"dedup: base type N: ...\"",
	"dwarf2btf.finalize":                "Encode wraps it: \"dwarf2btf: btfids: ...\"",
	"internal/wire":                     "btf puts its errors in a *btf.FormatError (\"btf: header section: ...\"); btfids and internal/dedup wrap them with their prefix",
	"internal/input":                    "btf, kimage, kallsyms, dwarf2btf and bpfelf wrap its errors with their prefix; the CLI with \"kmeta: COMMAND: \"",
	"internal/atomicfile":               "the CLI's output files: the CLI prints \"kmeta: COMMAND: \" before its errors",
	"internal/elfscan":                  "btf and bpfelf put its errors in a *btf.FormatError (\"btf: elf section: ...\"); dwarf2btf wraps them with its prefix",
	"internal/elfwrite":                 "the CLI's ELF outputs: the CLI prints \"kmeta: COMMAND: \" before its errors",
	"internal/perfevent":                "kallsyms/live wraps its errors after ErrNoKsymEvents (\"live: not following ...: \")",
	"internal/recenc":                   "the Builder and dedup's Unit report its errors through their sink's Fail, which adds their prefix",
	"internal/bpfsys":                   "bpfobj wraps its errors (\"bpfobj: BTF object 5: ...\"); the CLI with \"kmeta: COMMAND: \"",
}

// notYetPrefixed lists packages whose messages break the convention while issue
// 39's encoder branch reshapes them, with the reason; their messages are
// logged, not failed.
var notYetPrefixed = map[string]string{}

// notPrefixed lists the packages that TestErrorPrefixes does not check:
// commands, which print "kmeta: COMMAND: " before the library's message,
// and test helpers, whose errors reach only tests.
var notPrefixed = map[string]bool{
	"cmd/kmeta":                        true,
	"kallsyms/internal/gentokens":      true,
	"kallsyms/internal/ksymtest":       true,
	"internal/apidoc":                  true,
	"internal/bpftest":                 true,
	"internal/fuzztest":                true,
	"internal/testfixtures":            true,
	"internal/testfixtures/bigendian":  true,
	"internal/testfixtures/debpackage": true,
	"internal/testfixtures/hostile":    true,
	"btf/internal/lazyfuzz":            true,
}

// TestErrorPrefixes checks the error convention of every package: an
// error a package returns starts with "PKG: " (PKG its package name),
// exactly once, also when it is wrapped with %w, and an error about a
// file names the file after the prefix. It reads the message literals of
// errors.New and fmt.Errorf, and the format of each Error method, in the
// non-test files:
//   - a message starts with "PKG: ", and not with "PKG: PKG: ";
//   - or it starts with "%w", adding nothing before the prefix of the
//     error it wraps: a sentinel of the package, itself checked here, as
//     in fmt.Errorf("%w: detail", ErrInvalid), or an error of the
//     package's own that the runtime tests check;
//   - a message of fmt.Errorf that starts with "PKG: " does not wrap a
//     sentinel of the package with %w, which would say "PKG: " twice;
//     pkgerr.Errorf says it once;
//   - functions and packages of wrappedHelpers are exempt: their callers
//     add the prefix (the packages' runtime tests check the result).
//
// An exported function of a public package does not return the error of
// another package's function unwrapped ("x, err := input.File(...)" then
// "return nil, err", or "return btf.Read(...)"), unless that package has the same name (btf/dedup
// and internal/dedup). Deeper passes are not seen here; fuzztest.CheckError
// in the packages' fuzz and bad-input tests checks them at run time.
func TestErrorPrefixes(t *testing.T) {
	root := filepath.Join("..", "..")
	used := map[string]bool{}
	var bad int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bench") {
			return filepath.SkipDir
		}
		if notPrefixed[rel] {
			return nil
		}
		for _, msg := range prefixErrors(t, path, rel, used) {
			if why, ok := notYetPrefixed[rel]; ok {
				t.Logf("%s (not yet: %s)", msg, why)
				continue
			}
			t.Error(msg)
			bad++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range wrappedHelpers {
		dir, _, _ := strings.Cut(k, ".")
		// Branches that add, move or reshape packages land in any order:
		// a stale entry is said, not failed.
		switch {
		case used[k]:
		case !isDir(filepath.Join(root, dir)):
			t.Logf("wrappedHelpers lists %s, which is not in this tree", k)
		default:
			t.Logf("wrappedHelpers lists %s, which has no unprefixed message: remove it", k)
		}
	}
	if bad > 0 {
		t.Logf("%d messages break the error convention", bad)
	}
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// errPackage is the non-test code of one package, parsed.
type errPackage struct {
	rel, name string
	fset      *token.FileSet
	files     []*ast.File
	sentinels map[string]bool // package-level error variables with the prefix
}

func parsePackage(t *testing.T, dir, rel string) *errPackage {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &errPackage{rel: rel, fset: token.NewFileSet(), sentinels: map[string]bool{}}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(p.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name == "main" {
			return nil
		}
		p.name = f.Name.Name
		p.files = append(p.files, f)
	}
	if len(p.files) == 0 {
		return nil
	}
	for _, f := range p.files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if msg, ok := errorMessage(v); ok && i < len(vs.Names) && strings.HasPrefix(msg, p.name+": ") {
						p.sentinels[vs.Names[i].Name] = true
					}
				}
			}
		}
	}
	return p
}

// prefixErrors returns the messages of the package in dir that break the
// convention, and marks in used the wrappedHelpers entries it met.
func prefixErrors(t *testing.T, dir, rel string, used map[string]bool) []string {
	p := parsePackage(t, dir, rel)
	if p == nil {
		return nil
	}
	var out []string
	for _, f := range p.files {
		imports := importNames(f)
		for _, decl := range f.Decls {
			fn := funcKey(decl)
			if fd, ok := decl.(*ast.FuncDecl); ok && !strings.HasPrefix(rel, "internal/") && ast.IsExported(fd.Name.Name) {
				out = append(out, p.passedOn(fd, imports, used)...)
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				if fd, ok := n.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.Name == "Error" {
					if msg, ok := errorMethodFormat(fd); ok {
						out = append(out, p.check(fd.Pos(), fn, msg, nil, used)...)
					}
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if msg, ok := errorMessage(call); ok {
					args := call.Args[1:]
					if isPkgerr(call) {
						args = nil // it says the prefix once
					}
					out = append(out, p.check(call.Pos(), fn, msg, args, used)...)
				}
				return true
			})
		}
	}
	return out
}

// passedOn returns the places where the exported function fd returns an
// error of another package unwrapped: "return nil, err" just after
// "x, err := otherpkg.F(...)".
func (p *errPackage) passedOn(fd *ast.FuncDecl, imports map[string]bool, used map[string]bool) []string {
	from := map[string]string{} // error variable -> "pkg.F" that set it last
	var out []string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				id, ok := l.(*ast.Ident)
				if !ok || !strings.HasPrefix(id.Name, "err") {
					continue
				}
				from[id.Name] = ""
				if len(n.Rhs) != 1 {
					continue
				}
				call, ok := n.Rhs[0].(*ast.CallExpr)
				if !ok {
					continue
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && imports[x.Name] && x.Name != p.name {
						from[id.Name] = x.Name + "." + sel.Sel.Name
					}
				}
			}
		case *ast.ReturnStmt:
			if len(n.Results) == 0 || !returnsError(fd) {
				return true
			}
			var what string
			switch last := n.Results[len(n.Results)-1].(type) {
			case *ast.Ident:
				what = from[last.Name]
			case *ast.CallExpr: // return otherpkg.F(...)
				if sel, ok := last.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && imports[x.Name] && x.Name != p.name {
						what = x.Name + "." + sel.Sel.Name
					}
				}
			}
			if what == "" {
				return true
			}
			k := p.rel + "." + funcKey(fd)
			if _, ok := wrappedHelpers[k]; ok {
				used[k] = true
				return true
			}
			where := p.fset.Position(n.Pos())
			out = append(out, filepath.Join(p.rel, filepath.Base(where.Filename))+":"+strconv.Itoa(where.Line)+
				": "+funcKey(fd)+" returns the error of "+what+" without "+strconv.Quote(p.name+": "))
		}
		return true
	})
	return out
}

// returnsError reports whether fd's last result is an error.
func returnsError(fd *ast.FuncDecl) bool {
	res := fd.Type.Results
	if res == nil || len(res.List) == 0 {
		return false
	}
	id, ok := res.List[len(res.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}

// importNames returns the names under which f refers to the packages it
// imports, but for those whose errors need no prefix: fmt, errors and
// pkgerr make them, and a cancelled call returns its context's cause as
// it is.
func importNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := path[strings.LastIndexByte(path, '/')+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		switch name {
		case "fmt", "errors", "pkgerr", "context", "_", ".":
			continue
		}
		names[name] = true
	}
	return names
}

// check returns what is wrong with one message of function fn, whose
// format arguments are args.
func (p *errPackage) check(pos token.Pos, fn, msg string, args []ast.Expr, used map[string]bool) []string {
	where := p.fset.Position(pos)
	at := filepath.Join(p.rel, filepath.Base(where.Filename)) + ":" + strconv.Itoa(where.Line)
	prefix := p.name + ": "
	var out []string
	switch {
	case strings.HasPrefix(msg, prefix):
		if strings.HasPrefix(msg[len(prefix):], prefix) {
			out = append(out, at+": "+strconv.Quote(msg)+" says "+strconv.Quote(prefix)+" twice")
		}
		for _, s := range wrappedSentinels(msg, args) {
			if p.sentinels[s] {
				out = append(out, at+": "+strconv.Quote(msg)+" wraps "+s+", which says "+strconv.Quote(prefix)+" again: use pkgerr.Errorf")
			}
		}
	case strings.HasPrefix(msg, "%w"):
		// Nothing comes before the wrapped error's own prefix.
		return nil
	default:
		for _, k := range []string{p.rel + "." + fn, p.rel} {
			if _, ok := wrappedHelpers[k]; ok {
				used[k] = true
				return nil
			}
		}
		out = append(out, at+": "+strconv.Quote(msg)+" does not start with "+strconv.Quote(prefix))
	}
	return out
}

// wrappedSentinels returns the identifiers that the %w verbs of the format
// msg take from args.
func wrappedSentinels(msg string, args []ast.Expr) []string {
	var ids []string
	arg := 0
	for i := 0; i < len(msg); i++ {
		if msg[i] != '%' {
			continue
		}
		i++
		for i < len(msg) && strings.IndexByte("+-# 0123456789.*", msg[i]) >= 0 {
			i++
		}
		if i >= len(msg) || msg[i] == '%' {
			continue
		}
		if msg[i] == 'w' && arg < len(args) {
			if id, ok := args[arg].(*ast.Ident); ok {
				ids = append(ids, id.Name)
			}
		}
		arg++
	}
	return ids
}

// isPkgerr reports whether call is pkgerr.Errorf.
func isPkgerr(call *ast.CallExpr) bool {
	sel := call.Fun.(*ast.SelectorExpr)
	return sel.X.(*ast.Ident).Name == "pkgerr"
}

// errorMessage returns the message literal of errors.New(lit),
// fmt.Errorf(lit, ...) or pkgerr.Errorf(lit, ...).
func errorMessage(e ast.Expr) (string, bool) {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || !(pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf" || pkg.Name == "pkgerr" && sel.Sel.Name == "Errorf") {
		return "", false
	}
	return stringLit(call.Args[0])
}

// errorMethodFormat returns how an Error method's message starts: the
// first value it returns or assigns that is a string literal, the format
// of a fmt.Sprintf, or a sum that starts with either.
func errorMethodFormat(fd *ast.FuncDecl) (string, bool) {
	var msg string
	var found bool
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		var vals []ast.Expr
		switch n := n.(type) {
		case *ast.ReturnStmt:
			vals = n.Results
		case *ast.AssignStmt:
			vals = n.Rhs
		}
		if len(vals) > 0 && !found {
			msg, found = messageStart(vals[0])
		}
		return !found
	})
	return msg, found
}

// messageStart returns the literal a string expression starts with.
func messageStart(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		return messageStart(e.X)
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sprintf" && len(e.Args) > 0 {
			return stringLit(e.Args[0])
		}
	}
	return stringLit(e)
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// funcKey names a declaration as wrappedHelpers does: "Func" or
// "Type.Method"; "" for other declarations.
func funcKey(decl ast.Decl) string {
	fd, ok := decl.(*ast.FuncDecl)
	if !ok {
		return ""
	}
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if st, ok := typ.(*ast.StarExpr); ok {
		typ = st.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
