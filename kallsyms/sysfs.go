package kallsyms

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// DefaultSysfs is where sysfs is mounted.
const DefaultSysfs = "/sys"

// ModuleInfo is the metadata sysfs publishes about one loaded module under
// /sys/module/NAME.
type ModuleInfo struct {
	// Name is the module name.
	Name string
	// Text is the address of the module's .text section
	// (sections/.text), or 0 when unknown or hidden (it reads as 0 without
	// CAP_SYSLOG).
	Text uint64
	// Size is the size of the module's core memory (coresize).
	Size uint64
	// BuildID is the GNU build ID from notes/.note.gnu.build-id, or nil.
	BuildID []byte
	// State is the content of initstate: "live", "coming" or "going".
	State string
}

// maxSysfsFile bounds what is read from any one sysfs attribute.
const maxSysfsFile = 4096

// ReadModules reads the metadata of every loadable module under
// root/module (root is the sysfs mount point, DefaultSysfs for ""). Built-in
// modules, which have no coresize, are skipped, as are modules that vanish
// while they are read. Unreadable .text addresses or build IDs are left
// zero. A missing root/module directory returns an empty slice and no
// error; other errors reading the directory are returned. The result is
// sorted by name.
func ReadModules(root string) ([]ModuleInfo, error) {
	if root == "" {
		root = DefaultSysfs
	}
	dir := filepath.Join(root, "module")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, pkgerr.Errorf("kallsyms: %w", err)
	}
	var out []ModuleInfo
	for _, e := range ents {
		if info, ok := readModule(filepath.Join(dir, e.Name()), e.Name()); ok {
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(a, b ModuleInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ReadModule reads the sysfs metadata of one loadable module, name, under
// root/module (root is the sysfs mount point, DefaultSysfs for ""), as
// ReadModules does for all. A built-in module (no coresize), one that is
// not loaded, or a name that is not a single path element returns an
// error wrapping ErrNotFound.
func ReadModule(root, name string) (ModuleInfo, error) {
	if root == "" {
		root = DefaultSysfs
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return ModuleInfo{}, pkgerr.Errorf("kallsyms: %q is not a module name: %w", name, ErrNotFound)
	}
	info, ok := readModule(filepath.Join(root, "module", name), name)
	if !ok {
		return ModuleInfo{}, pkgerr.Errorf("kallsyms: module %q: %w", name, ErrNotFound)
	}
	return info, nil
}

// readModule reads one module directory; ok is false for a built-in or
// vanished module.
func readModule(dir, name string) (ModuleInfo, bool) {
	size, err := readUint(filepath.Join(dir, "coresize"), 10)
	if err != nil {
		return ModuleInfo{}, false
	}
	info := ModuleInfo{Name: name, Size: size}
	if text, err := readUint(filepath.Join(dir, "sections", ".text"), 16); err == nil {
		info.Text = text
	}
	if b, err := readSmall(filepath.Join(dir, "initstate")); err == nil {
		info.State = strings.TrimSpace(string(b))
	}
	if b, err := readSmall(filepath.Join(dir, "notes", ".note.gnu.build-id")); err == nil {
		info.BuildID = parseBuildIDNote(b)
	}
	return info, true
}

// readSmall reads a sysfs attribute. It opens it without blocking and
// refuses what is not a regular file: a FIFO planted in a fake tree would
// otherwise wait forever for a writer.
func readSmall(path string) ([]byte, error) {
	f, fi, err := input.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	return io.ReadAll(io.LimitReader(f, maxSysfsFile))
}

// readUint reads a number in base (16 accepts a 0x prefix).
func readUint(path string, base int) (uint64, error) {
	b, err := readSmall(path)
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	if base == 16 {
		s = strings.TrimPrefix(s, "0x")
	}
	return strconv.ParseUint(s, base, 64)
}

// parseBuildIDNote returns the descriptor of the first NT_GNU_BUILD_ID note
// (name "GNU", type 3) in b, a sequence of ELF notes in the host's byte
// order, or nil. Every length is bounds-checked.
func parseBuildIDNote(b []byte) []byte {
	const ntGNUBuildID = 3
	bo := binary.NativeEndian
	for len(b) >= 12 {
		namesz, descsz, typ := bo.Uint32(b), bo.Uint32(b[4:]), bo.Uint32(b[8:])
		b = b[12:]
		nameEnd := align4(uint64(namesz))
		descEnd := nameEnd + align4(uint64(descsz))
		if descEnd > uint64(len(b)) {
			return nil
		}
		name := b[:namesz]
		desc := b[nameEnd : nameEnd+uint64(descsz)]
		if typ == ntGNUBuildID && string(name) == "GNU\x00" && len(desc) > 0 {
			return slices.Clone(desc)
		}
		b = b[descEnd:]
	}
	return nil
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }
