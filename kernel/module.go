package kernel

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/kimage"
)

// MaxModuleSize bounds the size of one module's BTF file. Module BTF is
// far smaller: the largest of Debian 6.1's 1,121 modules, mlx5_core, has
// 332,186 bytes.
const MaxModuleSize = 256 << 20

// module is one module's BTF in a generation: listed eagerly, opened once on
// first use. spec and err are written once, inside once.
type module struct {
	name   string
	dir    string          // the module BTF directory
	pkg    *kimage.Package // or the package that holds the module's BTF
	once   sync.Once
	spec   *btf.Spec
	err    error
	opened atomic.Bool // set once spec and err are
}

// open returns the module's Spec, opening it on top of base the first time.
// A failure is kept: the module is not retried until the next generation.
func (m *module) open(base *btf.Spec) (*btf.Spec, error) {
	m.once.Do(func() {
		if m.pkg != nil {
			m.set(m.pkg.Open(m.name, base))
			return
		}
		m.set(readSplit(m.path(), base))
	})
	return m.spec, m.err
}

// path returns the path of the module's BTF file, or the package's and
// the module's name.
func (m *module) path() string {
	if m.pkg != nil {
		return m.pkg.String() + ":" + m.name
	}
	return filepath.Join(m.dir, m.name)
}

// set records the outcome of opening the module, inside once.
func (m *module) set(spec *btf.Spec, err error) {
	m.spec, m.err = spec, err
	if err != nil {
		m.err = &ModuleError{Module: m.name, Path: m.path(), Err: err}
	}
	m.opened.Store(true)
}

// parallel calls fn(i) for every i in [0, n), on up to workers goroutines
// (Options.Workers) when n is large enough to pay for them, and returns
// when all calls have returned. Reading or screening 1,121 modules is
// mostly system calls, several milliseconds of them on one core (see
// BenchmarkFindAcrossModules).
func parallel(workers, n int, fn func(i int)) {
	workers = min(workers, n/64+1)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// close closes the module's Spec if it was opened. The caller guarantees
// that nobody uses it any more (see generation.close).
func (m *module) close() error {
	if m.spec == nil {
		return nil
	}
	return m.spec.Close()
}

// readSplit reads the split BTF file at path into memory and parses it on
// top of base. Module BTF files are small, and the kernel's sysfs files for
// modules cannot be memory-mapped, so one read of the file's size is
// cheaper than a mapping. It uses the system calls directly: an os.File
// costs two more calls (epoll registration, which fails for files, and its
// cleanup) per file, a noticeable share of the time of opening all
// modules.
func readSplit(path string, base *btf.Spec) (*btf.Spec, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return btf.Parse(data, btf.Options{Base: base})
}

// readFile reads the file at path: as many bytes as fstat reports (sysfs
// reports the real size of a BTF file, and the file does not change while
// it exists), or, when the size is 0, until EOF. It reads at most
// MaxModuleSize bytes.
func readFile(path string) ([]byte, error) {
	fd, err := openRead(atFDCWD, path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer closeFD(fd)
	size, regular, err := fileSize(fd)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if !regular {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	if size > MaxModuleSize {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("file is %d bytes, more than MaxModuleSize (%d)", size, MaxModuleSize)}
	}
	buf, err := readFd(fd, int(size))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return buf, nil
}

// readFd reads size bytes from fd, or all of it up to MaxModuleSize if
// size is 0.
func readFd(fd, size int) ([]byte, error) {
	exact := size > 0
	if !exact {
		size = 4096
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			if exact {
				return buf, nil
			}
			if len(buf) > MaxModuleSize {
				return nil, fmt.Errorf("file is larger than MaxModuleSize (%d)", MaxModuleSize)
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := read(fd, buf[len(buf):cap(buf)])
		if err != nil {
			return nil, err
		}
		if n == 0 {
			if exact {
				return nil, io.ErrUnexpectedEOF
			}
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// preadFull reads into b from offset off of fd until b is full or the
// file ends, and returns the number of bytes read.
func preadFull(fd int, b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := pread(fd, b[n:], off+int64(n))
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

// listModules lists the module BTF files in dir: every entry except vmlinux
// whose name is a valid path element, sorted by name. A missing directory
// (a kernel without sysfs BTF, vmlinux read from /boot) lists no modules.
func listModules(dir string) ([]*module, error) {
	names, err := readDirNames(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	all := make([]module, len(names)) // one allocation for all
	mods := make([]*module, 0, len(names))
	for i, name := range names {
		if name == Vmlinux || !validName(name) {
			continue
		}
		all[i] = module{name: name, dir: dir}
		mods = append(mods, &all[i])
	}
	return mods, nil
}

// packageModules lists the modules of a kernel package with BTF, sorted by
// name.
func packageModules(p *kimage.Package) []*module {
	names := p.Modules()
	all := make([]module, len(names))
	mods := make([]*module, len(names))
	for i, name := range names {
		all[i] = module{name: name, pkg: p}
		mods[i] = &all[i]
	}
	return mods
}

// readDirNames lists dir without the stat calls of os.ReadDir.
func readDirNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}
