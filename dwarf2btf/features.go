package dwarf2btf

import (
	"fmt"
	"strings"
)

// Compat names the tool, and version, whose output Encode reproduces.
//
// Its values are CompatKernel (the zero value), CompatPahole124,
// CompatPahole130 and CompatLinux7.
type Compat int

const (
	// CompatKernel encodes as the input kernel's own build ran pahole: the
	// kernel release is read from the input (KernelRelease) and chooses
	// one of the others (see CompatFor). An input whose release cannot be
	// found is encoded as CompatPahole130, today's pahole.
	CompatKernel Compat = iota
	// CompatPahole124 is pahole 1.24 as Linux 6.1's scripts/pahole-flags.sh
	// runs it (-J --btf_gen_floats -j --lang_exclude=rust), with libbpf
	// 1.1's deduplication: Debian 12's kernels.
	CompatPahole124
	// CompatPahole130 is pahole 1.30 with the feature set Options.Features
	// (DefaultFeatures when zero) and --lang_exclude=rust, deduplicating
	// with libbpf 1.5 (which on these inputs deduplicates as 1.1): what
	// Linux 6.12's scripts/Makefile.btf runs (Debian 13's kernels).
	CompatPahole130
	// CompatLinux7 is CompatPahole130 followed by what Linux 7.x's
	// scripts/gen-btf.sh runs next, resolve_btfids --btf (btf/btfids):
	// kfunc tags and prototypes, a second deduplication with today's
	// libbpf, types sorted by name. With Options.NoDedup that step is left
	// out too: pahole's types.
	CompatLinux7
)

// String returns the name ParseCompat and the CLI's --like take.
func (c Compat) String() string {
	switch c {
	case CompatKernel:
		return "kernel"
	case CompatPahole124:
		return "pahole-1.24"
	case CompatPahole130:
		return "pahole-1.30"
	case CompatLinux7:
		return "linux-7"
	}
	return fmt.Sprintf("Compat(%d)", int(c))
}

// ParseCompat parses a Compat name: "kernel", "pahole-1.24", "pahole-1.30"
// or "linux-7".
func ParseCompat(s string) (Compat, error) {
	for _, c := range []Compat{CompatKernel, CompatPahole124, CompatPahole130, CompatLinux7} {
		if s == c.String() {
			return c, nil
		}
	}
	return 0, fmt.Errorf("dwarf2btf: unknown encoder %q (want kernel, pahole-1.24, pahole-1.30 or linux-7)", s)
}

// CompatFor is what CompatKernel chooses for a kernel release: the
// toolchain Debian built that kernel with, since the BTF a kernel's build
// makes depends on the pahole and libbpf of the machine that built it, not
// on the kernel. A release before Linux 6.12 gives CompatPahole124 because
// Debian 12 (whose kernel is 6.1) ships pahole 1.24, not because every
// such kernel was built with it: a kernel built elsewhere, say with pahole
// 1.30, is encoded as its build did by setting Options.Compat to
// CompatPahole130 (the CLI's --like pahole-1.30). Releases 6.12 to 6.x give
// CompatPahole130 (Debian 13's 6.12 and its pahole 1.30), and 7.0 on
// CompatLinux7 (pahole 1.30 followed by resolve_btfids --btf, as Debian 13
// backports' 7.3 is built). Releases it cannot parse give CompatPahole130.
func CompatFor(release string) Compat {
	major, minor, ok := parseRelease(release)
	switch {
	case !ok:
		return CompatPahole130
	case major < 6 || major == 6 && minor < 12:
		return CompatPahole124
	case major >= 7:
		return CompatLinux7
	}
	return CompatPahole130
}

// parseRelease reads "MAJOR.MINOR" at the start of a kernel release.
func parseRelease(s string) (major, minor int, ok bool) {
	num := func() (int, bool) {
		n, i := 0, 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && i < 6 {
			n = n*10 + int(s[i]-'0')
			i++
		}
		s = s[i:]
		return n, i > 0
	}
	if major, ok = num(); !ok || len(s) == 0 || s[0] != '.' {
		return 0, 0, false
	}
	s = s[1:]
	if minor, ok = num(); !ok {
		return 0, 0, false
	}
	return major, minor, true
}

