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
python3 - "$tmp/log" <<'PY'
import statistics as st, sys
runs = {}
for line in open(sys.argv[1]):
    tool, name, secs, kb = line.split()
    runs.setdefault((name, tool), []).append((float(secs), int(kb)))
print("| input | pahole -j2 | kmeta -j2 | time ratio | peak RSS ratio |")
print("| --- | --- | --- | --- | --- |")
for name in dict.fromkeys(n for n, _ in runs):
    p, k = runs[(name, "pahole")], runs[(name, "kmeta")]
    pt, pm = st.median(t for t, _ in p), st.median(m for _, m in p) / 1024
    kt, km = st.median(t for t, _ in k), st.median(m for _, m in k) / 1024
    rt = [kk[0] / pp[0] for pp, kk in zip(p, k)]
    rm = [kk[1] / pp[1] for pp, kk in zip(p, k)]
    print(f"| {name} ({len(p)} rounds) | {pt:.2f} s, {pm:.0f} MB | {kt:.2f} s, {km:.0f} MB "
          f"| {kt/pt:.2f}x ({min(rt):.2f}-{max(rt):.2f}) | {km/pm:.2f}x ({min(rm):.2f}-{max(rm):.2f}) |")
PY
