package kimage_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/kimage"
)

// coreRPMs are the test kernel-core RPMs (testdata/kimage/rpm/make.sh):
// the demo package's kernel and module, one per payload compression.
var coreRPMs = []string{"gz", "xz", "zst"}

func coreRPM(comp string) string {
	return "../testdata/kimage/rpm/kernel-core-6.1.0-demo." + comp + ".rpm"
}

// TestRPMPackage: each kernel-core RPM gives the BTF of the Debian package
// it was built from, its kernel's and its module's.
func TestRPMPackage(t *testing.T) {
	ctx := context.Background()
	deb, err := kimage.OpenPackage(ctx, demoPackage, kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, comp := range coreRPMs {
		path := coreRPM(comp)
		p, err := kimage.OpenPackage(ctx, path, kimage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Modules(); len(got) != 1 || got[0] != "demo" {
			t.Errorf("%s: modules %q, want [demo]", comp, got)
		}
		for _, name := range []string{"vmlinux", "demo"} {
			got, err := p.File(name)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := deb.File(name)
			if !bytes.Equal(got, want) {
				t.Errorf("%s: %s differs from the Debian package's", comp, name)
			}
		}
		s, err := kimage.OpenBTF(ctx, path, btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := deb.File("vmlinux")
		want, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.NumTypes() != want.NumTypes() || s.StringsLen() != want.StringsLen() {
			t.Errorf("%s: OpenBTF reads %d types and %d bytes of strings, the package's vmlinux has %d and %d",
				comp, s.NumTypes(), s.StringsLen(), want.NumTypes(), want.StringsLen())
		}
		s.Close()
		want.Close()
	}
}

// rpmOf returns an RPM package whose payload is payload: a lead, and
// empty signature and main headers.
func rpmOf(payload []byte) []byte {
	lead := make([]byte, 96)
	copy(lead, []byte{0xed, 0xab, 0xee, 0xdb, 3, 0})
	hdr := []byte{0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	return append(append(append(lead, hdr...), hdr...), payload...)
}

// cpioEntry returns one "new ASCII" cpio entry.
func cpioEntry(magic, name string, mode uint32, data []byte) []byte {
	h := fmt.Sprintf("%s%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		magic, 1, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name)+1, 0)
	b := append([]byte(h), name...)
	b = append(b, 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// TestRPMBad: a damaged RPM gives one clear error, never a panic.
func TestRPMBad(t *testing.T) {
	good, err := os.ReadFile(coreRPM("gz"))
	if err != nil {
		t.Fatal(err)
	}
	trailer := cpioEntry("070701", "TRAILER!!!", 0, nil)
	file := cpioEntry("070701", "./lib/modules/6.1.0/vmlinuz", 0o100644, []byte("not a kernel"))
	huge := rpmOf(nil)
	copy(huge[96+8:], []byte{0, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0})
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"lead only":        {good[:96], "RPM signature header at byte 96: truncated"},
		"bad header magic": {append(good[:96:96], make([]byte, 64)...), "bad magic 00000000"},
		"huge header":      {huge, "more than rpm accepts"},
		"header past end":  {good[:200], "past the end of the package"},
		"payload cut":      {good[:len(good)-100], "unexpected EOF"},
		"no payload":       {rpmOf(nil), "cpio header: unexpected EOF"},
		"bad cpio magic":   {rpmOf(cpioEntry("070707", "x", 0, nil)), `bad magic "070707"`},
		"stripped cpio":    {rpmOf(cpioEntry("07070X", "x", 0, nil)), "large-file payload"},
		"long name":        {rpmOf(cpioEntry("070701", strings.Repeat("a", 5000), 0, nil)), "a name of 5001 bytes"},
		"file cut":         {rpmOf(file[:len(file)-8]), "unexpected EOF"},
		"not a kernel":     {rpmOf(append(file, trailer...)), "lib/modules/6.1.0/vmlinuz"},
		"no kernel":        {rpmOf(trailer), "no boot/vmlinuz-*"},
	} {
		_, err := kimage.ReadPackage(context.Background(), bytes.NewReader(c.data), kimage.Options{MaxSize: 1 << 20})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// TestPackagePaths: the paths that hold a kernel image and a vmlinux with
// DWARF, as Debian's and Fedora's packages lay them out.
func TestPackagePaths(t *testing.T) {
	for name, want := range map[string][2]bool{
		"boot/vmlinuz-6.1.0-47-cloud-amd64":                   {true, false},
		"lib/modules/6.8.5-301.fc40.x86_64/vmlinuz":           {true, false},
		"usr/lib/modules/6.8.5-301.fc40.x86_64/vmlinuz":       {true, false},
		"lib/modules/vmlinuz":                                 {false, false},
		"lib/modules/6.8.5/kernel/vmlinuz":                    {false, false},
		"usr/lib/debug/lib/modules/6.8.5-301.fc40/vmlinux":    {false, true},
		"usr/lib/debug/boot/vmlinux-6.1.0-47-cloud-amd64":     {false, true},
		"usr/lib/debug/lib/modules/6.8.5/kernel/a/b.ko.debug": {false, false},
	} {
		if got := [2]bool{kimage.IsVmlinuz(name), kimage.IsDebugVmlinux(name)}; got != want {
			t.Errorf("%s: IsVmlinuz, IsDebugVmlinux = %v, want %v", name, got, want)
		}
	}
}

// FuzzRPM reads mutated RPM packages (seeded with the test kernel-core
// RPMs): an error or a Package, never a panic, within a 1 MiB limit.
func FuzzRPM(f *testing.F) {
	for _, comp := range coreRPMs {
		data, err := os.ReadFile(filepath.Clean(coreRPM(comp)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(rpmOf(cpioEntry("070701", "TRAILER!!!", 0, nil)))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := kimage.ReadPackage(context.Background(), bytes.NewReader(data), kimage.Options{MaxSize: 1 << 20})
		fuzztest.CheckError(t, "kimage", err)
		if err == nil {
			p.Modules()
		}
	})
}

// cpioLink returns one "new ASCII" cpio entry of a regular file that is
// a hard link: ino names its file, nlink counts its links.
func cpioLink(name string, ino, nlink uint32, data []byte) []byte {
	e := cpioEntry("070701", name, 0o100644, data)
	copy(e[6:], fmt.Sprintf("%08x", ino))
	copy(e[6+8*4:], fmt.Sprintf("%08x", nlink))
	return e
}

// onDevice sets the device major number of the cpio entry e.
func onDevice(e []byte, major uint32) []byte {
	copy(e[6+8*7:], fmt.Sprintf("%08x", major))
	return e
}

// TestRPMHardLinks: rpm writes a set of hard links' contents once, with
// the last link; the earlier ones are empty in the archive. Walk gives
// the contents to the first name of the set that reads them, wherever
// it comes, and links whose contents never come as empty files.
func TestRPMHardLinks(t *testing.T) {
	kernel := []byte("the kernel")
	trailer := cpioEntry("070701", "TRAILER!!!", 0, nil)
	cat := func(es ...[]byte) []byte { return rpmOf(bytes.Join(append(es, trailer), nil)) }
	for name, c := range map[string]struct {
		rpm  []byte
		skip string // a name whose file the walk does not read
		want string
	}{
		"first link empty": {cat(cpioLink("./boot/vmlinuz-6.1.0", 7, 2, nil), cpioLink("./etc/other", 8, 1, []byte("x")), cpioLink("./lib/modules/6.1.0/vmlinuz", 7, 2, kernel)),
			"", "etc/other=x boot/vmlinuz-6.1.0=the kernel"},
		"first link passed over": {cat(cpioLink("./boot/vmlinuz-6.1.0", 7, 2, nil), cpioLink("./lib/modules/6.1.0/vmlinuz", 7, 2, kernel)),
			"boot/vmlinuz-6.1.0", "lib/modules/6.1.0/vmlinuz=the kernel"},
		"empty set": {cat(cpioLink("./a", 9, 2, nil), cpioLink("./c", 10, 1, []byte("y")), cpioLink("./b", 9, 2, nil)),
			"", "c=y a= b="},
		"link count 2^32-1": {cat(cpioLink("./a", 9, 0xffffffff, nil), cpioLink("./b", 9, 0xffffffff, kernel)),
			"", "a=the kernel"},
		"two contents": {cat(cpioLink("./a", 9, 2, []byte("1")), cpioLink("./b", 9, 2, []byte("2"))),
			"", "a=1 b=2"},
		"other device": {cat(cpioLink("./a", 9, 2, nil), onDevice(cpioLink("./b", 9, 2, kernel), 1)),
			"", "b=the kernel a="},
	} {
		var got []string
		err := kimage.Walk(context.Background(), c.rpm, kimage.Options{}, func(name string, size int64, r io.Reader) error {
			if name == c.skip {
				return nil
			}
			data, err := io.ReadAll(r)
			got = append(got, name+"="+string(data))
			return err
		})
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, c.want)
		}
	}

	// What waits is bounded by the names' bytes, not by their count.
	for _, c := range []struct{ n, name int }{{65537, 8}, {1100, 4000}} {
		var many bytes.Buffer
		for i := range c.n {
			many.Write(cpioLink(fmt.Sprintf("%0*d", c.name, i), uint32(i), 2, nil))
		}
		err := kimage.Walk(context.Background(), cat(many.Bytes()), kimage.Options{}, func(string, int64, io.Reader) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "hard links waiting for their file's contents take more than 4 MiB") {
			t.Errorf("%d waiting links of %d bytes: %v", c.n, c.name, err)
		}
	}
}

// TestRPMHardLinkedKernel: a kernel-core RPM whose vmlinuz is a hard link
// listed first, empty, before the link that holds the image, gives its
// kernel's BTF.
func TestRPMHardLinkedKernel(t *testing.T) {
	ctx := context.Background()
	deb, err := os.ReadFile(demoPackage)
	if err != nil {
		t.Fatal(err)
	}
	image, _, err := kimage.Vmlinuz(ctx, deb, kimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rpm := rpmOf(bytes.Join([][]byte{
		cpioLink("./boot/vmlinuz-6.1.0-demo", 3, 2, nil),
		cpioLink("./lib/modules/6.1.0-demo/vmlinuz", 3, 2, image),
		cpioEntry("070701", "TRAILER!!!", 0, nil),
	}, nil))
	s, err := kimage.ReadBTF(ctx, bytes.NewReader(rpm), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.NumTypes() == 0 {
		t.Error("no types")
	}
}
