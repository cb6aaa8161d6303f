//go:build unix

package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Sysfs15 names a mutation of the fifteenth campaign (issue 37): what a
// --sysfs DIR tree, or the real /sys while modules come and go, can hold
// under module/NAME when a reader (kallsyms.ReadModules, a Symbolizer's
// reload, Watch's publishRange) looks at it.
type Sysfs15 int

// The mutations. Each writes module/NAME under root, replacing whatever
// was there.
const (
	SysfsPlain       Sysfs15 = iota // a loadable module: coresize 4096, .text 0xffffffffc0000000, a 20-byte build ID
	SysfsTextMax                    // .text 0xffffffffffffffff, coresize 4096
	SysfsTextWrap                   // .text 0xfffffffffffff000, coresize 1 MiB: the range wraps
	SysfsSizeMax                    // .text 0xffffffffc0000000, coresize 2^64-1
	SysfsTextJunk                   // .text "0x", coresize 4,096 digits (past uint64)
	SysfsCoresizeDir                // coresize is a directory
	SysfsSelfLoop                   // module/NAME is a symbolic link to itself
	SysfsSectionsUp                 // sections is a symbolic link to ".." (a loop through the tree)
	SysfsFIFO                       // coresize and sections/.text are FIFOs nobody writes
	SysfsNotesHuge                  // notes/.note.gnu.build-id of 1 MiB of notes of type 3
	SysfsNotesOdd                   // a note of namesz 0xffffffff, then one of descsz 0xfffffffc
	SysfsNotesLong                  // a GNU build ID of 4,000 bytes (more than any hash)
	SysfsInitJunk                   // initstate of 4 KiB of control bytes and no newline
	SysfsRemoved                    // module/NAME does not exist
	numSysfs15s
)

// Sysfs15s lists every mutation.
func Sysfs15s() []Sysfs15 { return upTo(numSysfs15s) }

// String names the mutation in kebab case.
func (m Sysfs15) String() string {
	names := [...]string{"plain", "text-max", "text-wrap", "size-max", "text-junk", "coresize-dir", "self-loop",
		"sections-up", "fifo", "notes-huge", "notes-odd", "notes-long", "init-junk", "removed"}
	if int(m) < len(names) {
		return names[m]
	}
	return fmt.Sprintf("sysfs15(%d)", int(m))
}

// WriteSysfs15 writes module name under root/module as mutation m says,
// first removing what was there. Files are written in place (not
// renamed), as a module that is replaced between two reads looks.
func WriteSysfs15(root, name string, m Sysfs15) error {
	dir := filepath.Join(root, "module", name)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if m == SysfsRemoved {
		return nil
	}
	if m == SysfsSelfLoop {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return err
		}
		return os.Symlink(name, dir)
	}
	files := map[string][]byte{
		"coresize":                 []byte("4096\n"),
		"sections/.text":           []byte("0xffffffffc0000000\n"),
		"initstate":                []byte("live\n"),
		"notes/.note.gnu.build-id": buildIDNote(bytes.Repeat([]byte{0xab}, 20)),
	}
	switch m {
	case SysfsTextMax:
		files["sections/.text"] = []byte("0xffffffffffffffff\n")
	case SysfsTextWrap:
		files["sections/.text"] = []byte("0xfffffffffffff000\n")
		files["coresize"] = []byte("1048576\n")
	case SysfsSizeMax:
		files["coresize"] = []byte("18446744073709551615\n")
	case SysfsTextJunk:
		files["sections/.text"] = []byte("0x\n")
		files["coresize"] = bytes.Repeat([]byte("9"), 4096)
	case SysfsCoresizeDir, SysfsFIFO:
		delete(files, "coresize")
	case SysfsSectionsUp:
		delete(files, "sections/.text")
	case SysfsNotesHuge:
		one := buildIDNote(bytes.Repeat([]byte{0xcd}, 20))
		files["notes/.note.gnu.build-id"] = bytes.Repeat(one, (1<<20)/len(one))
	case SysfsNotesOdd:
		var b []byte
		b = binary.NativeEndian.AppendUint32(b, 0xffffffff)
		b = binary.NativeEndian.AppendUint32(b, 20)
		b = binary.NativeEndian.AppendUint32(b, 3)
		b = append(b, "GNU\x00"...)
		b = binary.NativeEndian.AppendUint32(b, 4)
		b = binary.NativeEndian.AppendUint32(b, 0xfffffffc)
		b = binary.NativeEndian.AppendUint32(b, 3)
		b = append(b, "GNU\x00"...)
		files["notes/.note.gnu.build-id"] = b
	case SysfsNotesLong:
		files["notes/.note.gnu.build-id"] = buildIDNote(bytes.Repeat([]byte{0xef}, 4000))
	case SysfsInitJunk:
		files["initstate"] = bytes.Repeat([]byte{1, 2, '\r', 0x7f}, 1024)
	}
	for p, b := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	switch m {
	case SysfsCoresizeDir:
		return os.Mkdir(filepath.Join(dir, "coresize"), 0o755)
	case SysfsSectionsUp:
		if err := os.RemoveAll(filepath.Join(dir, "sections")); err != nil {
			return err
		}
		return os.Symlink("..", filepath.Join(dir, "sections"))
	case SysfsFIFO:
		if err := syscall.Mkfifo(filepath.Join(dir, "coresize"), 0o644); err != nil {
			return err
		}
		os.Remove(filepath.Join(dir, "sections", ".text"))
		return syscall.Mkfifo(filepath.Join(dir, "sections", ".text"), 0o644)
	}
	return nil
}

// buildIDNote returns one ELF note "GNU" of type 3 (NT_GNU_BUILD_ID) with
// descriptor id, in the host's byte order as sysfs has it.
func buildIDNote(id []byte) []byte {
	var b []byte
	b = binary.NativeEndian.AppendUint32(b, 4)
	b = binary.NativeEndian.AppendUint32(b, uint32(len(id)))
	b = binary.NativeEndian.AppendUint32(b, 3)
	b = append(b, "GNU\x00"...)
	b = append(b, id...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}
