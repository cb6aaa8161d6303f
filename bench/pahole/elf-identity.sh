#!/usr/bin/env bash
# Compares "kmeta pahole" (kmeta run as "pahole" through a symlink) with
# pahole 1.30 on copies of the same files, byte for byte, as the kernel's
# build runs it:
#   - 6.12 (Makefile.btf's flags, LLVM_OBJCOPY=objcopy): vmlinux and each
#     MODULE (--btf_base vmlinux), once with .BTF removed (pahole runs
#     objcopy --add-section) and once as the -dbg files are, with .BTF
#     (pahole rewrites the section in place through libelf);
#   - 7.x (gen-btf.sh): the same flags with --btf_encode_detached=OUT.
# Usage: bench/pahole/elf-identity.sh PAHOLE DIR612 DIR73 [MODULE...]:
# PAHOLE pahole 1.30, DIR612/DIR73 fetch-modern.sh's k612cloud/dbg and
# k73cloud/dbg (vmlinux and MODULE.ko; default modules af_key tun xfs).
# Needs about 2 GB in TMPDIR. Prints one line per check; exit 1 if any differ.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 3 ] || { echo "usage: $0 PAHOLE DIR612 DIR73 [MODULE...]" >&2; exit 2; }
pahole=$1 d612=$2 d73=$3; shift 3
mods=("$@"); [ ${#mods[@]} -gt 0 ] || mods=(af_key tun xfs)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$here" && CGO_ENABLED=0 go build -o "$tmp/kmeta" ./cmd/kmeta) && ln -s kmeta "$tmp/pahole"
f612="-J -j --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs -j --btf_features=+reproducible_build --lang_exclude=rust"
f73="-J -j --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func -j --btf_features=+reproducible_build --lang_exclude=rust"
bad=0
check() { # name file-a file-b
	if cmp -s "$2" "$3"; then echo "IDENTICAL $1 ($(stat -c %s "$2") bytes)"; else echo "DIFFERENT $1"; bad=1; fi
}
# elf NAME FILE [--btf_base BASE]: both ways on copies, with and without .BTF.
elf() {
	local name=$1 f=$2; shift 2
	for how in inplace objcopy; do
		if [ $how = objcopy ]; then objcopy --remove-section .BTF "$f" "$tmp/p.elf"; else cp "$f" "$tmp/p.elf"; fi
		cp "$tmp/p.elf" "$tmp/k.elf"
		LLVM_OBJCOPY=objcopy /usr/bin/time -f "  pahole %e s %M KB" "$pahole" $f612 "$@" "$tmp/p.elf"
		LLVM_OBJCOPY=objcopy /usr/bin/time -f "  kmeta  %e s %M KB" "$tmp/pahole" $f612 "$@" "$tmp/k.elf"
		check "6.12 $name $how" "$tmp/p.elf" "$tmp/k.elf"
	done
	rm -f "$tmp/p.elf" "$tmp/k.elf"
}
elf vmlinux "$d612/vmlinux"
for m in "${mods[@]}"; do elf "$m" "$d612/$m.ko" --btf_base "$d612/vmlinux"; done
for f in vmlinux "${mods[@]}"; do
	in=$d73/$f base=()
	[ "$f" = vmlinux ] || { in=$d73/$f.ko; base=(--btf_base "$d73/vmlinux"); }
	# pahole 1.30 writes OUT without truncating it: start from none.
	rm -f "$tmp/p.btf" "$tmp/k.btf"
	"$pahole" $f73 "${base[@]}" --btf_encode_detached="$tmp/p.btf" "$in"
	"$tmp/pahole" $f73 "${base[@]}" --btf_encode_detached="$tmp/k.btf" "$in"
	check "7.3 $f detached" "$tmp/p.btf" "$tmp/k.btf"
done
exit $bad
