package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// The eighth hostile campaign of issue 37: BTFHub's archives
// (RELEASE.btf.tar, compressed) and trees of them, through btf dump and
// btf min's batch mode (-d OUTDIR --obj OBJ TREE...).

// rt8IntBTF returns BTF of one type, int: a kernel on which every
// relocation of the test objects fails.
func rt8IntBTF(t *testing.T) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "int.btf")
	if _, err := kmeta(t, nil, "btf", "min", testfixtures.File(t, testfixtures.DebianVmlinux), "--types", "int", "-o", out); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// rt8Archive is what btf dump must do with each archive shape: read its
// one file, or refuse it in one line that says this.
var rt8Archive = map[hostile.ArchiveShape]struct {
	n    int
	want string // "" to read it
}{
	hostile.ManyDirs:     {10_000, ""},
	hostile.ManyLinks:    {10_000, ""},
	hostile.ManyFiles:    {10_000, "holds more than one file"},
	hostile.HugePAX:      {2 << 20, "header field too long"},
	hostile.NestedTar:    {0, "inside a tar archive is not supported"},
	hostile.LinkOnly:     {0, "holds no file"},
	hostile.EscapingName: {0, ""},
}

// TestRedteam8Archives: each hostile tar archive, named RELEASE.btf.tar,
// is read or refused in one line by btf dump, and in a tree by btf min
// -d, which writes nothing for it outside OUTDIR and, when one fails,
// nothing at all.
func TestRedteam8Archives(t *testing.T) {
	t.Parallel()
	raw := rt8IntBTF(t)
	obj := testfixtures.Path(t, "elf/prog.bpf.o.gz")
	for _, s := range hostile.ArchiveShapes() {
		c := rt8Archive[s]
		ar, err := hostile.BuildArchive(s, c.n, raw)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		tree := filepath.Join(dir, "tree", "distro", "1", "x86_64")
		in := writeFile(t, tree, "5.0.btf.tar", ar)
		for _, limit := range [][]string{nil, {"--max-input", "64M"}} {
			_, err := kmeta(t, nil, append([]string{"btf", "dump", in}, limit...)...)
			rt8Want(t, s, "dump", err, c.want)
		}
		out := filepath.Join(dir, "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		_, err = kmeta(t, nil, "btf", "min", "-d", out, "--obj", obj, filepath.Join(dir, "tree"))
		rt8Want(t, s, "min -d", err, c.want)
		var files []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && p != out && !strings.HasPrefix(p, filepath.Join(dir, "tree")) {
				files = append(files, strings.TrimPrefix(p, dir))
			}
			return nil
		})
		want := []string{"", "/out/distro", "/out/distro/1", "/out/distro/1/x86_64", "/out/distro/1/x86_64/5.0.btf"}
		if c.want != "" {
			want = want[:1]
		}
		if fmt.Sprint(files) != fmt.Sprint(want) {
			t.Errorf("%v: min -d left %q, want %q", s, files, want)
		}
	}
}

// rt8Want fails the test unless err is nil where want is empty, or one
// line holding want.
func rt8Want(t *testing.T, s hostile.ArchiveShape, cmd string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%v: %s: %v", s, cmd, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n")):
		t.Errorf("%v: %s: %v, want one line with %q", s, cmd, err, want)
	}
}

