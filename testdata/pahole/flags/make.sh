#!/bin/sh
# Remakes the goldens of pahole 1.30 for the options of the kernel's
# build that change what it encodes, from the objects of ../../dwarf:
#   NAME.noenum64.btf  pahole -J --skip_encoding_btf_enum64 (the stable
#                      releases of Linux 5.x, with pahole 1.24 or later)
#   multi-x86_64.lineN.btf  pahole -J with the Nth flag line below
#   rust-x86_64.o      percpu.c and tags.c in one object, tags.c's unit
#                      marked DW_LANG_Rust (its DW_AT_language patched in
#                      clang 14's assembly), as no Rust toolchain is needed
#   rust-x86_64.keep.btf     pahole -J --btf_features=default
#   rust-x86_64.exclude.btf  the same with --lang_exclude=rust
# Usage: make.sh PAHOLE (pahole 1.30: fetch-modern.sh's bin/pahole).
# Needs Debian bookworm's clang 14 and binutils (ld).
set -eu
P=${1:?usage: make.sh PAHOLE}
cd "$(dirname "$0")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for n in kinds-x86_64 tags-arm64be; do
	zcat "../../dwarf/$n.o.gz" >"$tmp/$n.o"
	"$P" -J --skip_encoding_btf_enum64 --btf_encode_detached="$tmp/$n.btf" "$tmp/$n.o"
	gzip -9n <"$tmp/$n.btf" >"$n.noenum64.btf.gz"
done
# The flag lines of pahole-flags.sh (Linux 5.15 to 6.6, stable backports
# included) for a pahole that says v1.30, on several units at once.
n=0
for fl in "--btf_gen_floats --skip_encoding_btf_vars" \
	"--btf_gen_floats -j --lang_exclude=rust --skip_encoding_btf_inconsistent_proto --btf_gen_optimized" \
	"--btf_gen_floats -j1 --skip_encoding_btf_enum64 --skip_encoding_btf_inconsistent_proto --btf_gen_optimized"; do
	n=$((n + 1))
	zcat ../../dwarf/multi-x86_64.o.gz >"$tmp/multi.o"
	rm -f "$tmp/multi.btf" # pahole 1.30 does not truncate an existing output
	# shellcheck disable=SC2086 # the flags are words
	"$P" -J $fl --btf_encode_detached="$tmp/multi.btf" "$tmp/multi.o"
	gzip -9n <"$tmp/multi.btf" >"multi-x86_64.line$n.btf.gz"
done
src=$(cd ../../dwarf && pwd)
(cd "$src" && clang -fdebug-prefix-map="$src"=. -O2 --target=x86_64-linux-gnu -g -S tags.c \
	-o "$tmp/tags.s" -Wno-c2x-extensions)
# DW_LANG_C99 (12) becomes DW_LANG_Rust (0x1c).
sed 's/^\t\.short\t12\( *# DW_AT_language\)$/\t.short\t28\1/' "$tmp/tags.s" >"$tmp/rust.s"
if cmp -s "$tmp/tags.s" "$tmp/rust.s"; then echo "make.sh: DW_AT_language not found" >&2; exit 1; fi
clang --target=x86_64-linux-gnu -c "$tmp/rust.s" -o "$tmp/rust.o"
zcat ../../dwarf/percpu-x86_64.o.gz >"$tmp/percpu.o"
(cd "$tmp" && ld -r -o rust-x86_64.o percpu.o rust.o)
gzip -9n <"$tmp/rust-x86_64.o" >rust-x86_64.o.gz
"$P" -J --btf_features=default --btf_encode_detached="$tmp/keep.btf" "$tmp/rust-x86_64.o"
"$P" -J --btf_features=default --lang_exclude=rust --btf_encode_detached="$tmp/exclude.btf" "$tmp/rust-x86_64.o"
gzip -9n <"$tmp/keep.btf" >rust-x86_64.keep.btf.gz
gzip -9n <"$tmp/exclude.btf" >rust-x86_64.exclude.btf.gz
