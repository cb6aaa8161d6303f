package input

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mkfifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return path
}

// TestFileFIFOWriterLater: a FIFO whose writer opens after kmeta does is
// read whole, as a blocking open and read would.
func TestFileFIFOWriterLater(t *testing.T) {
	path := mkfifo(t)
	go func() {
		time.Sleep(50 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write([]byte("hello"))
		f.Close()
	}()
	d, err := File(context.Background(), path, Options{})
	if err != nil || string(d.Bytes()) != "hello" {
		t.Fatalf("%q, %v", d.Bytes(), err)
	}
}

// TestFileFIFOCancel: a FIFO that nobody writes neither blocks the open
// nor the read once the context is cancelled.
func TestFileFIFOCancel(t *testing.T) {
	path := mkfifo(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("interrupted")
	time.AfterFunc(50*time.Millisecond, func() { cancel(stop) })
	done := make(chan error, 1)
	go func() {
		_, err := File(ctx, path, Options{})
		done <- err
	}()
	select {
	case err := <-done:
		if err != stop {
			t.Fatalf("err = %v, want the context's cause", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("read of a FIFO without a writer did not stop when cancelled")
	}
}

func TestFileKinds(t *testing.T) {
	dir := t.TempDir()
	// The error says what the file is, not "(d---------)".
	if _, err := File(context.Background(), dir, Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v, want an error saying it is a directory", err)
	}
	path := filepath.Join(dir, "f")
	os.WriteFile(path, make([]byte, 100), 0o600)
	if _, err := File(context.Background(), path, Options{Limit: 99}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("100 bytes, limit 99: %v", err)
	}
	d, err := File(context.Background(), path, Options{})
	if err != nil || len(d.Bytes()) != 100 || !d.Mapped {
		t.Errorf("regular file: %v", err)
	}
	d.Release()
}
