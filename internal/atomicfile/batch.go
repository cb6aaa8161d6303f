package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Batch writes many files atomically with one sync: each Add writes a
// temporary file beside its target, and Commit syncs the file systems that
// hold them once (syncfs) and then renames each over its target. A file per
// fsync costs milliseconds; a deduplication of every module of a kernel
// writes a thousand. Until Commit, no target changes; Abort removes the
// temporary files. Add may be called from several goroutines.
type Batch struct {
	mu    sync.Mutex
	tmps  []string
	paths []string
	done  bool
}

// Add writes data to a temporary file for path, with permissions perm for
// a new file (an existing target keeps its own).
func (b *Batch) Add(path string, data []byte, perm os.FileMode) error {
	f, perm, err := createTemp(path, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Chmod(perm), f.Close())
	if err != nil {
		remove(f.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return b.add(f.Name(), path)
}

// AddNamed is Add for a file that fill writes by its name: tmp, an empty
// temporary file beside path, which fill may replace (by renaming another
// file over it). A new target gets permissions perm.
func (b *Batch) AddNamed(path string, perm os.FileMode, fill func(tmp string) error) error {
	f, perm, err := createTemp(path, perm)
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	if err := fill(tmp); err != nil {
		remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, perm); err != nil {
		remove(tmp)
		return fmt.Errorf("%s: %w", path, err)
	}
	return b.add(tmp, path)
}

// add puts the written temporary file tmp in the batch, for path.
func (b *Batch) add(tmp, path string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		remove(tmp)
		return errors.New("atomicfile: Add after Commit or Abort")
	}
	b.tmps = append(b.tmps, tmp)
	b.paths = append(b.paths, path)
	return nil
}

// Commit syncs the temporary files' file systems and renames every file
// over its target. On error the files not yet renamed are removed.
func (b *Batch) Commit() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = true
	synced := map[string]bool{}
	for i, tmp := range b.tmps {
		dir := filepath.Dir(tmp)
		if synced[dir] {
			continue
		}
		synced[dir] = true
		if err := syncfs(tmp); err != nil {
			b.removeFrom(i)
			return fmt.Errorf("%s: %w", b.paths[i], err)
		}
	}
	for i, tmp := range b.tmps {
		if err := os.Rename(tmp, b.paths[i]); err != nil {
			b.removeFrom(i)
			return err
		}
		untrack(tmp)
	}
	b.tmps = nil
	return nil
}

// Abort removes the temporary files; no target changes.
func (b *Batch) Abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = true
	b.removeFrom(0)
}

func (b *Batch) removeFrom(i int) {
	for _, tmp := range b.tmps[i:] {
		remove(tmp)
	}
	b.tmps = b.tmps[:i]
}
