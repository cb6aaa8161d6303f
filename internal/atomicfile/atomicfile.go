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
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
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
// contents (w is the *os.File, which fill may seek in and truncate), syncs it and renames it over path. If fill returns an error,
// nothing is renamed and the error is returned as it is.
//
// A path that is a character device or a FIFO (/dev/null, /dev/stdout, a
// named pipe) is written straight into, since nothing can be renamed onto
// it: what fill writes is what a reader gets, complete or not.
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	if fi, err := os.Stat(path); err == nil && isStream(fi.Mode()) {
		return writeStream(path, fill)
	}
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

// WriteNamed is Write for a fill that writes the temporary file by its
// name (another program's output, such as objcopy's): fill may replace
// the file. The file is then synced, given perm (or the existing target's
// permissions) and renamed over path. path must be a regular file or
// name none yet.
func WriteNamed(path string, perm os.FileMode, fill func(tmp string) error) (err error) {
	f, perm, err := createTemp(path, perm)
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	defer func() {
		if err != nil {
			remove(tmp)
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if f, err = os.OpenFile(tmp, os.O_RDWR, 0); err != nil {
		return err
	}
	err = errors.Join(f.Chmod(perm), f.Sync(), f.Close())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	untrack(tmp)
	return nil
}

// isStream reports whether m is the mode of a file that is written
// straight into, not replaced: a character device or a FIFO.
func isStream(m os.FileMode) bool {
	return m&os.ModeCharDevice != 0 || m&os.ModeNamedPipe != 0
}

// writeStream opens the device or FIFO path and calls fill on it. Opening
// a FIFO waits for a reader, as a shell's redirection does.
func writeStream(path string, fill func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	// fill gets only the writer: a device or FIFO cannot be gone back
	// over as a temporary file can.
	if err := fill(struct{ io.Writer }{f}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Check reports whether Write could write path, without writing it: for a
// command to refuse a bad output before its work rather than after. path
// must be a regular file or name none yet, in a directory where a file
// can be created (a temporary file is made and removed to see), or be a
// character device or a FIFO. The error says what is wrong: "is a
// directory", "no directory ...".
func Check(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	case err == nil && isStream(fi.Mode()):
		return nil
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file, a device or a FIFO", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return err
	}
	return probe(path, filepath.Dir(path))
}

// CheckDir reports whether files can be written into dir (Batch.Add), as
// Check does for a file.
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such directory", dir)
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	return probe(filepath.Join(dir, "x"), dir)
}

// probe creates a temporary file for path in dir and removes it.
func probe(path, dir string) error {
	if fi, err := os.Stat(dir); err != nil {
		return fmt.Errorf("%s: no directory %s", path, dir)
	} else if !fi.IsDir() {
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	f, _, err := createTemp(path, 0o600)
	if err != nil {
		return fmt.Errorf("%s: cannot create a file in %s: %w", path, dir, errors.Unwrap(err))
	}
	f.Close()
	remove(f.Name())
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
