package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// TestCheck: an output that cannot be written is refused before any work,
// without leaving a file; one that can is accepted.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "old.btf")
	if err := os.WriteFile(regular, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want string // "" for no error
	}{
		{dir, "is a directory"},
		{filepath.Join(dir, "no", "out.btf"), "no directory"},
		{filepath.Join(regular, "out.btf"), "is not a directory"},
		{regular, ""},
		{filepath.Join(dir, "new.btf"), ""},
		{os.DevNull, ""},
	} {
		err := Check(tc.path)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Check(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if err := CheckDir(dir); err != nil {
		t.Errorf("CheckDir(%s): %v", dir, err)
	}
	if err := CheckDir(regular); err == nil {
		t.Errorf("CheckDir(%s): no error for a file", regular)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left in the directory: %v", ents)
	}
}

// TestWriteRewrites: fill may go back over the temporary file (a copy
// that writes its header last, btf/builder.WriteCopy) and cut it; a
// device is handed over as a writer only, which cannot go back.
func TestWriteRewrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.btf")
	err := Write(path, 0o644, func(w io.Writer) error {
		f, ok := w.(io.WriteSeeker)
		if !ok {
			return errors.New("the temporary file cannot seek")
		}
		if _, err := io.WriteString(f, "HDR?body and more"); err != nil {
			return err
		}
		if err := w.(interface{ Truncate(int64) error }).Truncate(8); err != nil {
			return err
		}
		if _, err := f.Seek(3, io.SeekStart); err != nil {
			return err
		}
		_, err := io.WriteString(f, "!")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "HDR!body" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	err = Write("/dev/null", 0o644, func(w io.Writer) error {
		if _, ok := w.(io.Seeker); ok {
			return errors.New("a device is handed over as a seeker")
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
