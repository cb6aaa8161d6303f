#!/bin/sh
# make.sh: rebuild the clang objects of testdata/dwarf and their pahole
# goldens in testdata/pahole/dwarf, from this directory:
#   cd testdata/dwarf && sh make.sh
# Needs Debian bookworm's clang 14, binutils (ld, objcopy),
# binutils-aarch64-linux-gnu (aarch64-linux-gnu-ld) and dwarves 1.24
# (pahole), bpftool to check the tags. Objects are gzip -9n'd; the sources
# need no system headers, so clang --target=aarch64* needs no sysroot.
set -eu
src=$PWD
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc() { # OBJ FLAGS... SRC
	o=$1; shift
	clang -fdebug-prefix-map="$PWD"=. -O2 "$@" -o "$out/$o.o" -Wno-c2x-extensions
}
x86=--target=x86_64-linux-gnu
arm=--target=aarch64-linux-gnu
armbe=--target=aarch64_be-linux-gnu
for s in tags percpu kinds kinds2; do
	cc $s-x86_64 $x86 -g -c $s.c
	cc $s-x86_64-dwarf4 $x86 -gdwarf-4 -c $s.c
	cc $s-arm64 $arm -g -c $s.c
	cc $s-arm64-dwarf4 $arm -gdwarf-4 -c $s.c
	cc $s-arm64be $armbe -g -c $s.c
done
cc tags-x86_64-zlib $x86 -g -gz=zlib -c tags.c
cc tags-x86_64-dwarf64 $x86 -g -gdwarf64 -c tags.c
cc tags-arm64-zlib $arm -g -gz=zlib -c tags.c
cc edge-x86_64 $x86 -g -c edge.c
cc edge-arm64 $arm -g -c edge.c
cc quirks-x86_64 $x86 -g -c quirks.c
cc quirks-arm64 $arm -g -c quirks.c
# 32-bit ELF with SHT_REL relocations (R_ARM_ABS32, R_386_32).
cc tags-armhf --target=armv7-linux-gnueabihf -g -c tags.c
cc percpu-i386 --target=i686-linux-gnu -g -c percpu.c
# RISC-V's paired R_RISCV_ADD32/SUB32 (lengths), ppc64le's R_PPC64_ADDR32,
# 32-bit PowerPC's R_PPC_ADDR32 (big-endian ELF32, SHT_RELA).
cc tags-riscv64 --target=riscv64-linux-gnu -g -c tags.c
cc tags-ppc64le --target=powerpc64le-linux-gnu -g -c tags.c
cc tags-ppc32 --target=powerpc-linux-gnu -g -c tags.c
# Several units in one relocatable object.
(cd "$out" && ld -r -o multi-x86_64.o kinds2-x86_64.o kinds-x86_64.o percpu-x86_64.o tags-x86_64.o)
(cd "$out" && aarch64-linux-gnu-ld -r -o multi-arm64.o kinds2-arm64.o kinds-arm64.o percpu-arm64.o tags-arm64.o)
(cd "$out" && aarch64-linux-gnu-ld -r -o multi-arm64-dwarf4.o kinds2-arm64-dwarf4.o kinds-arm64-dwarf4.o percpu-arm64-dwarf4.o tags-arm64-dwarf4.o)
(cd "$out" && aarch64-linux-gnu-ld -EB -r -o multi-arm64be.o kinds2-arm64be.o kinds-arm64be.o percpu-arm64be.o tags-arm64be.o)
# Executables (ET_EXEC, no relocations), per-CPU data at address 0.
(cd "$out" && ld -T "$src/exec.ld" -e 0 --unresolved-symbols=ignore-all -o exec-x86_64.o multi-x86_64.o)
(cd "$out" && aarch64-linux-gnu-ld -T "$src/exec.ld" -e 0 --unresolved-symbols=ignore-all -o exec-arm64.o multi-arm64.o)
# GNU's older compressed form: .zdebug_* sections, "ZLIB" headers.
objcopy --compress-debug-sections=zlib-gnu "$out/multi-x86_64.o" "$out/multi-x86_64-zdebug.o"
aarch64-linux-gnu-objcopy --compress-debug-sections=zlib-gnu "$out/tags-arm64.o" "$out/tags-arm64-zdebug.o"
# zstd-compressed debug sections: clang 14 cannot write them (-gz=zstd is
# unsupported) and pahole 1.24 (elfutils 0.188) cannot read them, so this
# one has no golden of its own: it must encode as multi-x86_64.o.
objcopy --compress-debug-sections=zstd "$out/multi-x86_64.o" "$out/multi-x86_64-zstd.o"
keep="tags-x86_64 tags-x86_64-dwarf4 tags-x86_64-zlib tags-x86_64-dwarf64
tags-arm64 tags-arm64-dwarf4 tags-arm64-zlib tags-arm64be
percpu-x86_64 percpu-arm64 percpu-arm64-dwarf4 kinds-x86_64 kinds-arm64
edge-x86_64 edge-arm64 quirks-x86_64 quirks-arm64
multi-x86_64 multi-arm64 multi-arm64-dwarf4 multi-arm64be exec-x86_64 exec-arm64
multi-x86_64-zdebug tags-arm64-zdebug tags-armhf percpu-i386 tags-riscv64 tags-ppc64le tags-ppc32"
mkdir -p ../pahole/dwarf
for n in $keep; do
	# pahole 1.24 does not truncate an existing output file.
	rm -f "$out/$n.btf"
	pahole -J --btf_gen_floats -j1 --lang_exclude=rust --btf_encode_detached="$out/$n.btf" "$out/$n.o"
	case $n in
	quirks-*) ;; # no tags
	*) bpftool btf dump file "$out/$n.btf" | grep -qE '^\[[0-9]+\] (DECL|TYPE)_TAG' ;;
	esac
	gzip -9n < "$out/$n.btf" > ../pahole/dwarf/$n.btf.gz
	gzip -9n < "$out/$n.o" > $n.o.gz
done
gzip -9n < "$out/multi-x86_64-zstd.o" > multi-x86_64-zstd.o.gz
# Split BTF, as for a module: multi-x86_64.o on the Debian 6.1 vmlinux BTF
# and on the 6.18 host's, which has tags of its own.
for b in debian-6.1 host-6.18.44; do
	zcat ../btf/$b.btf.gz > "$out/$b.btf"
	rm -f "$out/split.btf"
	pahole -J --btf_gen_floats -j1 --lang_exclude=rust --btf_base="$out/$b.btf" --btf_encode_detached="$out/split.btf" "$out/multi-x86_64.o"
	gzip -9n < "$out/split.btf" > ../pahole/dwarf/multi-x86_64.on-$b.btf.gz
done
