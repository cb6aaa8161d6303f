package main

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// The flags of Linux 6.12's scripts/Makefile.btf with pahole 1.30.
var flags612 = strings.Fields("-J -j --btf_features=encode_force,var,float,enum64,decl_tag,type_tag," +
	"optimized_func,consistent_func,decl_tag_kfuncs -j --btf_features=+reproducible_build --lang_exclude=rust")

func TestPaholeArgs(t *testing.T) {
	const (
		legacy = dwarf2btf.FeatureVar | dwarf2btf.FeatureDeclTag | dwarf2btf.FeatureTypeTag | dwarf2btf.FeatureEnum64
	)
	for _, tc := range []struct {
		args     []string
		features dwarf2btf.Features
		jobs     int
		rust     bool
		base     string
		detached string
		err      string
	}{
		{args: append(flags612, "F"), features: dwarf2btf.DefaultFeatures | dwarf2btf.FeatureReproducibleBuild},
		// Linux 6.1's pahole-flags.sh with pahole 1.30.
		{args: strings.Fields("-J --btf_gen_floats -j --lang_exclude=rust --skip_encoding_btf_inconsistent_proto --btf_gen_optimized F"),
			features: legacy | dwarf2btf.FeatureFloat | dwarf2btf.FeatureConsistentFunc | dwarf2btf.FeatureOptimizedFunc},
		{args: strings.Fields("-J --skip_encoding_btf_vars -j4 F"), features: legacy &^ dwarf2btf.FeatureVar, jobs: 4, rust: true},
		{args: strings.Fields("-J F"), features: legacy, jobs: 1, rust: true},
		// A first --btf_features starts from nothing: the switch before it is lost.
		{args: strings.Fields("-J --btf_gen_floats --btf_features=type_tag,enum64 F"),
			features: dwarf2btf.FeatureTypeTag | dwarf2btf.FeatureEnum64, jobs: 1, rust: true},
		{args: strings.Fields("-J --btf_features=type_tag,enum64 --btf_gen_floats F"),
			features: dwarf2btf.FeatureTypeTag | dwarf2btf.FeatureEnum64 | dwarf2btf.FeatureFloat, jobs: 1, rust: true},
		// 7.x's layout is unknown to pahole 1.30, which ignores it.
		{args: strings.Fields("-J --btf_features=default,layout --jobs=3 --btf_base V --btf_encode_detached=O F"),
			features: dwarf2btf.DefaultFeatures, jobs: 3, rust: true, base: "V", detached: "O"},
		{args: strings.Fields("--btf_encode_detached O --btf_base=V F"), features: legacy, jobs: 1, rust: true, base: "V", detached: "O"},
		{args: strings.Fields("-J -C task_struct F"), err: "-C: "},
		{args: strings.Fields("-J --reorganize F"), err: "--reorganize: "},
		// Linux 5.15's stable pahole-flags.sh with pahole 1.24 or later.
		{args: strings.Fields("-J --btf_gen_floats -j --skip_encoding_btf_enum64 F"),
			features: legacy&^dwarf2btf.FeatureEnum64 | dwarf2btf.FeatureFloat, rust: true},
		// 6.15's Makefile.btf: pahole 1.30 with libbpf 1.5 ignores attributes.
		{args: strings.Fields("-J -j2 --btf_features=type_tag --btf_features=attributes F"),
			features: dwarf2btf.FeatureTypeTag, jobs: 2, rust: true},
		{args: strings.Fields("-J --skip_encoding_btf_type_tag F"), err: "--skip_encoding_btf_type_tag: not a pahole option"},
		{args: strings.Fields("-J --btf_features=float F"), err: "without type_tag"},
		{args: strings.Fields("-J --btf_features=+global_var F"), err: `"global_var" is not supported`},
		{args: strings.Fields("-J --btf_features=+distilled_base F"), err: "needs --btf_base"},
		{args: strings.Fields("-J --lang_exclude=c F"), err: "only \"rust\""},
		{args: strings.Fields("-J -jx F"), err: "-jx: "},
		{args: strings.Fields("-J --btf_base"), err: "--btf_base needs an argument"},
		{args: strings.Fields("-J A B"), err: "one FILE"},
		{args: strings.Fields("F"), err: "-J is missing"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			a, err := parsePaholeArgs(tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.conf.features != tc.features || a.jobs != tc.jobs || a.keepRust != tc.rust ||
				a.base != tc.base || a.detached != tc.detached || a.file != "F" {
				t.Errorf("features %v jobs %d rust %v base %q detached %q file %q",
					a.conf.features, a.jobs, a.keepRust, a.base, a.detached, a.file)
			}
		})
	}
}

