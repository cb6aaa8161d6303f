package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncfs flushes the file system that holds path.
func syncfs(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
