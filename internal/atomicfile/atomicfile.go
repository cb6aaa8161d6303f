// Package atomicfile writes output files so that readers see either the old
// file or the whole new one, never a truncated mix.
//
// The data goes to a temporary file in the target's directory, which is
// synced and then renamed over the target. A failure at any step (a full
// disk, a size limit, a cancelled context) removes the temporary file and
// leaves the target as it was.
//
// # Concurrency
//
// Functions here are safe for concurrent use on distinct targets. Two
// writers racing on one target each install a complete file; the last
// rename wins.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically, with permissions perm (before
// the umask) for a new file, or the existing file's permissions when it
// replaces one.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write creates a temporary file beside path, calls fill to write its
// contents, syncs it and renames it over path. If fill returns an error,
// nothing is renamed and the error is returned as it is.
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	f, perm, err := createTemp(path, perm)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return nil
}

// createTemp creates the temporary file for path, beside it, and returns
// the permissions the target will have: perm for a new file, an existing
// target's own otherwise.
func createTemp(path string, perm os.FileMode) (*os.File, os.FileMode, error) {
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, 0, fmt.Errorf("%s: not a regular file", path)
		}
		perm = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	return f, perm, err
}
