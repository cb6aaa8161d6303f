#!/usr/bin/env python3
"""Prints the Markdown table of the encode benchmarks (encode.sh,
encode-modern.sh, encode-arch.sh): per input the median wall time and
peak RSS of pahole and of kmeta, and kmeta's ratios to pahole with their
range over the rounds.

Usage: bench/encode-table.py LOG 'PAHOLE COLUMN TITLE'
LOG has one line per run: TOOL (pahole or kmeta) INPUT SECONDS KB, the
rounds alternating."""
import statistics as st
import sys

runs = {}
for line in open(sys.argv[1]):
    tool, name, secs, kb = line.split()
    runs.setdefault((name, tool), []).append((float(secs), int(kb)))
print(f"| input | {sys.argv[2]} | kmeta -j2 | time ratio | peak RSS ratio |")
print("| --- | --- | --- | --- | --- |")
for name in dict.fromkeys(n for n, _ in runs):
    p, k = runs[(name, "pahole")], runs[(name, "kmeta")]
    pt, pm = st.median(t for t, _ in p), st.median(m for _, m in p) / 1024
    kt, km = st.median(t for t, _ in k), st.median(m for _, m in k) / 1024
    rt = [kk[0] / pp[0] for pp, kk in zip(p, k)]
    rm = [kk[1] / pp[1] for pp, kk in zip(p, k)]
    print(f"| {name} ({len(p)} rounds) | {pt:.2f} s, {pm:.0f} MB | {kt:.2f} s, {km:.0f} MB "
          f"| {kt/pt:.2f}x ({min(rt):.2f}-{max(rt):.2f}) | {km/pm:.2f}x ({min(rm):.2f}-{max(rm):.2f}) |")
