#!/bin/sh
# Remakes the goldens of pahole 1.30 writing .BTF into an ELF file, from
# the objects of ../../dwarf: NAME.add.o is NAME.o after
#   LLVM_OBJCOPY=objcopy pahole -J --btf_features=default NAME.add.o
# (no .BTF yet: pahole runs objcopy --add-section), and NAME.inplace.o is
# NAME.add.o after
#   pahole -J --btf_gen_floats NAME.inplace.o
# (a .BTF already: pahole rewrites it in place through libelf).
# Usage: make.sh PAHOLE (pahole 1.30: fetch-modern.sh's bin/pahole).
set -eu
P=${1:?usage: make.sh PAHOLE}
cd "$(dirname "$0")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for n in tags-x86_64 tags-arm64be multi-x86_64-zstd percpu-x86_64 multi-arm64; do
	zcat "../../dwarf/$n.o.gz" >"$tmp/$n.add.o"
	LLVM_OBJCOPY=objcopy "$P" -J --btf_features=default "$tmp/$n.add.o"
	cp "$tmp/$n.add.o" "$tmp/$n.inplace.o"
	"$P" -J --btf_gen_floats "$tmp/$n.inplace.o"
	for k in add inplace; do gzip -9n <"$tmp/$n.$k.o" >"$n.$k.o.gz"; done
done
