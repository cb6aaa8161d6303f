package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.btf")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new contents" {
		t.Fatalf("got %q, %v", got, err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the replaced file's 0600", fi.Mode().Perm())
	}
}

func TestWriteFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.btf")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := Write(path, 0o644, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old" {
		t.Errorf("target = %q, want the old contents", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary file left behind: %v", ents)
	}
}

func TestRemoveTemporary(t *testing.T) {
	defer func() { temps.closed = false }()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.btf")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var batch Batch
	if err := batch.Add(filepath.Join(dir, "a.btf"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	filling, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- Write(path, 0o644, func(w io.Writer) error {
			w.Write([]byte("new"))
			close(filling)
			<-release
			return nil
		})
	}()
	<-filling
	if n := len(readDir(t, dir)); n != 3 {
		t.Fatalf("%d files before RemoveTemporary, want the target and two temporary files", n)
	}
	RemoveTemporary()
	if got := readDir(t, dir); len(got) != 1 || got[0] != "out.btf" {
		t.Errorf("after RemoveTemporary: %v, want only the target", got)
	}
	close(release)
	if err := <-done; err == nil {
		t.Error("Write whose file was removed succeeded")
	}
	if err := batch.Commit(); err == nil {
		t.Error("Commit of removed files succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("target = %q, want the old contents", got)
	}
	if err := WriteFile(path, []byte("late"), 0o644); !errors.Is(err, ErrExiting) {
		t.Errorf("WriteFile after RemoveTemporary: %v, want ErrExiting", err)
	}
	if got := readDir(t, dir); len(got) != 1 {
		t.Errorf("left behind: %v", got)
	}
}

func readDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
