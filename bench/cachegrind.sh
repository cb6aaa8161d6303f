#!/usr/bin/env bash
# Counts what one iteration of a benchmark costs in instructions and in
# simulated cache misses, with valgrind's cachegrind: figures that do not
# drift with the host, for comparing two builds of a hot path. The cache
# model is this machine's: 32 KiB L1d and 1 MiB L2 (as the last level).
# Only the module's own functions (and what they inline) are counted.
#
# Usage: bench/cachegrind.sh [BENCH-REGEXP]   (default Kallsyms/LookupAppend$)
# Needs valgrind (apt-get install valgrind). It runs the benchmark for
# 100,001 and 1,000,001 iterations and divides the difference by 900,000,
# so that setup (loading the input) cancels out.
set -euo pipefail
cd "$(dirname "$0")"
bench=${1:-'Kallsyms/LookupAppend$'}
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" .
# count prints the instructions, L1d and L2 read misses of the module's own
# code (the Go runtime's scheduler spins under valgrind, which runs one
# thread at a time, so its counts are noise).
count() {
	out=$(mktemp)
	valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=1048576,8,64 \
		--cachegrind-out-file="$out" "$bin" -test.run '^$' -test.bench "$bench" \
		-test.benchtime "$1" >/dev/null 2>&1
	cg_annotate --auto=no --show-percs=no --show=Ir,D1mr,DLmr --threshold=0 "$out" |
		awk '/kmeta-dev\/kmeta/ && $1 ~ /^[0-9,]+$/ {
			for (k = 1; k <= 3; k++) { v = $k; gsub(",", "", v); if (v == ".") v = 0; s[k] += v }
		} END {print s[1] + 0, s[2] + 0, s[3] + 0}'
	rm -f "$out"
}
read -r i0 d0 l0 < <(count 100001x)
read -r i1 d1 l1 < <(count 1000001x)
awk -v i="$((i1 - i0))" -v d="$((d1 - d0))" -v l="$((l1 - l0))" -v b="$bench" 'BEGIN {
	printf "%s: %.1f instructions, %.2f L1d read misses, %.3f L2 read misses per iteration\n", b, i / 9e5, d / 9e5, l / 9e5
}'
