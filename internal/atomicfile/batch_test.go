package atomicfile

import (
	"errors"
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

// TestBatchAddNamed: a file written by name, also by renaming another
// over the temporary one, joins the batch: renamed at Commit with the
// permissions asked for, removed at Abort, and removed at once when fill
// fails.
func TestBatchAddNamed(t *testing.T) {
	dir := t.TempDir()
	fill := func(tmp string) error {
		other := tmp + ".other"
		if err := os.WriteFile(other, []byte("named"), 0o600); err != nil {
			return err
		}
		return os.Rename(other, tmp)
	}
	var b Batch
	out := filepath.Join(dir, "out")
	if err := b.AddNamed(out, 0o755, fill); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := b.AddNamed(filepath.Join(dir, "failed"), 0o644, func(string) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("AddNamed: %v, want %v", err, boom)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); string(got) != "named" {
		t.Errorf("out = %q", got)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o755 {
		t.Errorf("out's mode %v, want 0755", fi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left, want 1", len(ents))
	}

	var aborted Batch
	if err := aborted.AddNamed(filepath.Join(dir, "later"), 0o644, fill); err != nil {
		t.Fatal(err)
	}
	aborted.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left after Abort, want 1", len(ents))
	}
}
