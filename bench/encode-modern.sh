#!/usr/bin/env bash
# Times "kmeta btf encode" against pahole 1.30 with the flags of Linux
# 6.12's scripts/Makefile.btf, both with -j2, in alternating rounds, and
# prints per input the median wall time and peak RSS (/usr/bin/time) of
# each and their ratios (targets on the 6.12 vmlinux: time <= 0.5x, RSS
# <= 0.4x). Both outputs are also compared, byte for byte.
# Usage: bench/encode-modern.sh PAHOLE VMLINUX [BASE MODULE.ko...]: PAHOLE
# pahole 1.30 (fetch-modern.sh's bin/pahole), VMLINUX a debug vmlinux
# (its dbg/vmlinux), the modules encoded on BASE (shipped/vmlinux.btf).
# ROUNDS (default 3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -ge 2 ] && [ $# -ne 3 ] || { echo "usage: $0 PAHOLE VMLINUX [BASE MODULE.ko...]" >&2; exit 2; }
pahole=$1 vmlinux=$2; shift 2
basebtf=""; mods=()
if [ $# -ge 2 ]; then basebtf=$1; shift; mods=("$@"); fi
bin=$tmp/kmeta
(cd "$here/.." && CGO_ENABLED=0 go build -o "$bin" ./cmd/kmeta)
feat=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
for r in $(seq "${ROUNDS:-3}"); do
	for f in "$vmlinux" "${mods[@]}"; do
		base=() pbase=()
		if [ "$f" != "$vmlinux" ]; then base=(-B "$basebtf") pbase=(--btf_base "$basebtf"); fi
		n=$(basename "$f")
		rm -f "$tmp/p.btf" "$tmp/k.btf"
		/usr/bin/time -o "$tmp/t" -f "%e %M" "$pahole" -J -j2 --btf_features=$feat -j2 --btf_features=+reproducible_build \
			--lang_exclude=rust "${pbase[@]}" --btf_encode_detached="$tmp/p.btf" "$f"
		echo "pahole $n $(cat "$tmp/t")" >>"$tmp/log"
		/usr/bin/time -o "$tmp/t" -f "%e %M" "$bin" btf encode "$f" "${base[@]}" -o "$tmp/k.btf" -j2
		echo "kmeta $n $(cat "$tmp/t")" >>"$tmp/log"
		cmp -s "$tmp/p.btf" "$tmp/k.btf" || echo "DIFF: $n: kmeta's output is not pahole's" >&2
	done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
"$here/encode-table.py" "$tmp/log" "pahole 1.30 -j2"