// TestRedteam8MinTreeShapes runs btf min -d on trees that are not just
// kernels: a symbolic link loop, links and a FIFO named like kernels
// (passed over: the walk follows no link and reads regular files only), a
// directory named like a kernel, the tree given as a link (followed), and
// outputs that cannot all be written:
// RELEASE.btf.tar beside a directory RELEASE.btf/ of kernels, or a
// directory in OUTDIR where an output goes. Those are refused before any
// work, in one line, and OUTDIR is left as it was.
func TestRedteam8MinTreeShapes(t *testing.T) {
	t.Parallel()
	raw := rt8IntBTF(t)
	obj := testfixtures.Path(t, "elf/prog.bpf.o.gz")
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	writeFile(t, filepath.Join(tree, "a"), "k.btf", raw)
	writeFile(t, filepath.Join(tree, "a", "dir.btf"), "k2.btf", raw)
	for _, l := range [][2]string{{"..", "loop"}, {"/etc/shadow", "shadow.btf"}, {"../../outside.btf", "out.btf"}, {"nowhere", "dangling.btf.tar.xz"}} {
		if err := os.Symlink(l[0], filepath.Join(tree, "a", l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(tree, "a", "fifo.btf"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "outside.btf", []byte("not BTF"))
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := kmeta(t, nil, "btf", "min", "-d", out, "--obj", obj, tree); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got = append(got, strings.TrimPrefix(p, out))
		}
		return err
	})
	if want := []string{"/a/dir.btf/k2.btf", "/a/k.btf"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("min -d wrote %q, want %q", got, want)
	}

	// The tree given as a symbolic link to it is walked all the same.
	link := filepath.Join(dir, "link")
	if err := os.Symlink(tree, link); err != nil {
		t.Fatal(err)
	}
	linkOut := filepath.Join(dir, "linkout")
	if err := os.Mkdir(linkOut, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := kmeta(t, nil, "btf", "min", "-d", linkOut, "--obj", obj, link); err != nil {
		t.Errorf("min -d of a link to the tree: %v", err)
	} else if _, err := os.Stat(filepath.Join(linkOut, "a", "dir.btf", "k2.btf")); err != nil {
		t.Errorf("min -d of a link to the tree: %v", err)
	}

	// An output that is another's directory; a directory in the way.
	clash := filepath.Join(dir, "clash")
	writeFile(t, filepath.Join(clash, "d", "z.btf"), "k.btf", raw)
	writeFile(t, filepath.Join(clash, "d"), "z.btf.tar", testfixtures.Tar(t, testfixtures.TarEntry{Name: "z.btf", Data: raw}))
	inWay := filepath.Join(dir, "inway")
	writeFile(t, filepath.Join(inWay, "d"), "k.btf", raw)
	for _, c := range []struct{ tree, mkdir, want string }{
		{clash, "", "would be both a file and a directory"},
		{inWay, "d/k.btf", "is in the way of its output"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		if err := os.MkdirAll(filepath.Join(out, c.mkdir), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := kmeta(t, nil, "btf", "min", "-d", out, "--obj", obj, c.tree)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.tree, err, c.want)
		}
		var left []string
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && p != out && p != filepath.Join(out, c.mkdir) && !strings.HasPrefix(filepath.Join(out, c.mkdir), p+"/") {
				left = append(left, strings.TrimPrefix(p, out))
			}
			return err
		})
		if len(left) > 0 {
			t.Errorf("%s: a refused batch left %q in OUTDIR", c.tree, left)
		}
	}

	// A kernel that fails leaves no directory that min -d made for it.
	bad := filepath.Join(dir, "bad")
	writeFile(t, filepath.Join(bad, "x", "y"), "k.btf", []byte("not BTF"))
	out = filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := kmeta(t, nil, "btf", "min", "-d", out, "--obj", obj, bad); err == nil {
		t.Fatal("min -d of a tree of one bad kernel: no error")
	}
	if ents, _ := os.ReadDir(out); len(ents) > 0 {
		t.Errorf("a failed batch left %s in OUTDIR", ents[0].Name())
	}
}

// rt8Heavy skips a test of the peak RSS of what, unless KMETA_HEAVY=1, and
// returns GNU time, the real binary, BTF of one int and a directory.
func rt8Heavy(t *testing.T, what string) (timeBin, bin string, raw []byte, dir string) {
	t.Helper()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip(what + ", peak RSS: set KMETA_HEAVY=1")
	}
	return gnuTime(t), buildRealKmeta(t), rt8IntBTF(t), t.TempDir()
}

// TestRedteam8MinReportPeakRSS runs btf min -d with the four test objects
// on 5,000 kernels of one type (int), on which every relocation fails:
// 38 MB of report from 220 KB of kernels. It held the report in memory
// until the batch was committed (20,000 kernels: 326 MB); the report now
// waits in a file, and the peak stays within min -d's 2 S + 20 MB and
// 1.5 KB a kernel.
func TestRedteam8MinReportPeakRSS(t *testing.T) {
	timeBin, bin, raw, dir := rt8Heavy(t, "btf min -d over 5,000 kernels with every relocation failing")
	rels, err := hostile.WriteKernelTree(filepath.Join(dir, "tree"), 5000, raw)
	if err != nil {
		t.Fatal(err)
	}
	s := int64(len(rels) * len(raw))
	args := []string{"btf", "min", "-d", filepath.Join(dir, "out")}
	for _, o := range []string{"elf/prog.bpf.o.gz", "core/fields.bpf.o.gz", "core/types.bpf.o.gz", "core/matches.bpf.o.gz"} {
		obj := writeFile(t, dir, filepath.Base(strings.TrimSuffix(o, ".gz")), testfixtures.Read(t, o))
		fi, _ := os.Stat(obj)
		s += fi.Size()
		args = append(args, "--obj", obj)
	}
	args = append(args, filepath.Join(dir, "tree"))
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	peak, code, stderr := peakRSS(t, timeBin, bin, args...)
	if code != 0 {
		t.Fatalf("status %d: %s", code, firstLine(stderr))
	}
	// The README's rule for min -d: 2 S + 20 MB, and 1.5 KB a kernel.
	if bound := readBound(s) + 1536*int64(len(rels)); peak > bound {
		t.Errorf("peak %d MB over %d MB", peak>>20, bound>>20)
	}
}