// Features is a set of pahole's --btf_features, which CompatPahole130
// encodes with.
//
// Its flags are FeatureEncodeForce (encode_force), FeatureVar (var),
// FeatureFloat (float), FeatureDeclTag (decl_tag), FeatureTypeTag
// (type_tag), FeatureEnum64 (enum64), FeatureOptimizedFunc
// (optimized_func), FeatureConsistentFunc (consistent_func),
// FeatureDeclTagKfuncs (decl_tag_kfuncs), FeatureReproducibleBuild
// (reproducible_build) and FeatureDistilledBase (distilled_base).
type Features uint32

// The features pahole 1.30 knows, by their --btf_features names.
const (
	FeatureEncodeForce       Features = 1 << iota // encode_force: leave out what has an invalid name instead of failing
	FeatureVar                                    // var: per-CPU variables and their DATASEC
	FeatureFloat                                  // float: FLOAT for floating-point types, not INT
	FeatureDeclTag                                // decl_tag: DECL_TAG from btf_decl_tag annotations
	FeatureTypeTag                                // type_tag: TYPE_TAG from btf_type_tag annotations
	FeatureEnum64                                 // enum64: ENUM64 for enums wider than 32 bits
	FeatureOptimizedFunc                          // optimized_func: functions the compiler renamed (foo.isra.0) as foo
	FeatureConsistentFunc                         // consistent_func: leave out functions whose prototypes disagree between units or whose parameters are in unexpected registers
	FeatureDeclTagKfuncs                          // decl_tag_kfuncs: DECL_TAG "bpf_kfunc" (and "bpf_fastcall") on the kfuncs listed in .BTF_ids
	FeatureReproducibleBuild                      // reproducible_build: output independent of -j (always so here)
	// FeatureDistilledBase is distilled_base: a module's BTF is written on
	// a distilled base (.BTF and .BTF.base), as Linux 6.12's kbuild asks
	// for external modules. It changes no type that Encode writes: its
	// callers distill Encode's output with btf/distill's Distill, as
	// pahole runs libbpf's btf__distill_base on its own (kmeta btf encode
	// does so).
	FeatureDistilledBase
)

// DefaultFeatures is pahole 1.30's --btf_features=default, the set Linux
// 6.12's scripts/Makefile.btf asks for (it also adds reproducible_build,
// which changes nothing here).
const DefaultFeatures = FeatureEncodeForce | FeatureVar | FeatureFloat | FeatureDeclTag | FeatureTypeTag |
	FeatureEnum64 | FeatureOptimizedFunc | FeatureConsistentFunc | FeatureDeclTagKfuncs

var featureNames = []struct {
	name string
	f    Features
}{
	{"encode_force", FeatureEncodeForce},
	{"var", FeatureVar},
	{"float", FeatureFloat},
	{"decl_tag", FeatureDeclTag},
	{"type_tag", FeatureTypeTag},
	{"enum64", FeatureEnum64},
	{"optimized_func", FeatureOptimizedFunc},
	{"consistent_func", FeatureConsistentFunc},
	{"decl_tag_kfuncs", FeatureDeclTagKfuncs},
	{"reproducible_build", FeatureReproducibleBuild},
	{"distilled_base", FeatureDistilledBase},
}

// ParseFeatures parses a --btf_features value as pahole 1.30 does: a
// comma-separated list of feature names, where "default" stands for
// DefaultFeatures and a leading "+" adds the list to DefaultFeatures.
// Unlike pahole without --btf_features_strict, an unknown name is an
// error, and so are the features pahole 1.30 has that this package does
// not encode (global_var, attributes).
func ParseFeatures(s string) (Features, error) {
	var f Features
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		f, s = DefaultFeatures, rest
	}
	for name := range strings.SplitSeq(s, ",") {
		if name == "" {
			continue
		}
		if name == "default" {
			f |= DefaultFeatures
			continue
		}
		found := false
		for _, n := range featureNames {
			if n.name == name {
				f |= n.f
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("dwarf2btf: BTF feature %q is not supported", name)
		}
	}
	return f, nil
}

// String lists the set's names, comma-separated, in pahole's order.
func (f Features) String() string {
	var names []string
	for _, n := range featureNames {
		if f&n.f != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ",")
}
