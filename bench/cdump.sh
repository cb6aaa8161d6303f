#!/usr/bin/env bash
# Times "kmeta btf dump FILE --format c --compat bpftool-7.1" (a vmlinux.h)
# against Debian 12's "bpftool btf dump file FILE format c" (7.1) in one
# run, both writing to /dev/null, and prints the ratio of the mean wall
# times (target: <= 0.5x). bench/cdump-identity.sh checks the default output
# against bpftool 7.5 and times the two.
# Usage: bench/cdump.sh [FILE] (default /sys/kernel/btf/vmlinux)
# Needs bpftool, and hyperfine (apt-get install bpftool hyperfine); without
# hyperfine it falls back to a loop timed with date.
set -euo pipefail
file=${1:-/sys/kernel/btf/vmlinux}
runs=${RUNS:-30}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/kmeta
(cd "$here/.." && go build -tags netgo,osusergo -o "$bin" ./cmd/kmeta) # static, as README installs it

# Same bytes first: the comparison is only fair if the outputs are equal.
if ! cmp -s <("$bin" btf dump "$file" --format c --compat bpftool-7.1) <(bpftool btf dump file "$file" format c); then
	echo "outputs differ for $file" >&2
	exit 1
fi

kmeta_cmd="$bin btf dump $file --format c --compat bpftool-7.1"
bpftool_cmd="bpftool btf dump file $file format c"

if command -v hyperfine >/dev/null; then
	hyperfine --warmup 3 --runs "$runs" -N --export-json "$tmp/h.json" \
		-n kmeta "$kmeta_cmd" -n bpftool "$bpftool_cmd" --output=null >&2
	python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
k, b = r["kmeta"], r["bpftool"]
print(f"C dump to /dev/null: kmeta {k['mean']*1e3:.1f} ms (median {k['median']*1e3:.1f}), "
      f"bpftool {b['mean']*1e3:.1f} ms (median {b['median']*1e3:.1f}), "
      f"ratio {k['mean']/b['mean']:.2f}x (medians {k['median']/b['median']:.2f}x)")
PY
	exit 0
fi

# Fallback: interleaved runs, mean wall time of each.
mean_ms() { # command...
	local start end
	start=$(date +%s%N)
	"$@" >/dev/null
	end=$(date +%s%N)
	echo $(((end - start) / 1000))
}
k=0 b=0
for _ in $(seq "$runs"); do
	k=$((k + $(mean_ms $kmeta_cmd)))
	b=$((b + $(mean_ms $bpftool_cmd)))
done
awk -v k="$k" -v b="$b" -v n="$runs" 'BEGIN {
	printf "C dump to /dev/null: kmeta %.1f ms, bpftool %.1f ms, ratio %.2fx\n", k/n/1000, b/n/1000, k/b }'
