//go:build !linux

package atomicfile

import "os"

// syncfs flushes what it can where syncfs(2) does not exist: path itself
// (fsync). Batch's temporary files are then not all known to be on disk
// before their renames.
func syncfs(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
