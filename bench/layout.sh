#!/usr/bin/env bash
# Times "kmeta btf layout FILE" against "pahole -F btf FILE" (pahole 1.24)
# in one run, both to /dev/null, after checking that the outputs are equal,
# and prints the ratio of the mean wall times (target: <= 0.5x).
# Usage: bench/layout.sh [FILE] (default: the Debian 6.1 vmlinux BTF of
# testdata; pahole 1.24 cannot read newer BTF). Needs pahole and hyperfine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
file=${1:-}
if [ -z "$file" ]; then
	file=$tmp/debian-6.1.btf
	zcat "$here/../testdata/btf/debian-6.1.btf.gz" >"$file"
fi
bin=$tmp/kmeta
(cd "$here/.." && go build -tags netgo,osusergo -o "$bin" ./cmd/kmeta) # static, as README installs it
if ! cmp -s <("$bin" btf layout "$file") <(pahole -F btf "$file"); then
	echo "outputs differ for $file" >&2
	exit 1
fi
hyperfine --warmup 3 --runs "${RUNS:-40}" -N --export-json "$tmp/h.json" \
	-n kmeta "$bin btf layout $file" -n pahole "pahole -F btf $file" --output=null >&2
python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
k, p = r["kmeta"], r["pahole"]
print(f"layout: kmeta {k['mean']*1e3:.1f} ms (median {k['median']*1e3:.1f}), "
      f"pahole {p['mean']*1e3:.1f} ms (median {p['median']*1e3:.1f}), "
      f"ratio {k['mean']/p['mean']:.2f}x (medians {k['median']/p['median']:.2f}x)")
PY
