// Package debpackage builds Debian kernel packages of the test fixtures, for
// tests only. It is apart from testfixtures because it imports btf/builder,
// whose own tests import testfixtures.
package debpackage

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// DebianKernelPackage builds a Debian kernel package of the Debian 6.1 fixtures:
// a gzip bzImage whose kernel holds the vmlinux BTF, and the modules named
// (all, for nil) as ELF .ko files with their BTF, in tar order modules
// first, so that they wait for the kernel. It returns the package's path.
// Its data.tar is zstd and the kernel gzip's fastest: kimage's tests read
// xz packages; building megabytes of one cost the tests seconds of CPU.
func DebianKernelPackage(tb testing.TB, names []string) string {
	tb.Helper()
	vmlinux, err := builder.ELF(testfixtures.Read(tb, "btf/debian-6.1.btf.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	w.Write(vmlinux)
	w.Close()
	files := map[string][]byte{"boot/vmlinuz-6.1.0-test": testfixtures.BzImage(gz.Bytes())}
	var order []string
	mods := testfixtures.Modules(tb)
	if names == nil {
		for n := range mods {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	for _, n := range names {
		ko, err := builder.ELF(mods[n])
		if err != nil {
			tb.Fatal(err)
		}
		p := fmt.Sprintf("lib/modules/6.1.0-test/kernel/x/%s.ko", n)
		files[p] = ko
		order = append(order, p)
	}
	order = append(order, "boot/vmlinuz-6.1.0-test")
	path := filepath.Join(tb.TempDir(), "linux-image-6.1.0-test.deb")
	if err := os.WriteFile(path, testfixtures.DebPackageZstd(tb, files, order), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}
