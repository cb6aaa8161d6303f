package dwarf2btf_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// debian612 is the shipped vmlinux BTF of Debian 13's 6.12.118 cloud
// kernel, the base of the 6.12 modules under testdata/elf/debian-6.12.
const debian612 = "btf/debian-6.12-cloud.btf.zst"

// TestIdenticalToKernel612 encodes the debug builds of af_key and tun of
// Debian 13's 6.12.118 cloud kernel with 1, 2 and 8 workers, as their own
// build did (pahole 1.30, found from the modules' vermagic), and compares
// the result with the .BTF the kernel package ships, byte for byte.
func TestIdenticalToKernel612(t *testing.T) {
	base, err := btf.Parse(testfixtures.Read(t, debian612), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dbase, err := dwarf2btf.NewBase(base, dwarf2btf.Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"af_key", "tun"} {
		t.Run(m, func(t *testing.T) {
			ko := testfixtures.Read(t, "elf/debian-6.12/"+m+".ko.zst")
			want := testfixtures.Read(t, "pahole/encode/debian-6.12/"+m+".btf.gz")
			samePahole(t, ko, dwarf2btf.Options{Base: base, DedupBase: dbase}, want)
			samePahole(t, ko, dwarf2btf.Options{Base: base, DedupBase: dbase, Compat: dwarf2btf.CompatPahole130,
				Features: dwarf2btf.DefaultFeatures | dwarf2btf.FeatureReproducibleBuild}, want)
		})
	}
}

// TestIdenticalOtherArches encodes cordic.ko of Debian 13's arm64 cloud
// kernel (6.12.117, relocations of AArch64) and of its s390x kernel
// (6.12.107, big-endian, relocations of s390x), each on its kernel's
// vmlinux BTF, and compares the result with the .BTF of the module their
// image packages ship, byte for byte. The build found pahole 1.30 from
// the modules' vermagic, as with amd64.
func TestIdenticalOtherArches(t *testing.T) {
	for _, arch := range []string{"arm64", "s390x"} {
		t.Run(arch, func(t *testing.T) {
			base, err := btf.Parse(testfixtures.Read(t, "btf/debian-6.12-"+arch+".btf.zst"), btf.Options{})
			if err != nil {
				t.Fatal(err)
			}
			dbase, err := dwarf2btf.NewBase(base, dwarf2btf.Options{Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			ko := testfixtures.Read(t, "elf/debian-6.12-"+arch+"/cordic.ko.zst")
			want := testfixtures.Read(t, "pahole/encode/debian-6.12-"+arch+"/cordic.btf.gz")
			// pahole writes BTF in its input's byte order.
			order, err := dwarf2btf.ByteOrder(ko)
			if err != nil {
				t.Fatal(err)
			}
			samePaholeOut(t, ko, dwarf2btf.Options{Base: base, DedupBase: dbase}, builder.Options{ByteOrder: order}, want)
		})
	}
}

// TestIdenticalMips64el encodes cordic.ko of Debian 12's mips64el kernel
// (6.1.0-50-mips64r2el: MIPS64 relocation records, whose r_info is not
// one Elf64_Xword) on its own, as its release asks (pahole 1.24's mode)
// and as pahole 1.30 does, and compares with what pahole 1.24 and 1.30
// write from the same module with its relocations applied by GNU ld
// (testdata/README.md): Debian builds mips64el without BTF, and pahole
// cannot read the module itself.
func TestIdenticalMips64el(t *testing.T) {
	ko := testfixtures.Read(t, "elf/debian-6.1-mips64el/cordic.ko.zst")
	for _, c := range []struct {
		golden string
		opts   dwarf2btf.Options
	}{
		{"cordic.pahole-1.24.btf.gz", dwarf2btf.Options{}},
		{"cordic.btf.gz", dwarf2btf.Options{Compat: dwarf2btf.CompatPahole130,
			Features: dwarf2btf.DefaultFeatures | dwarf2btf.FeatureReproducibleBuild}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			samePahole(t, ko, c.opts, testfixtures.Read(t, "pahole/encode/debian-6.1-mips64el/"+c.golden))
		})
	}
}

// TestKernelRelease reads the release of a 6.12 and a 6.1 module, and
// finds none in a plain object.
func TestKernelRelease(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"elf/debian-6.12/tun.ko.zst", "6.12.118+deb13-cloud-amd64"},
		{"elf/af_key.ko.gz", "6.1.0-47-cloud-amd64"},
		{"dwarf/multi-x86_64.o.gz", ""},
	} {
		got, err := dwarf2btf.KernelRelease(testfixtures.Read(t, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: release %q, want %q", c.file, got, c.want)
		}
	}
}

func TestLikeFor(t *testing.T) {
	for rel, want := range map[string]dwarf2btf.Compat{
		"6.1.0-47-cloud-amd64":       dwarf2btf.CompatPahole124,
		"5.10.0":                     dwarf2btf.CompatPahole124,
		"6.11.9":                     dwarf2btf.CompatPahole124,
		"6.12.118+deb13-cloud-amd64": dwarf2btf.CompatPahole130,
		"7.3.4+deb13-cloud-amd64":    dwarf2btf.CompatLinux7,
		"6.19.1":                     dwarf2btf.CompatPahole130,
		"":                           dwarf2btf.CompatPahole130,
		"x.y":                        dwarf2btf.CompatPahole130,
	} {
		if got := dwarf2btf.CompatFor(rel); got != want {
			t.Errorf("CompatFor(%q) = %v, want %v", rel, got, want)
		}
	}
}

func TestParseFeatures(t *testing.T) {
	for s, want := range map[string]dwarf2btf.Features{
		"default": dwarf2btf.DefaultFeatures,
		"encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs": dwarf2btf.DefaultFeatures,
		"+reproducible_build":        dwarf2btf.DefaultFeatures | dwarf2btf.FeatureReproducibleBuild,
		"var,type_tag,enum64":        dwarf2btf.FeatureVar | dwarf2btf.FeatureTypeTag | dwarf2btf.FeatureEnum64,
		"default,reproducible_build": dwarf2btf.DefaultFeatures | dwarf2btf.FeatureReproducibleBuild,
		"+distilled_base":            dwarf2btf.DefaultFeatures | dwarf2btf.FeatureDistilledBase,
	} {
		got, err := dwarf2btf.ParseFeatures(s)
		if err != nil || got != want {
			t.Errorf("ParseFeatures(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, bad := range []string{"bogus", "var,global_var", "var,attributes"} {
		if _, err := dwarf2btf.ParseFeatures(bad); err == nil {
			t.Errorf("ParseFeatures(%q) took it", bad)
		}
	}
}
