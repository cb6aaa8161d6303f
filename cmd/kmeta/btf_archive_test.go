package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestBTFMinTree: btf min -d over a BTFHub-style tree writes the same
// tree of uncompressed RELEASE.btf files, each bpftool's bytes, and prints
// per kernel the relocations that fail, the lines "btf core" prints.
func TestBTFMinTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tree := filepath.Join(dir, "archive")
	write := func(rel string, data []byte) {
		p := filepath.Join(tree, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deb := testfixtures.Read(t, testfixtures.DebianVmlinux)
	host := testfixtures.Read(t, testfixtures.HostVmlinux)
	write("debian/12/x86_64/6.1.0-47-cloud-amd64.btf.tar.xz", testfixtures.BTFHubArchive(t, "6.1.0-47-cloud-amd64", deb))
	write("host/1/x86_64/6.18.44.btf.tar", testfixtures.Tar(t, testfixtures.TarEntry{Name: "6.18.44.btf", Data: host}))
	write("host/1/x86_64/README", []byte("not a kernel"))
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"btf", "min", "-d", out}
	var objs []string
	for _, o := range []string{"prog", "fields", "types", "matches"} {
		p := "core/" + o + ".bpf.o.gz"
		if o == "prog" {
			p = "elf/prog.bpf.o.gz"
		}
		objs = append(objs, testfixtures.Path(t, p))
		args = append(args, "--obj", objs[len(objs)-1])
	}
	report, err := kmeta(t, nil, append(args, tree)...)
	if err != nil {
		t.Fatal(err)
	}
	same(t, filepath.Join(out, "debian/12/x86_64/6.1.0-47-cloud-amd64.btf"), "core/bpftool/all.debian-6.1.min.btf")
	same(t, filepath.Join(out, "host/1/x86_64/6.18.44.btf"), "core/bpftool/all.host-6.18.min.btf")
	var want strings.Builder
	for _, k := range []struct{ out, file string }{
		{"debian/12/x86_64/6.1.0-47-cloud-amd64.btf", testfixtures.File(t, testfixtures.DebianVmlinux)},
		{"host/1/x86_64/6.18.44.btf", testfixtures.File(t, testfixtures.HostVmlinux)},
	} {
		for _, o := range objs {
			lines, _ := kmeta(t, nil, "btf", "core", o, "--target", k.file)
			for _, l := range strings.SplitAfter(lines, "\n") {
				if strings.Contains(l, "FAILS") {
					want.WriteString(k.out + ": " + filepath.Base(o) + ": " + l)
				}
			}
		}
	}
	if want.Len() == 0 {
		t.Fatal("no relocation fails: the report is not tested")
	}
	if report != want.String() {
		t.Errorf("report:\n%s\nwant:\n%s", report, want.String())
	}
}

