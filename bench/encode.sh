#!/usr/bin/env bash
# Times "kmeta btf encode" against "pahole -J" 1.24 (Linux 6.1's flags),
# both with -j2, in alternating rounds, and prints per input the median
# wall time and peak RSS (/usr/bin/time) of each and their ratios (targets
# on the vmlinux: time <= 1.0x, RSS <= 0.5x).
# Usage: bench/encode.sh VMLINUX [MODULE.ko...]: VMLINUX a debug vmlinux
# (fetch-debian-kernel.sh WITH_DBG=1), the modules encoded on its BTF
# (the Debian 6.1 one of testdata), uncompressed. ROUNDS (default 5).
# Identity with pahole -j1 is checked by the tests (dwarf2btf's
# TestVmlinux and TestModules), not here: pahole -j2's output varies.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -ge 1 ] || { echo "usage: $0 VMLINUX [MODULE.ko...]" >&2; exit 2; }
bin=$tmp/kmeta
(cd "$here/.." && go build -tags netgo,osusergo -o "$bin" ./cmd/kmeta) # static, as README installs it
zcat "$here/../testdata/btf/debian-6.1.btf.gz" >"$tmp/base.btf"
flags="-J --btf_gen_floats -j2 --lang_exclude=rust"
for r in $(seq "${ROUNDS:-5}"); do
	for f in "$@"; do
		base=() pbase=()
		if [ "$f" != "$1" ]; then base=(-B "$tmp/base.btf") pbase=(--btf_base="$tmp/base.btf"); fi
		n=$(basename "$f")
		rm -f "$tmp/p.btf" "$tmp/k.btf" # pahole 1.24 does not truncate an existing output
		/usr/bin/time -o "$tmp/t" -f "%e %M" pahole $flags --btf_encode_detached="$tmp/p.btf" "${pbase[@]}" "$f"
		echo "pahole $n $(cat "$tmp/t")" >>"$tmp/log"
		/usr/bin/time -o "$tmp/t" -f "%e %M" "$bin" btf encode "$f" "${base[@]}" -o "$tmp/k.btf" -j2
		echo "kmeta $n $(cat "$tmp/t")" >>"$tmp/log"
	done
done
"$here/encode-table.py" "$tmp/log" "pahole -j2"
