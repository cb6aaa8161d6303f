#!/usr/bin/env bash
# Loads the CO-RE objects of testdata/loader into the running kernel in
# fresh processes, alternating cilium/ebpf's default kernel types, its
# shared btf.Cache and kmeta's minimal BTF (loader.TestLoadOnce), and prints
# a markdown table of medians with kmeta/cilium ratios ("floor": the loads
# with kmeta's types made before the op, i.e. what cilium/ebpf and the
# kernel take without reading any kernel BTF): the op's wall time
# (from reading the objects to verified programs), the whole process's
# wall time, the op's peak heap growth and allocation, and the process's
# peak RSS, at the default GOGC=100; and the op's peak heap with GOGC=1,
# where the collector runs all the time: about the most the op holds live
# at once, whatever the collector's pacing (a fresh process does not
# collect before its heap reaches 4 MiB at GOGC=100, so a small op's peak
# there is all it allocated). Needs root (or CAP_BPF and CAP_PERFMON) and kernel BTF.
#
# Usage: bench/loader.sh [ROUNDS]   (default 15; raw lines in bench/loader.out)
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-15}
go test -c -o /tmp/kmeta-loader.test ./loader
cd loader
: > ../loader.out
for ((i = 0; i < rounds; i++)); do
	for set in kprobe-tp all; do
		for way in cilium cilium-cache kmeta kmeta-cache floor idle; do
			for gogc in 100 1; do
				start=$(date +%s%N)
				line=$(GOGC=$gogc KMETA_LOADER_WAY=$way KMETA_LOADER_SET=$set /tmp/kmeta-loader.test -test.run '^TestLoadOnce$' | grep '^LOADONCE')
				end=$(date +%s%N)
				echo "$line set=$set proc-ns=$((end - start)) gogc=$gogc" >> ../loader.out
			done
		done
	done
done
rm -f /tmp/kmeta-loader.test
python3 - ../loader.out <<'PY'
import statistics, sys
from collections import defaultdict
runs = defaultdict(lambda: defaultdict(list))
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    if f["gogc"] == "1":
        runs[(f["set"], f["way"])]["live"].append(float(f["peak-heap"]))
        continue
    for k in ("ns", "proc-ns", "peak-heap", "alloc", "hwm-kB"):
        runs[(f["set"], f["way"])][k].append(float(f[k]))
med = {k: {m: statistics.median(v) for m, v in d.items()} for k, d in runs.items()}
print("| set | way | op time | process time | peak heap | peak heap, GOGC=1 | allocated | peak RSS | vs cilium: op time, peak heap, GOGC=1, alloc | vs cilium-cache: the same |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for (s, w), m in sorted(med.items()):
    if w == "idle":
        continue
    c, cc = med[(s, "cilium")], med[(s, "cilium-cache")]
    r = lambda a, b: f"{a/b:.3f}x" if b else ""
    rs = lambda p: ", ".join(r(m[k], p[k]) for k in ("ns", "peak-heap", "live", "alloc"))
    print(f"| {s} | {w} | {m['ns']/1e6:.2f} ms | {m['proc-ns']/1e6:.1f} ms | {m['peak-heap']/2**20:.2f} MiB | {m['live']/2**20:.2f} MiB | {m['alloc']/2**20:.2f} MiB | {m['hwm-kB']/1024:.1f} MiB "
          f"| {rs(c)} | {rs(cc)} |")
idle = [m for (s, w), m in med.items() if w == "idle"]
print(f"\nAn idle process (the test binary, nothing loaded): {idle[0]['proc-ns']/1e6:.1f} ms, peak RSS {idle[0]['hwm-kB']/1024:.1f} MiB.")
PY
