package apidoc

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnumsListValues: go doc abbreviates a type's constants to the first
// one ("const ScopeAll Scope = iota ..."), so each exported type with
// constants of its own must name them in its doc comment, where
// `go doc PKG TYPE` shows them.
func TestEnumsListValues(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "internal" || name == "bench" || name == "cmd") {
			return filepath.SkipDir
		}
		checkPackage(t, path, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkPackage(t *testing.T, dir, rel string) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		files := make([]*ast.File, 0, len(p.Files))
		for _, f := range p.Files {
			files = append(files, f)
		}
		dp, err := doc.NewFromFiles(fset, files, "example.com/"+rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range dp.Types {
			for _, c := range typ.Consts {
				for _, name := range c.Names {
					if ast.IsExported(name) && !strings.Contains(typ.Doc, name) {
						t.Errorf("%s: the doc of type %s does not name its value %s", rel, typ.Name, name)
					}
				}
			}
		}
	}
}
