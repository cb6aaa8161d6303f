#!/usr/bin/env bash
# Checks "kmeta btf encode" against "pahole -J" 1.24 -j1 (Linux 6.1's
# flags), byte for byte, on every debug module under DIR (a .ko tree, such
# as a linux-image-*-dbg package unpacked with dpkg-deb -x), split on BASE
# (that kernel's vmlinux BTF), with kmeta's -j given by JOBS (default 2).
# Prints one line per module (SAME or DIFF) and a count; exits 1 if any
# differs. Usage: bench/encode-identity.sh DIR BASE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { echo "usage: $0 DIR BASE" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/kmeta
(cd "$here/.." && go build -tags netgo,osusergo -o "$bin" ./cmd/kmeta) # static, as README installs it
same=0 diff=0
while IFS= read -r -d '' f; do
	rm -f "$tmp/p.btf" "$tmp/k.btf" # pahole 1.24 does not truncate an existing output
	pahole -J --btf_gen_floats -j1 --lang_exclude=rust --btf_encode_detached="$tmp/p.btf" --btf_base="$2" "$f" 2>/dev/null || true
	"$bin" btf encode "$f" -B "$2" -o "$tmp/k.btf" -j "${JOBS:-2}" || true
	if cmp -s "$tmp/p.btf" "$tmp/k.btf"; then
		echo "SAME $f"; same=$((same + 1))
	else
		echo "DIFF $f"; diff=$((diff + 1))
	fi
done < <(find "$1" -name '*.ko' -print0 | sort -z)
echo "$same same, $diff different"
[ "$diff" -eq 0 ]