func TestPaholeVersion(t *testing.T) {
	for _, argv := range [][]string{{"kmeta", "pahole", "--version"}, {"/usr/local/bin/pahole", "--version"}} {
		out, err := kmeta(t, nil, argsAs(argv)...)
		if err != nil || out != "v1.30\n" {
			t.Errorf("%q: %q, %v; want v1.30", argv, out, err)
		}
	}
}

// TestPaholeUnknownOption: an option kmeta does not take is one line
// naming it, status 2, and the file is untouched.
func TestPaholeUnknownOption(t *testing.T) {
	path := testfixtures.File(t, "dwarf/tags-x86_64.o.gz")
	before, _ := os.ReadFile(path)
	_, err := kmeta(t, nil, "pahole", "-J", "--btf_encode_force", path)
	if exitStatus(context.Background(), err) != exitFailure || err == nil ||
		!strings.HasPrefix(errorLine(context.Background(), err), "kmeta: pahole: --btf_encode_force: ") {
		t.Fatalf("error %v, want status 2 naming --btf_encode_force", err)
	}
	checkErrorLine(t, err)
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the file changed")
	}
}

// sectionData returns the named section of the ELF file data.
func sectionData(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(name)
	if s == nil {
		t.Fatalf("no %s", name)
	}
	b, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPaholeELF: kmeta pahole leaves the files pahole 1.30 leaves
// (testdata/pahole/elf/make.sh), through objcopy and in place, and
// --btf_encode_detached writes the same BTF.
func TestPaholeELF(t *testing.T) {
	if _, err := exec.LookPath("objcopy"); err != nil {
		t.Skip("objcopy (binutils) not installed")
	}
	t.Setenv("LLVM_OBJCOPY", "objcopy")
	for _, name := range []string{"tags-x86_64", "tags-arm64be", "multi-x86_64-zstd", "percpu-x86_64"} {
		t.Run(name, func(t *testing.T) {
			for _, step := range []struct {
				in, want string
				args     []string
			}{
				{"dwarf/" + name + ".o.gz", "pahole/elf/" + name + ".add.o.gz", []string{"-J", "--btf_features=default"}},
				{"pahole/elf/" + name + ".add.o.gz", "pahole/elf/" + name + ".inplace.o.gz", []string{"-J", "-j2", "--btf_gen_floats"}},
			} {
				path := testfixtures.File(t, step.in)
				want := testfixtures.Read(t, step.want)
				if _, err := kmeta(t, nil, append(append([]string{"pahole"}, step.args...), path)...); err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes, pahole's %d: they differ", step.args, len(got), len(want))
				}
				out := filepath.Join(t.TempDir(), "out.btf")
				args := append([]string{"pahole"}, step.args[1:]...)
				if _, err := kmeta(t, nil, append(args, "--btf_encode_detached="+out, testfixtures.File(t, step.in))...); err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(out); !bytes.Equal(got, sectionData(t, want, ".BTF")) {
					t.Errorf("%s --btf_encode_detached: not pahole's .BTF", step.args)
				}
			}
		})
	}
}

