#!/usr/bin/env bash
# Checks "kmeta btf encode" on other architectures' Debian kernels against
# the BTF their packages ship, byte for byte, and times it against pahole
# 1.30 run with the flags of Linux 6.12's scripts/Makefile.btf, both -j2,
# alternating. Each ARCHDIR holds one kernel's files, extracted from its
# linux-image-*-dbg and linux-image-* packages:
#   dbg/vmlinux, dbg/MOD.ko   the -dbg package's files (full DWARF): the input
#   shipped/vmlinux.btf       .BTF of dbg/vmlinux (the same bytes as the
#                             vmlinuz's), the base of every module
#   shipped/MOD.btf           .BTF of the image package's MOD.ko.xz
# For example, for Debian 13's arm64 cloud kernel:
#   dpkg-deb --fsys-tarfile linux-image-6.12.117+deb13-cloud-arm64-dbg_*.deb |
#     tar -x ./usr/lib/debug/boot/vmlinux-6.12.117+deb13-cloud-arm64 \
#       ./usr/lib/debug/lib/modules/6.12.117+deb13-cloud-arm64/kernel/lib/crc7.ko
#   objcopy --dump-section .BTF=shipped/vmlinux.btf dbg/vmlinux /dev/null
# A kernel built without BTF (Debian 12's mips64el) has no shipped bytes:
# there shipped/ holds pahole 1.30's, and pahole-in/MOD.ko, if present, is
# what pahole reads instead of dbg/MOD.ko: the module with its relocations
# applied by GNU ld, where pahole's libelf misreads them (MIPS64's r_info):
#   mips64el-linux-gnuabi64-ld -o pahole-in/MOD.ko -e 0 \
#     --unresolved-symbols=ignore-all --noinhibit-exec -nostdlib dbg/MOD.ko
#   pahole ... --btf_encode_detached=shipped/vmlinux.btf dbg/vmlinux
#   pahole ... --btf_base shipped/vmlinux.btf \
#     --btf_encode_detached=shipped/MOD.btf pahole-in/MOD.ko
# (pahole with this script's flags). kmeta always reads dbg/, with
# --like pahole-1.30, the mode of those flags whatever the release.
# Prints SAME or DIFF for kmeta's output and pahole's against the shipped
# bytes, then per file the median CPU time (user + sys: the machine is
# shared, so wall time says little) and peak RSS of each (from
# /usr/bin/time) and their ratios. Exits 1 if kmeta's output differs.
# Usage: bench/encode-arch.sh PAHOLE ARCHDIR[:MOD,MOD...]...
#   PAHOLE: pahole 1.30 (the shared fixtures' fetch-modern.sh bin/pahole);
#   MODs default to af_key. ROUNDS (default 1) alternating rounds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 PAHOLE ARCHDIR[:MOD,...]..." >&2; exit 2; }
pahole=$1; shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/kmeta
(cd "$here/.." && CGO_ENABLED=0 go build -tags netgo,osusergo -o "$bin" ./cmd/kmeta)
feat=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
diff=0
cpu() { # /usr/bin/time's "%U %S %M" -> "CPU-SECONDS KB"
	awk '{ printf "%.2f %s\n", $1 + $2, $3 }' "$1"
}
verdict() { # tool name got want
	if cmp -s "$3" "$4"; then echo "SAME $1 $2"; else echo "DIFF $1 $2"; [ "$1" != kmeta ] || diff=$((diff + 1)); fi
}
for r in $(seq "${ROUNDS:-1}"); do
	for spec in "$@"; do
		k=${spec%%:*} mods=af_key
		[ "$spec" = "$k" ] || mods=${spec#*:}
		arch=$(basename "$k")
		for f in vmlinux ${mods//,/ }; do
			in=$k/dbg/$f.ko base=(-B "$k/shipped/vmlinux.btf") pbase=(--btf_base "$k/shipped/vmlinux.btf")
			if [ "$f" = vmlinux ]; then in=$k/dbg/vmlinux base=() pbase=(); fi
			pin=$in
			[ ! -e "$k/pahole-in/$f.ko" ] || pin=$k/pahole-in/$f.ko
			name=$arch/$f
			rm -f "$tmp/p.btf" "$tmp/k.btf"
			/usr/bin/time -o "$tmp/t" -f "%U %S %M" "$pahole" -J -j2 --btf_features=$feat -j2 --btf_features=+reproducible_build \
				--lang_exclude=rust "${pbase[@]}" --btf_encode_detached="$tmp/p.btf" "$pin" >/dev/null
			echo "pahole $name $(cpu "$tmp/t")" >>"$tmp/log"
			/usr/bin/time -o "$tmp/t" -f "%U %S %M" "$bin" btf encode "$in" "${base[@]}" --like pahole-1.30 -o "$tmp/k.btf" -j2
			echo "kmeta $name $(cpu "$tmp/t")" >>"$tmp/log"
			if [ "$r" = 1 ]; then
				verdict kmeta "$name" "$tmp/k.btf" "$k/shipped/$f.btf"
				verdict pahole "$name" "$tmp/p.btf" "$k/shipped/$f.btf"
			fi
		done
	done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
"$here/encode-table.py" "$tmp/log" "pahole 1.30 -j2 (CPU)"
echo "$diff different"
[ "$diff" -eq 0 ]
