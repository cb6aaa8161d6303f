package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// debianKernelPackage returns a real Debian kernel package: $KMETA_DEB, or
// one that "apt-get download" fetches when KMETA_HEAVY=1 (CI sets it).
func debianKernelPackage(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("KMETA_DEB"); p != "" {
		return p
	}
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("needs a Debian kernel package: set KMETA_DEB=FILE.deb, or KMETA_HEAVY=1 to download one")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Skip("needs apt-get to download a kernel package")
	}
	dir := t.TempDir()
	cmd := exec.Command("apt-get", "download", "linux-image-6.1.0-47-cloud-amd64-unsigned")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("apt-get download failed (no network or package gone): %v\n%s", err, out)
	}
	debs, _ := filepath.Glob(filepath.Join(dir, "*.deb"))
	if len(debs) != 1 {
		t.Skip("apt-get download gave no package")
	}
	return debs[0]
}

// extractBTF extracts the vmlinux .BTF section of a bzImage by hand, as
// the kernel's scripts/extract-vmlinux does: find a compressor's magic,
// decompress from there with its command-line tool, keep the first result
// that is an ELF file, then objcopy --dump-section .BTF.
func extractBTF(t *testing.T, vmlinuz string) string {
	t.Helper()
	for _, tool := range []string{"objcopy", "bpftool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	img, err := os.ReadFile(vmlinuz)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vmlinux := filepath.Join(dir, "vmlinux")
	magics := []struct {
		magic []byte
		cmd   []string
	}{
		{[]byte{0x1f, 0x8b, 0x08}, []string{"gzip", "-dc"}},
		{[]byte{0xfd, '7', 'z', 'X', 'Z', 0}, []string{"xz", "-dc"}},
		{[]byte("BZh"), []string{"bzip2", "-dc"}},
		{[]byte{0x5d, 0, 0, 0}, []string{"lzma", "-dc"}},
		{[]byte{0x89, 'L', 'Z', 'O'}, []string{"lzop", "-dc"}},
		{[]byte{0x02, 0x21, 0x4c, 0x18}, []string{"lz4", "-dc"}},
		{[]byte{0x28, 0xb5, 0x2f, 0xfd}, []string{"zstd", "-dc"}},
	}
	for _, m := range magics {
		if _, err := exec.LookPath(m.cmd[0]); err != nil {
			continue
		}
		for off := bytes.Index(img, m.magic); off >= 0; {
			cmd := exec.Command(m.cmd[0], m.cmd[1:]...)
			cmd.Stdin = bytes.NewReader(img[off:])
			out, _ := cmd.Output() // trailing data makes some tools fail after the output
			if bytes.HasPrefix(out, []byte("\x7fELF")) {
				if err := os.WriteFile(vmlinux, out, 0o644); err != nil {
					t.Fatal(err)
				}
				btfFile := filepath.Join(dir, "vmlinux.btf")
				if out, err := exec.Command("objcopy", "--dump-section", ".BTF="+btfFile, vmlinux, filepath.Join(dir, "discard.o")).CombinedOutput(); err != nil {
					t.Fatalf("objcopy: %v\n%s", err, out)
				}
				return btfFile
			}
			next := bytes.Index(img[off+1:], m.magic)
			if next < 0 {
				break
			}
			off += 1 + next
		}
	}
	t.Skip("no compressed vmlinux found with the installed tools")
	return ""
}

// TestDebianPackage reads a real Debian kernel package and its vmlinuz:
// "btf dump" of each must print what bpftool prints for the .BTF section
// extracted by hand; "btf modules --package" must list every module with
// the type count of its BTF in testdata.
func TestDebianPackage(t *testing.T) {
	t.Parallel()
	deb := debianKernelPackage(t)
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("needs dpkg-deb")
	}
	root := t.TempDir()
	if out, err := exec.Command("dpkg-deb", "-x", deb, root).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb: %v\n%s", err, out)
	}
	vmlinuz, _ := filepath.Glob(filepath.Join(root, "boot", "vmlinuz-*"))
	if len(vmlinuz) != 1 {
		t.Fatalf("package has %d vmlinuz", len(vmlinuz))
	}
	btfFile := extractBTF(t, vmlinuz[0])
	want, err := exec.Command("bpftool", "btf", "dump", "file", btfFile).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{vmlinuz[0], deb} {
		got, err := kmetaBytes(t, nil, "btf", "dump", in)
		if err != nil {
			t.Fatalf("btf dump %s: %v", in, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("btf dump %s differs from bpftool's dump of the extracted .BTF", filepath.Base(in))
		}
	}
	if !strings.Contains(filepath.Base(deb), "6.1.0-47-cloud-amd64") {
		return // the module fixtures are of that kernel
	}
	out, err := kmeta(t, nil, "btf", "modules", "--package", deb)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		f := strings.Fields(line)
		n, _ := strconv.Atoi(f[1])
		counts[f[0]] = n
	}
	base := testfixtures.DebianSpec(t)
	mods := testfixtures.Modules(t)
	if len(counts) != len(mods) {
		t.Errorf("modules --package lists %d modules, testdata has %d", len(counts), len(mods))
	}
	for name, data := range mods {
		s := testfixtures.Spec(t, data, base)
		if counts[testfixtures.SysfsName(name)] != s.NumTypes() && counts[name] != s.NumTypes() {
			t.Errorf("module %s: %d types listed, its BTF has %d", name, counts[name], s.NumTypes())
		}
	}
}
