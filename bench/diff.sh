#!/usr/bin/env bash
# Times "kmeta btf diff" of the Debian 6.1 and the host 6.18 vmlinux BTFs
# of testdata as a whole process (target: <= 0.2 s), with "kmeta btf find"
# of a missing name in one file beside it as the floor (start, open).
# Needs hyperfine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zcat "$here/../testdata/btf/debian-6.1.btf.gz" >"$tmp/old.btf"
zcat "$here/../testdata/btf/host-6.18.44.btf.gz" >"$tmp/new.btf"
bin=$tmp/kmeta
(cd "$here/.." && go build -tags netgo,osusergo -o "$bin" ./cmd/kmeta) # static, as README installs it
hyperfine --warmup 2 --runs "${RUNS:-20}" -N -i --export-json "$tmp/h.json" \
	-n diff "$bin btf diff $tmp/old.btf $tmp/new.btf" \
	-n floor "$bin btf find no_such_type $tmp/new.btf" --output=null >&2
python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
d, f = r["diff"], r["floor"]
print(f"diff debian-6.1 host-6.18: mean {d['mean']*1e3:.1f} ms, median {d['median']*1e3:.1f} ms, "
      f"min {d['min']*1e3:.1f} ms; floor (find, one file) median {f['median']*1e3:.1f} ms")
PY