// TestRPMCommands: a kernel-core RPM reads as the Debian package it was
// built from, and btf encode of a kernel-debuginfo RPM gives pahole's BTF
// of its vmlinux; a damaged RPM fails with one line naming it.
func TestRPMCommands(t *testing.T) {
	t.Parallel()
	deb := testfixtures.Path(t, "kimage/linux-image-6.1.0-demo.deb")
	want := map[string]string{}
	cmds := map[string][]string{
		"dump":    {"btf", "dump", "PKG"},
		"modules": {"btf", "modules", "--package", "PKG"},
		"find":    {"btf", "find", "--kernel", "--package", "PKG", "demo_dev"},
	}
	subst := func(args []string, pkg string) []string {
		out := append([]string(nil), args...)
		for i := range out {
			if out[i] == "PKG" {
				out[i] = pkg
			}
		}
		return out
	}
	for name, args := range cmds {
		out, err := kmeta(t, nil, subst(args, deb)...)
		if err != nil {
			t.Fatalf("%s of the Debian package: %v", name, err)
		}
		want[name] = out
	}
	for _, comp := range []string{"gz", "xz", "zst"} {
		rpm := testfixtures.Path(t, "kimage/rpm/kernel-core-6.1.0-demo."+comp+".rpm")
		for name, args := range cmds {
			if out, err := kmeta(t, nil, subst(args, rpm)...); err != nil || out != want[name] {
				t.Errorf("%s of the %s RPM: %v\n%s\nwant\n%s", name, comp, err, out, want[name])
			}
		}
	}
	dir := t.TempDir()
	enc := filepath.Join(dir, "enc.btf")
	debuginfo := testfixtures.Path(t, "kimage/rpm/kernel-debuginfo-6.1.0-demo.rpm")
	if _, err := kmeta(t, nil, "btf", "encode", "--like", "pahole-1.24", debuginfo, "-o", enc); err != nil {
		t.Fatal(err)
	}
	same(t, enc, "pahole/dwarf/exec-x86_64.btf.gz")

	core := testfixtures.ReadPath(t, testfixtures.Path(t, "kimage/rpm/kernel-core-6.1.0-demo.gz.rpm"))
	cut := filepath.Join(dir, "cut.rpm")
	if err := os.WriteFile(cut, core[:len(core)-200], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"btf", "dump", cut}, cut + ": "},
		{[]string{"btf", "modules", "--package", cut}, cut + ": "},
		{[]string{"btf", "encode", testfixtures.Path(t, "kimage/rpm/kernel-core-6.1.0-demo.xz.rpm"), "-o", enc}, "installs no vmlinux with debug information"},
	} {
		_, err := kmeta(t, nil, c.args...)
		if exitStatus(t.Context(), err) != exitFailure || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want one line with %q", c.args, err, c.want)
		}
	}
}

// TestEncodeDebugPackageStdin: btf encode - reads a kernel-debuginfo RPM
// and a Debian -dbg package from standard input as it reads them from a
// file: pahole's BTF of the vmlinux each installs. A package without one,
// and input that is neither ELF nor a package, fail with one line.
func TestEncodeDebugPackageStdin(t *testing.T) {
	t.Parallel()
	vmlinux := testfixtures.Read(t, "dwarf/exec-x86_64.o.gz")
	const name = "usr/lib/debug/boot/vmlinux-6.1.0-demo"
	pkgs := map[string][]byte{
		"rpm": testfixtures.ReadPath(t, testfixtures.Path(t, "kimage/rpm/kernel-debuginfo-6.1.0-demo.rpm")),
		"deb": testfixtures.DebPackage(t, map[string][]byte{name: vmlinux}, []string{name}),
	}
	dir := t.TempDir()
	for kind, pkg := range pkgs {
		t.Run(kind, func(t *testing.T) {
			file := filepath.Join(dir, "pkg."+kind)
			if err := os.WriteFile(file, pkg, 0o644); err != nil {
				t.Fatal(err)
			}
			for in, stdin := range map[string][]byte{file: nil, "-": pkg} {
				out := filepath.Join(dir, kind+strings.ReplaceAll(in, "/", "_")+".btf")
				if _, err := kmeta(t, stdin, "btf", "encode", "--like", "pahole-1.24", in, "-o", out); err != nil {
					t.Fatalf("%s: %v", in, err)
				}
				same(t, out, "pahole/dwarf/exec-x86_64.btf.gz")
			}
		})
	}
	core := testfixtures.ReadPath(t, testfixtures.Path(t, "kimage/rpm/kernel-core-6.1.0-demo.xz.rpm"))
	for _, c := range []struct {
		stdin []byte
		want  string
	}{
		{core, "standard input: the package installs no vmlinux with debug information"},
		{[]byte("hello, world\n"), "standard input: not a vmlinux or module or a kernel's debug package"},
		{pkgs["rpm"][:len(pkgs["rpm"])-300], "standard input: "},
	} {
		_, err := kmeta(t, c.stdin, "btf", "encode", "-", "-o", filepath.Join(dir, "bad.btf"))
		if exitStatus(t.Context(), err) != exitFailure || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q...: %v, want one line with %q", c.stdin[:4], err, c.want)
		}
	}
}
