package live

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/kallsyms/internal/ksymtest"
)

// TestRedteam15ReloadFIFOClose (finding F1): the kallsyms path becomes a
// FIFO that nobody writes; a reload waits for a writer, and Close must
// still return promptly, ending that reload with an error, instead of
// waiting for it forever.
func TestRedteam15ReloadFIFOClose(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kallsyms")
	ksymtest.WriteAtomic(t, path, []byte(baseKallsyms))
	sym, err := NewSymbolizer(Options{Kallsyms: path, NoSysfs: true, NoKsymEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sym.Reload("fifo") }()
	time.Sleep(100 * time.Millisecond)
	closed := make(chan struct{})
	go func() { sym.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Errorf("Close hangs behind the reload")
	}
	select {
	case err := <-done:
		t.Logf("reload returned %v", err)
	case <-time.After(2 * time.Second):
		t.Errorf("reload still running after Close")
	}
}