// TestPaholeDistilledBase: distilled_base, for external modules, turns
// pahole 1.30's split BTF of af_key (encoded without the feature) into the
// .BTF and .BTF.base sections that pahole 1.30 writes with it.
func TestPaholeDistilledBase(t *testing.T) {
	base, err := btf.Parse(testfixtures.Read(t, "btf/debian-6.12-cloud.btf.zst"), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	secs, err := distilledSections(testfixtures.Read(t, "pahole/encode/debian-6.12/af_key.btf.gz"), base)
	if err != nil {
		t.Fatal(err)
	}
	want, err := elf.NewFile(bytes.NewReader(testfixtures.Read(t, "elf/distilled/debian-6.12-af_key.ko.gz")))
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 2 {
		t.Fatalf("%d sections, want .BTF and .BTF.base", len(secs))
	}
	for _, sec := range secs {
		w, err := want.Section(sec.Name).Data()
		if err != nil {
			t.Fatalf("%s: %v", sec.Name, err)
		}
		if !bytes.Equal(sec.Data, w) {
			t.Errorf("%s: %d bytes, not pahole 1.30's %d", sec.Name, len(sec.Data), len(w))
		}
	}
	// Without a base the feature is a usage error, before FILE is read.
	path := testfixtures.File(t, "dwarf/tags-x86_64.o.gz")
	if _, err := kmeta(t, nil, "pahole", "-J", "--btf_features=+distilled_base", path); err == nil || !strings.Contains(err.Error(), "needs --btf_base") {
		t.Errorf("error %v, want distilled_base's need of --btf_base", err)
	}
}

// TestPaholeFlags: the options of the kernel's build that change what is
// encoded give pahole 1.30's BTF (testdata/pahole/flags/make.sh): enums
// without ENUM64 (Linux 5.x's stable releases), pahole-flags.sh's lines,
// and a unit marked DW_LANG_Rust kept or left out by --lang_exclude=rust.
func TestPaholeFlags(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		args     []string
	}{
		{"dwarf/kinds-x86_64.o.gz", "kinds-x86_64.noenum64.btf.gz", []string{"--skip_encoding_btf_enum64"}},
		{"dwarf/tags-arm64be.o.gz", "tags-arm64be.noenum64.btf.gz", []string{"--skip_encoding_btf_enum64"}},
		// pahole-flags.sh's lines (Linux 5.15 to 6.6) for pahole 1.30.
		{"dwarf/multi-x86_64.o.gz", "multi-x86_64.line1.btf.gz", strings.Fields("--btf_gen_floats --skip_encoding_btf_vars")},
		{"dwarf/multi-x86_64.o.gz", "multi-x86_64.line2.btf.gz", strings.Fields("--btf_gen_floats -j --lang_exclude=rust " +
			"--skip_encoding_btf_inconsistent_proto --btf_gen_optimized")},
		{"dwarf/multi-x86_64.o.gz", "multi-x86_64.line3.btf.gz", strings.Fields("--btf_gen_floats -j1 --skip_encoding_btf_enum64 " +
			"--skip_encoding_btf_inconsistent_proto --btf_gen_optimized")},
		{"pahole/flags/rust-x86_64.o.gz", "rust-x86_64.keep.btf.gz", []string{"--btf_features=default"}},
		{"pahole/flags/rust-x86_64.o.gz", "rust-x86_64.exclude.btf.gz", []string{"--btf_features=default", "--lang_exclude=rust"}},
	} {
		t.Run(tc.want, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.btf")
			args := append(append([]string{"pahole", "-J"}, tc.args...), "--btf_encode_detached="+out, testfixtures.File(t, tc.in))
			if _, err := kmeta(t, nil, args...); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(out)
			if want := testfixtures.Read(t, "pahole/flags/"+tc.want); !bytes.Equal(got, want) {
				t.Errorf("%s: %d bytes, not pahole 1.30's %d", tc.args, len(got), len(want))
			}
		})
	}
}

// TestPaholeJobs: -j alone runs one worker on a file smaller than
// soloInput, every CPU on a larger one; -jN is N whatever the size.
func TestPaholeJobs(t *testing.T) {
	dir := t.TempDir()
	small, large := filepath.Join(dir, "small.ko"), filepath.Join(dir, "large.ko")
	if err := os.WriteFile(small, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(large)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(soloInput); err != nil { // sparse
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		jobs int
		file string
		want int
	}{
		{0, small, 1}, {0, large, 0}, {3, small, 3}, {1, large, 1}, {0, filepath.Join(dir, "missing"), 0},
	} {
		if got := paholeJobs(tc.jobs, tc.file); got != tc.want {
			t.Errorf("paholeJobs(%d, %s) = %d, want %d", tc.jobs, filepath.Base(tc.file), got, tc.want)
		}
	}
}
