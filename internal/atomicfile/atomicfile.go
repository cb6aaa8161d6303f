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
//
// # Exiting early
//
// A program that exits without letting its writers finish (a second
// Ctrl-C) calls RemoveTemporary first, so that no temporary file is left
// beside a target.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
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
			remove(tmp)
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
	untrack(tmp)
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
	// The file is made and recorded under the lock, so that
	// RemoveTemporary sees every temporary file that exists.
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return nil, 0, fmt.Errorf("%s: %w", path, ErrExiting)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, 0, err
	}
	if temps.names == nil {
		temps.names = map[string]struct{}{}
	}
	temps.names[f.Name()] = struct{}{}
	return f, perm, nil
}

// ErrExiting is the error for a file to be written after RemoveTemporary.
var ErrExiting = errors.New("not written: the program is exiting")

// temps are the temporary files that exist: made, and neither renamed
// over their targets nor removed.
var temps struct {
	sync.Mutex
	names  map[string]struct{}
	closed bool // RemoveTemporary has run
}

// untrack records that the temporary file name no longer exists under
// that name (it was renamed over its target).
func untrack(name string) {
	temps.Lock()
	delete(temps.names, name)
	temps.Unlock()
}

// remove removes the temporary file name.
func remove(name string) {
	os.Remove(name)
	untrack(name)
}

// RemoveTemporary removes every temporary file that Write, WriteFile and
// Batch.Add have made and not yet renamed over their targets, and makes
// later writes fail with ErrExiting: a program calls it when it is about
// to exit without waiting for its writers (a second interrupt). Targets
// are left as they were, or already replaced whole. A writer that is
// renaming its file meanwhile either has installed it or fails.
func RemoveTemporary() {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = true
	for name := range temps.names {
		os.Remove(name)
	}
	clear(temps.names)
}
