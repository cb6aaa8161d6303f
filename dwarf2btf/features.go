package dwarf2btf

import (
	"fmt"
	"strings"
)

// Like names the tool, and version, whose output Encode reproduces.
type Like int

const (
	// LikeKernel encodes as the input kernel's own build ran pahole: the
	// kernel release is read from the input (KernelRelease) and chooses
	// one of the others (see LikeFor). An input whose release cannot be
	// found is encoded as LikePahole130, today's pahole.
	LikeKernel Like = iota
	// LikePahole124 is pahole 1.24 as Linux 6.1's scripts/pahole-flags.sh
	// runs it (-J --btf_gen_floats -j --lang_exclude=rust), with libbpf
	// 1.1's deduplication: Debian 12's kernels.
	LikePahole124
	// LikePahole130 is pahole 1.30 with the feature set Options.Features
	// (DefaultFeatures when zero) and --lang_exclude=rust, deduplicating
	// with libbpf 1.5 (which on these inputs deduplicates as 1.1): what
	// Linux 6.12's scripts/Makefile.btf runs (Debian 13's kernels).
	LikePahole130
	// LikeLinux7 is LikePahole130 followed by what Linux 7.x's
	// scripts/gen-btf.sh runs next, resolve_btfids --btf (btf/btfids):
	// kfunc tags and prototypes, a second deduplication with today's
	// libbpf, types sorted by name. Only Encode and EncodeFile apply that
	// step; Encode gives pahole's types.
	LikeLinux7
)

// String returns the name the CLI's --like takes.
func (l Like) String() string {
	switch l {
	case LikeKernel:
		return "kernel"
	case LikePahole124:
		return "pahole-1.24"
	case LikePahole130:
		return "pahole-1.30"
	case LikeLinux7:
		return "linux-7"
	}
	return fmt.Sprintf("Like(%d)", int(l))
}

// ParseLike parses a Like name: "kernel", "pahole-1.24", "pahole-1.30" or
// "linux-7".
func ParseLike(s string) (Like, error) {
	for _, l := range []Like{LikeKernel, LikePahole124, LikePahole130, LikeLinux7} {
		if s == l.String() {
			return l, nil
		}
	}
	return 0, fmt.Errorf("dwarf2btf: unknown encoder %q (want kernel, pahole-1.24, pahole-1.30 or linux-7)", s)
}

// LikeFor returns what the build of a kernel of the given release ran:
// pahole 1.24's choices before Linux 6.12 (Debian 12's 6.1 was built so),
// pahole 1.30's from 6.12 on (Debian 13's 6.12), and from 7.0 on pahole
// 1.30 followed by resolve_btfids --btf (Debian 13 backports' 7.3).
// Releases it cannot parse give LikePahole130.
func LikeFor(release string) Like {
	major, minor, ok := parseRelease(release)
	switch {
	case !ok:
		return LikePahole130
	case major < 6 || major == 6 && minor < 12:
		return LikePahole124
	case major >= 7:
		return LikeLinux7
	}
	return LikePahole130
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

// Features is a set of pahole's --btf_features, which LikePahole130
// encodes with.
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
