#!/usr/bin/env bash
# Checks "kmeta btf encode" of a kernel's debug modules against the .BTF
# of the modules its package ships, byte for byte. DBG is a -dbg package
# unpacked (dpkg-deb -x; its usr/lib/debug/lib/modules/KVER/...), IMG the
# image (or modules) package unpacked the same way, BASE the shipped
# vmlinux BTF. Every NAME.ko under DBG whose NAME.ko.xz (or .ko) is under
# IMG is encoded with -j ${JOBS:-2} and compared with the shipped module's
# .BTF (objcopy --dump-section .BTF=FILE). Prints SAME or DIFF per
# module and a count; exits 1 if any differs.
# Usage: bench/encode-shipped.sh DBG IMG BASE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 3 ] || { echo "usage: $0 DBG IMG BASE" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/kmeta
(cd "$here/.." && CGO_ENABLED=0 go build -o "$bin" ./cmd/kmeta)
declare -A shipped
while IFS= read -r -d '' f; do
	n=$(basename "$f"); n=${n%.xz}; shipped[$n]=$f
done < <(find "$2" \( -name '*.ko.xz' -o -name '*.ko' \) -print0)
same=0 diff=0
while IFS= read -r -d '' f; do
	n=$(basename "$f")
	s=${shipped[$n]:-}
	[ -n "$s" ] || continue
	case "$s" in
	*.xz) xz -dc "$s" >"$tmp/m.ko" ;;
	*) cp "$s" "$tmp/m.ko" ;;
	esac
	rm -f "$tmp/want.btf"; objcopy --dump-section .BTF="$tmp/want.btf" "$tmp/m.ko" "$tmp/m2.ko"
	rm -f "$tmp/k.btf"
	"$bin" btf encode "$f" -B "$3" -o "$tmp/k.btf" -j "${JOBS:-2}" 2>"$tmp/err" || true
	if cmp -s "$tmp/want.btf" "$tmp/k.btf"; then
		echo "SAME $n"; same=$((same + 1))
	else
		echo "DIFF $n $(head -c 200 "$tmp/err")"; diff=$((diff + 1))
	fi
done < <(find "$1" -name '*.ko' -print0 | sort -z)
echo "$same same, $diff different"
[ "$diff" -eq 0 ]
