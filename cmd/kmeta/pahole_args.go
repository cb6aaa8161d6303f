package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kmeta-dev/kmeta/dwarf2btf"
)

// paholeVersion is the pahole whose behaviour kmeta pahole reproduces:
// what it prints for --version, which the kernel's
// scripts/pahole-version.sh turns into CONFIG_PAHOLE_VERSION=130.
const paholeVersion = "v1.30"

// paholeArgs is a pahole command line as kmeta pahole takes it.
type paholeArgs struct {
	version  bool
	encode   bool   // -J, or --btf_encode_detached
	jobs     int    // -j N; 0 is every CPU
	base     string // --btf_base
	detached string // --btf_encode_detached
	keepRust bool   // no --lang_exclude=rust
	conf     paholeConf
	file     string
}

// paholeConf is pahole 1.30's encoding switches (its conf_load), each
// true when the feature is on.
type paholeConf struct {
	features  dwarf2btf.Features
	distilled bool // distilled_base
	reset     bool // a --btf_features has set the features
}

// newPaholeConf is pahole's state before any option: without
// --btf_features it encodes decl and type tags, enum64 and per-CPU
// variables, and floats as INT.
func newPaholeConf() paholeConf {
	return paholeConf{features: dwarf2btf.FeatureVar | dwarf2btf.FeatureDeclTag |
		dwarf2btf.FeatureTypeTag | dwarf2btf.FeatureEnum64}
}

// paholeFlags are the options without an argument kmeta pahole takes,
// and what each does to the features. pahole's legacy switches set one
// feature, wherever they are: a --btf_features after them, the first one,
// starts again from no feature.
var paholeFlags = map[string]func(a *paholeArgs){
	"-J":           func(a *paholeArgs) { a.encode = true },
	"--btf_encode": func(a *paholeArgs) { a.encode = true },
	"--version":    func(a *paholeArgs) { a.version = true },
	"--btf_gen_floats": func(a *paholeArgs) {
		a.conf.features |= dwarf2btf.FeatureFloat
	},
	"--skip_encoding_btf_vars": func(a *paholeArgs) {
		a.conf.features &^= dwarf2btf.FeatureVar
	},
	"--skip_encoding_btf_inconsistent_proto": func(a *paholeArgs) {
		a.conf.features |= dwarf2btf.FeatureConsistentFunc
	},
	"--btf_gen_optimized": func(a *paholeArgs) {
		a.conf.features |= dwarf2btf.FeatureOptimizedFunc
	},
	// The stable releases of 5.x kernels (5.15's, 5.19's) pass it to
	// pahole 1.24 and later: those kernels know no ENUM64.
	"--skip_encoding_btf_enum64": func(a *paholeArgs) {
		a.conf.features &^= dwarf2btf.FeatureEnum64
	},
}

// paholeValued are the options with a required argument, given as
// "--name=VALUE" or "--name VALUE".
var paholeValued = map[string]func(a *paholeArgs, v string) error{
	"--btf_base": func(a *paholeArgs, v string) error { a.base = v; return nil },
	"--btf_encode_detached": func(a *paholeArgs, v string) error {
		a.detached, a.encode = v, true
		return nil
	},
	"--btf_features": func(a *paholeArgs, v string) error { return a.conf.parseFeatures(v) },
	"--lang_exclude": func(a *paholeArgs, v string) error {
		for l := range strings.SplitSeq(v, ",") {
			if l != "rust" {
				return fmt.Errorf("--lang_exclude=%s: only \"rust\" is supported", v)
			}
		}
		a.keepRust = false
		return nil
	},
}