// TestRedteam8ArchivesPeakRSS runs the big archive shapes (100,000
// entries before the BTF, 51 MB; a PAX header of 5 MB) through the
// reading commands, with and without --max-input 64M: each within the
// reading commands' 2 S + 20 MB, S being the archive (as it is what a
// .btf.tar.xz inflates to).
func TestRedteam8ArchivesPeakRSS(t *testing.T) {
	timeBin, bin, raw, dir := rt8Heavy(t, "archives of 100,000 entries through the reading commands")
	obj := writeFile(t, dir, "prog.bpf.o", testfixtures.Read(t, "elf/prog.bpf.o.gz"))
	for _, c := range []struct {
		s hostile.ArchiveShape
		n int
	}{{hostile.ManyDirs, 100_000}, {hostile.ManyLinks, 100_000}, {hostile.HugePAX, 5 << 20}} {
		ar, err := hostile.BuildArchive(c.s, c.n, raw)
		if err != nil {
			t.Fatal(err)
		}
		in := writeFile(t, dir, c.s.String()+".btf.tar", ar)
		for i, args := range [][]string{
			{"btf", "dump", in}, {"btf", "find", "int", in}, {"btf", "layout", in},
			{"btf", "min", in, "--types", "int", "-o", filepath.Join(dir, "o.btf")},
			{"btf", "min", in, "--obj", obj, "-o", filepath.Join(dir, "o.btf")},
		} {
			if i%2 == 0 {
				args = append(args, "--max-input", "64M")
			}
			rt7Check(t, timeBin, bin, args, int64(len(ar)), 0)
		}
	}
}

// TestRedteam8RPMHardLinks runs btf dump and btf find --package on RPM
// packages of hard links whose contents never come: a million of short
// names, and 60,000 of 4,000-byte names (406 MB when waiting links were
// bounded by their count): one line of error each, with and without
// --max-input 64M, and under KMETA_HEAVY, in a few MB above the binary's.
func TestRedteam8RPMHardLinks(t *testing.T) {
	t.Parallel()
	heavy := os.Getenv("KMETA_HEAVY") == "1"
	dir := t.TempDir()
	for _, c := range []struct{ n, nameLen int }{{1_000_000, 8}, {60_000, 4000}} {
		if !heavy {
			c.n /= 20
		}
		pkg, err := hostile.RPMHardLinks(c.n, c.nameLen)
		if err != nil {
			t.Fatal(err)
		}
		in := writeFile(t, dir, fmt.Sprintf("links-%d-%d.rpm", c.n, c.nameLen), pkg)
		for _, args := range [][]string{
			{"btf", "dump", in}, {"btf", "dump", in, "--max-input", "64M"},
			{"btf", "find", "--kernel", "--package", in, "task_struct"},
		} {
			_, err := kmeta(t, nil, args...)
			if err == nil || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v: %v, want one line of error", args, err)
			}
			if !heavy {
				continue
			}
			timeBin := gnuTime(t)
			peak, code, stderr := peakRSS(t, timeBin, buildRealKmeta(t), args...)
			if code != 2 || strings.Count(stderr, "\n") != 1 || peak > 40<<20 {
				t.Errorf("%v: status %d, peak %d MB: %s", args, code, peak>>20, firstLine(stderr))
			}
		}
	}
}

// TestRedteam8EncodeEachLink: btf encode --each on a symbolic link to a
// directory of modules encodes them; it said "no module" (WalkDir does
// not follow its root), as btf min -d did for a linked tree.
func TestRedteam8EncodeEachLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "mods"), "tags.ko", testfixtures.Read(t, "dwarf/tags-x86_64.o.gz"))
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "mods"), link); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	base := testfixtures.File(t, "pahole/dwarf/kinds-x86_64.btf.gz")
	if _, err := kmeta(t, nil, "btf", "encode", "--each", "-B", base, "-d", out, link); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "tags.btf")); err != nil {
		t.Error(err)
	}
}
