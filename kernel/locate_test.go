package kernel

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

const testRelease = "6.1.0-47-cloud-amd64"

// put writes b at path p (slash-separated, absolute) below root.
func put(tb testing.TB, root, p string, b []byte) {
	tb.Helper()
	full := filepath.Join(root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(full, b, 0o444); err != nil {
		tb.Fatal(err)
	}
}

// elfWithBTF wraps raw BTF in a minimal little-endian ELF64 file with a
// .BTF section, as a debug vmlinux has it.
func elfWithBTF(btfData []byte) []byte {
	const ehsize, shentsize = 64, 64
	shstrtab := []byte("\x00.BTF\x00.shstrtab\x00")
	le := binary.LittleEndian
	out := make([]byte, ehsize)
	copy(out, "\x7fELF\x02\x01\x01")
	le.PutUint16(out[16:], 2)  // ET_EXEC
	le.PutUint16(out[18:], 62) // EM_X86_64
	le.PutUint32(out[20:], 1)  // EV_CURRENT
	btfOff := uint64(len(out))
	out = append(out, btfData...)
	strOff := uint64(len(out))
	out = append(out, shstrtab...)
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := uint64(len(out))
	le.PutUint64(out[40:], shoff)
	le.PutUint16(out[52:], ehsize)
	le.PutUint16(out[58:], shentsize)
	le.PutUint16(out[60:], 3) // e_shnum
	le.PutUint16(out[62:], 2) // e_shstrndx
	sh := func(name, typ uint32, off, size uint64) {
		b := make([]byte, shentsize)
		le.PutUint32(b[0:], name)
		le.PutUint32(b[4:], typ)
		le.PutUint64(b[24:], off)
		le.PutUint64(b[32:], size)
		le.PutUint64(b[48:], 1) // sh_addralign
		out = append(out, b...)
	}
	sh(0, 0, 0, 0)
	sh(1, 1, btfOff, uint64(len(btfData)))  // .BTF, SHT_PROGBITS
	sh(6, 3, strOff, uint64(len(shstrtab))) // .shstrtab, SHT_STRTAB
	return out
}

// TestVmlinuxLocations puts vmlinux BTF at each of libbpf's on-disk places
// under a fake root whose sysfs has none, and checks that it is found there.
func TestVmlinuxLocations(t *testing.T) {
	raw := testfixtures.Read(t, testfixtures.DebianVmlinux)
	elf := elfWithBTF(raw)
	locations := []string{
		"/boot/vmlinux-" + testRelease,
		"/lib/modules/" + testRelease + "/vmlinux-" + testRelease,
		"/lib/modules/" + testRelease + "/build/vmlinux",
		"/usr/lib/modules/" + testRelease + "/kernel/vmlinux",
		"/usr/lib/debug/boot/vmlinux-" + testRelease,
		"/usr/lib/debug/boot/vmlinux-" + testRelease + ".debug",
		"/usr/lib/debug/lib/modules/" + testRelease + "/vmlinux",
	}
	for i, loc := range locations {
		for _, format := range []string{"raw", "elf"} {
			t.Run(format+loc, func(t *testing.T) {
				root := t.TempDir()
				put(t, root, "/sys/kernel/btf/xfs", testfixtures.Modules(t)["xfs"])
				data := raw
				if format == "elf" {
					data = elf
				}
				put(t, root, loc, data)
				// Every earlier place holds something that is not BTF:
				// libbpf skips such files, and so do we.
				for _, earlier := range locations[:i] {
					put(t, root, earlier, []byte("not BTF"))
				}
				opts := Options{Root: root, Release: testRelease}
				paths, err := opts.VmlinuxPaths()
				if err != nil {
					t.Fatal(err)
				}
				if want := filepath.Join(root, filepath.FromSlash(loc)); paths[i+1] != want {
					t.Fatalf("VmlinuxPaths()[%d] = %s, want %s", i+1, paths[i+1], want)
				}
				c := NewCache(opts)
				defer c.Close()
				h := acquire(t, c)
				if got := h.VmlinuxPath(); got != paths[i+1] {
					t.Errorf("VmlinuxPath = %s, want %s", got, paths[i+1])
				}
				if n := h.Vmlinux().NumTypes(); n != 94975 {
					t.Errorf("%d types, want 94975", n)
				}
				// Module BTF under root/sys works over the on-disk vmlinux.
				res, err := h.Find("xfs_mount", FindOptions{})
				if err != nil || len(res.Matches) != 1 || res.Matches[0].Module != "xfs" {
					t.Errorf("find xfs_mount: %v, %v", res, err)
				}

				// Cache.Find screens ahead only when the first file found
				// is raw BTF; otherwise it searches as Handle.Find does.
				c2 := NewCache(opts)
				defer c2.Close()
				h2, res, err := c2.Find("xfs_mount", FindOptions{})
				if err != nil || len(res.Matches) != 1 || res.Matches[0].Module != "xfs" {
					t.Errorf("Cache.Find xfs_mount: %v, %v", res, err)
				}
				if want := format == "raw" && i == 0; h2 != nil && h2.g.prescreened != want {
					t.Errorf("prescreened = %v, want %v", h2.g.prescreened, want)
				}
				if h2 != nil {
					h2.Release()
				}
			})
		}
	}
}

func TestVmlinuxSysfsFirst(t *testing.T) {
	root := t.TempDir()
	put(t, root, "/sys/kernel/btf/vmlinux", testfixtures.Read(t, testfixtures.DebianVmlinux))
	put(t, root, "/boot/vmlinux-"+testRelease, testfixtures.Read(t, testfixtures.HostVmlinux))
	c := NewCache(Options{Root: root, Release: testRelease})
	defer c.Close()
	h := acquire(t, c)
	if want := filepath.Join(root, "sys/kernel/btf/vmlinux"); h.VmlinuxPath() != want {
		t.Errorf("VmlinuxPath = %s, want %s", h.VmlinuxPath(), want)
	}

	// Sysfs overrides Root/sys.
	sysfs := t.TempDir()
	put(t, sysfs, "/kernel/btf/vmlinux", testfixtures.Read(t, testfixtures.HostVmlinux))
	c2 := NewCache(Options{Root: root, Sysfs: sysfs, Release: testRelease})
	defer c2.Close()
	h2 := acquire(t, c2)
	if want := filepath.Join(sysfs, "kernel/btf/vmlinux"); h2.VmlinuxPath() != want {
		t.Errorf("VmlinuxPath = %s, want %s", h2.VmlinuxPath(), want)
	}
	if n := h2.Vmlinux().NumTypes(); n != 126689 {
		t.Errorf("%d types, want the host's 126689", n)
	}
}

func TestNoVmlinux(t *testing.T) {
	root := t.TempDir()
	put(t, root, "/boot/vmlinux-"+testRelease, []byte("not BTF"))
	c := NewCache(Options{Root: root, Release: testRelease})
	_, err := c.Acquire()
	if !errors.Is(err, ErrNoVmlinux) {
		t.Fatalf("Acquire: %v, want ErrNoVmlinux", err)
	}
	t.Log(err)
	// A failure is not cached: once the file is there, Acquire works.
	put(t, root, "/sys/kernel/btf/vmlinux", testfixtures.Read(t, testfixtures.DebianVmlinux))
	h := acquire(t, c)
	if mods, err := h.Modules(); err != nil || len(mods) != 0 {
		t.Errorf("Modules() = %v, %v; want none", mods, err)
	}

	for _, rel := range []string{"..", "a/b", "."} {
		if _, err := (Options{Root: root, Release: rel}).VmlinuxPaths(); err == nil {
			t.Errorf("release %q accepted", rel)
		}
	}
}

// TestSpecialFiles plants FIFOs where vmlinux and a module are looked for:
// they are rejected, without blocking.
func TestSpecialFiles(t *testing.T) {
	root := t.TempDir()
	mkfifo := func(p string) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mkfifo(full, 0o644); err != nil {
			t.Skip(err)
		}
	}
	mkfifo("/sys/kernel/btf/vmlinux")
	mkfifo("/sys/kernel/btf/fifo")
	c := NewCache(Options{Root: root, Release: testRelease})
	if _, err := c.Acquire(); !errors.Is(err, ErrNoVmlinux) {
		t.Fatalf("Acquire: %v, want ErrNoVmlinux", err)
	}
	put(t, root, "/boot/vmlinux-"+testRelease, testfixtures.Read(t, testfixtures.DebianVmlinux))
	h := acquire(t, c)
	_, err := h.Module("fifo")
	var me *ModuleError
	if !errors.As(err, &me) || me.Module != "fifo" {
		t.Errorf("Module(fifo) = %v, want a *ModuleError", err)
	}
}

func TestRunningRelease(t *testing.T) {
	paths, err := Options{}.VmlinuxPaths()
	if err != nil {
		t.Fatal(err)
	}
	if paths[0] != "/sys/kernel/btf/vmlinux" || len(paths) != 8 {
		t.Errorf("paths = %q", paths)
	}
}