// parsePaholeArgs parses pahole's command line as its argp does for the
// options the kernel's build passes (Linux 5.15 to 7.x): any other option
// is an error that names it, never ignored.
func parsePaholeArgs(args []string) (*paholeArgs, error) {
	a := &paholeArgs{jobs: 1, keepRust: true, conf: newPaholeConf()}
	var files []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			files = append(files, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			files = append(files, arg)
			continue
		}
		if set, ok := paholeFlags[arg]; ok {
			set(a)
			continue
		}
		if ok, err := a.parseJobs(arg); ok || err != nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		name, value, hasValue := strings.Cut(arg, "=")
		set, ok := paholeValued[name]
		if !ok {
			return nil, unknownPaholeOption(name)
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%s needs an argument", name)
			}
			i++
			value = args[i]
		}
		if err := set(a, value); err != nil {
			return nil, err
		}
	}
	return a, a.check(files)
}

// parseJobs parses -j, -jN, --jobs and --jobs=N (argp's optional argument
// is attached): it reports whether arg was one.
func (a *paholeArgs) parseJobs(arg string) (bool, error) {
	var n string
	switch {
	case arg == "-j" || arg == "--jobs":
		a.jobs = 0
		return true, nil
	case strings.HasPrefix(arg, "--jobs="):
		n = strings.TrimPrefix(arg, "--jobs=")
	case strings.HasPrefix(arg, "-j"):
		n = strings.TrimPrefix(arg, "-j")
	default:
		return false, nil
	}
	j, err := strconv.Atoi(n)
	if err != nil || j < 0 {
		return true, fmt.Errorf("%s: want a number of jobs", arg)
	}
	a.jobs = j // 0: every CPU
	return true, nil
}

// unknownPaholeOption is the error for a pahole option kmeta pahole does
// not take.
func unknownPaholeOption(name string) error {
	switch name {
	case "-C", "--class_name", "--reorganize", "-R", "-F", "--format_path", "-E", "--expand_types":
		return fmt.Errorf("%s: kmeta pahole only encodes BTF (-J); struct layouts are \"kmeta btf layout\"", name)
	}
	// One line a terminal shows whole; the list of options (those of the
	// kernel's build) is in the help.
	return fmt.Errorf("%s: not a pahole option kmeta takes (\"kmeta pahole --help\" lists them)", name)
}

// check checks the command line once parsed.
func (a *paholeArgs) check(files []string) error {
	if a.version {
		return nil
	}
	if !a.encode {
		return errors.New("-J is missing: kmeta pahole only encodes BTF; struct layouts are \"kmeta btf layout\"")
	}
	if len(files) != 1 {
		return fmt.Errorf("want one FILE to encode, got %d", len(files))
	}
	a.file = files[0]
	if a.conf.features&dwarf2btf.FeatureTypeTag == 0 {
		return fmt.Errorf("BTF features %q: encoding without type_tag is not supported", a.conf.features)
	}
	if a.conf.distilled && a.base == "" {
		return errors.New("--btf_features=distilled_base needs --btf_base")
	}
	return nil
}

// parseFeatures applies a --btf_features list as pahole 1.30 does: the
// first one turns every feature off, "default" (or a leading "+") turns
// the default ones on, and a name pahole 1.30 does not know is ignored.
// The features it knows and kmeta does not encode are errors.
func (c *paholeConf) parseFeatures(list string) error {
	if !c.reset {
		c.features, c.distilled, c.reset = 0, false, true
	}
	if rest, ok := strings.CutPrefix(list, "+"); ok {
		c.features |= dwarf2btf.DefaultFeatures
		list = rest
	}
	for name := range strings.SplitSeq(list, ",") {
		switch name {
		case "":
			continue
		case "distilled_base":
			c.distilled = true
			continue
		case "attributes":
			// Linux 6.15 to 6.x pass it to pahole 1.30, which takes it
			// only when built with libbpf 1.6 or later; Debian 13's,
			// with libbpf 1.5, ignores it, as kmeta does.
			continue
		case "global_var":
			return fmt.Errorf("--btf_features: feature %q is not supported", name)
		}
		f, err := dwarf2btf.ParseFeatures(name)
		if err != nil {
			continue // unknown to pahole 1.30, which ignores it
		}
		c.features |= f
	}
	return nil
}
