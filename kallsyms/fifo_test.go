package kallsyms

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSysfsFIFO: a FIFO planted in a sysfs tree is not read: opening it
// must not wait for a writer that never comes.
func TestSysfsFIFO(t *testing.T) {
	root := t.TempDir()
	mod := filepath.Join(root, "module", "m")
	os.MkdirAll(filepath.Join(mod, "sections"), 0o755)
	os.WriteFile(filepath.Join(mod, "sections", ".text"), []byte("0xffffffffc0000000\n"), 0o644)
	for _, f := range []string{"coresize", "initstate"} {
		if err := syscall.Mkfifo(filepath.Join(mod, f), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadModules(root)
		done <- err
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ReadModules blocked on a FIFO")
	}
}
