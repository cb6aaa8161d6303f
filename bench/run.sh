#!/usr/bin/env bash
# Runs the Go benchmarks of this module side by side with their peers and
# prints a markdown table of medians, with kmeta/peer ratios for every
# benchmark that has a "kmeta" and a peer sub-benchmark.
#
# Usage: bench/run.sh [-bench REGEXP] [-count N] [-benchtime T]
# Defaults: all benchmarks, 5 runs each, 1s. Raw output goes to bench/out.txt.
set -euo pipefail
cd "$(dirname "$0")"
bench=. count=5 benchtime=1s
while [ $# -gt 0 ]; do
	case $1 in
	-bench) bench=$2; shift 2 ;;
	-count) count=$2; shift 2 ;;
	-benchtime) benchtime=$2; shift 2 ;;
	*) echo "usage: $0 [-bench REGEXP] [-count N] [-benchtime T]" >&2; exit 2 ;;
	esac
done
go test -run '^$' -bench "$bench" -count "$count" -benchtime "$benchtime" . | tee out.txt >&2
python3 - out.txt <<'PY'
import re, statistics, sys
from collections import defaultdict
runs = defaultdict(lambda: defaultdict(list))
for line in open(sys.argv[1]):
    if not line.startswith("Benchmark"):
        continue
    f = line.split()
    name = re.sub(r"-\d+$", "", f[0])[len("Benchmark"):]
    for value, unit in zip(f[2::2], f[3::2]):
        runs[name][unit].append(float(value))
med = {n: {u: statistics.median(v) for u, v in units.items()} for n, units in runs.items()}
def fmt_ns(ns):
    for unit, div in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= div:
            return f"{ns/div:.3g} {unit}"
    return f"{ns:.3g} ns"
def fmt_b(b):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div:
            return f"{b/div:.3g} {unit}"
    return f"{b:.0f} B"
print("| benchmark | time/op | bytes/op | allocs/op | other | time vs peer | bytes vs peer |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for name in sorted(med):
    m = med[name]
    other = ", ".join(f"{v:.4g} {u}" for u, v in m.items() if u not in ("ns/op", "B/op", "allocs/op"))
    ratio_t = ratio_b = ""
    if name.endswith("/kmeta"):
        base = name[: -len("kmeta")]
        # The peer: a sibling that is not a kmeta variant.
        peers = [n for n in med if n.startswith(base) and n.count("/") == name.count("/")
                 and not n[len(base):].startswith(("kmeta", "floor"))]
        if peers:
            p = med[peers[0]]
            peer = peers[0][len(base):]
            ratio_t = f"{m['ns/op']/p['ns/op']:.3f}x {peer}"
            # Bytes compare only with an in-process peer, not an exec'd tool.
            if p.get("B/op") and peer != "bpftool":
                ratio_b = f"{m.get('B/op', 0)/p['B/op']:.3f}x {peer}"
    print(f"| {name} | {fmt_ns(m['ns/op'])} | {fmt_b(m.get('B/op', 0))} | {m.get('allocs/op', 0):.0f} | {other} | {ratio_t} | {ratio_b} |")
PY
