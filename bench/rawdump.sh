#!/usr/bin/env bash
# Times "kmeta btf dump FILE" (raw text) against "bpftool btf dump file FILE"
# in one run, both writing to /dev/null, and prints the ratio of the mean
# wall times. Usage: bench/rawdump.sh [FILE] (default /sys/kernel/btf/vmlinux)
# Needs bpftool and hyperfine (apt-get install bpftool hyperfine).
set -euo pipefail
file=${1:-/sys/kernel/btf/vmlinux}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d)/kmeta
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$here/.." && go build -tags netgo,osusergo -o "$bin" ./cmd/kmeta) # static, as README installs it

# Same bytes first: the comparison is only fair if the outputs are equal.
if ! cmp -s <("$bin" btf dump "$file") <(bpftool btf dump file "$file"); then
	echo "outputs differ for $file" >&2
	exit 1
fi

json=$(mktemp)
hyperfine --warmup 3 --runs 30 -N --export-json "$json" \
	-n kmeta "$bin btf dump $file --format raw" \
	-n bpftool "bpftool btf dump file $file" \
	--output=null >&2
python3 - "$json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
k, b = r["kmeta"]["mean"], r["bpftool"]["mean"]
print(f"raw dump to /dev/null: kmeta {k*1e3:.1f} ms, bpftool {b*1e3:.1f} ms, ratio {k/b:.2f}x")
PY
rm -f "$json"
