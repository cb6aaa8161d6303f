package kallsyms

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadModule reads one module as ReadModules reads all, and refuses
// names that are not one path element.
func TestReadModule(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "module", "foo")
	if err := os.MkdirAll(filepath.Join(dir, "sections"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"coresize": "8192\n", "sections/.text": "0xffffffffc0001000\n", "initstate": "live\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "module", "builtin"), 0o755); err != nil {
		t.Fatal(err)
	}
	all, err := ReadModules(root)
	if err != nil || len(all) != 1 {
		t.Fatalf("ReadModules = %+v, %v", all, err)
	}
	one, err := ReadModule(root, "foo")
	if err != nil || one.Name != "foo" || one.Text != all[0].Text || one.Size != 8192 || one.State != "live" {
		t.Errorf("ReadModule = %+v, %v; ReadModules gave %+v", one, err, all[0])
	}
	for _, name := range []string{"builtin", "absent", "", ".", "..", "../module/foo", "a/b"} {
		if _, err := ReadModule(root, name); !errors.Is(err, ErrNotFound) {
			t.Errorf("ReadModule(%q): %v, want ErrNotFound", name, err)
		}
	}
}

// TestWithModuleWithout: metadata added with WithModule gives a module
// without symbols its range; Without drops a module's symbols and
// metadata; neither changes the snapshot it starts from.
func TestWithModuleWithout(t *testing.T) {
	s := mustParse(t, []byte("ffffffff81000000 T _stext\nffffffffc0000010 t m_fn\t[m]\n"), nil)
	n := s.WithModule(ModuleInfo{Name: "x", Text: 0xffffffffc1000000, Size: 0x2000})
	if sym, err := n.Lookup(0xffffffffc1000010); err != nil || sym.Module != "x" || sym.Name != "" || sym.Offset != 0x10 {
		t.Errorf("Lookup in x: %+v, %v", sym, err)
	}
	if _, err := s.Lookup(0xffffffffc1000010); !errors.Is(err, ErrNotFound) {
		t.Errorf("original snapshot changed: %v", err)
	}
	w := n.Without("m")
	if _, err := w.Module("m"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Without(m) kept m: %v", err)
	}
	if _, err := w.Module("x"); err != nil {
		t.Errorf("Without(m) dropped x: %v", err)
	}
	if w.Without("absent") != w {
		t.Error("Without of an absent module made a new snapshot")
	}
	var names []string
	for sym := range n.ModuleSymbols("m") {
		names = append(names, sym.Name)
	}
	if len(names) != 1 || names[0] != "m_fn" {
		t.Errorf("ModuleSymbols(m) = %q", names)
	}
}
