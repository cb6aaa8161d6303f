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
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return
	}
	dp, err := doc.NewFromFiles(fset, files, "example.com/"+rel)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
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
