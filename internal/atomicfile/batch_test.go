package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBatch(t *testing.T) {
	dir := t.TempDir()
	a, c := filepath.Join(dir, "a"), filepath.Join(dir, "c")
	if err := os.WriteFile(a, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	var b Batch
	if err := b.Add(a, []byte("new a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(c, []byte("new c"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); string(got) != "old" {
		t.Fatalf("a changed before Commit: %q", got)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{a: "new a", c: "new c"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if fi, _ := os.Stat(a); fi.Mode().Perm() != 0o600 {
		t.Errorf("a lost its permissions: %v", fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d files left, want 2", len(ents))
	}
}

func TestBatchAbort(t *testing.T) {
	dir := t.TempDir()
	var b Batch
	if err := b.Add(filepath.Join(dir, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Abort left %d files", len(ents))
	}
	if err := b.Add(filepath.Join(dir, "y"), []byte("y"), 0o644); err == nil {
		t.Error("Add after Abort succeeded")
	}
}
