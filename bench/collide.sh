#!/usr/bin/env bash
# Issue 37's fifth red team, against the peers' time: kmeta btf dedup
# against libbpf 1.8's btf__dedup on N structs, and N unions, equal in
# every field dedup hashes and different two levels down (both tools
# compare each with every one before it), and kmeta btf min --obj against
# bpftool gen min_core_btf on a BPF object with a CO-RE relocation on each
# member of a struct of M members, its own BTF as target. Each pair runs
# alternating (bench/alternate.py: CPU and peak RSS); outputs are compared
# first (libbpf's header is 8 bytes longer: compared after it).
# Usage: LIBBPFDEDUP=PATH bench/collide.sh [N [M]] (default 5000 2000);
# LIBBPFDEDUP is internal/dedup/testdata/libbpf/libbpfdedup.c built
# against libbpf 1.8 (bench/dedup.sh); without it the dedup pairs skip.
# Needs clang and bpftool for the second part.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${1:-5000} m=${2:-2000} rounds=${ROUNDS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$here/.." && CGO_ENABLED=0 go build -tags netgo,osusergo -o "$tmp/kmeta" ./cmd/kmeta)
(cd "$here" && go run ./collidegen "$tmp" "$n" "$m")
if [ -n "${LIBBPFDEDUP:-}" ]; then
	for s in structs unions; do
		in="$tmp/$s-$n.btf"
		"$tmp/kmeta" btf dedup -o "$tmp/k.btf" "$in"
		"$LIBBPFDEDUP" -o "$tmp/l.btf" "$in"
		cmp <(tail -c +25 "$tmp/k.btf") <(tail -c +33 "$tmp/l.btf") || { echo "$s: outputs differ" >&2; exit 1; }
		echo "== dedup $s-$n"
		python3 "$here/alternate.py" "$rounds" "$tmp/kmeta btf dedup -o $tmp/k.btf $in" "$LIBBPFDEDUP -o $tmp/l.btf $in"
	done
else
	echo "LIBBPFDEDUP not set: the dedup pairs skip" >&2
fi
if command -v clang >/dev/null && command -v bpftool >/dev/null; then
	clang -O0 -g -target bpf -c "$tmp/wide-$m.c" -o "$tmp/wide.o"
	"$tmp/kmeta" btf copy "$tmp/wide.o" -o "$tmp/wide.btf"
	"$tmp/kmeta" btf min "$tmp/wide.btf" --obj "$tmp/wide.o" -o "$tmp/k.min"
	bpftool gen min_core_btf "$tmp/wide.btf" "$tmp/b.min" "$tmp/wide.o"
	cmp "$tmp/k.min" "$tmp/b.min"
	echo "== min --obj, $m relocations over a struct of $m members"
	python3 "$here/alternate.py" "$((rounds * 3))" "$tmp/kmeta btf min $tmp/wide.btf --obj $tmp/wide.o -o $tmp/k.min" "bpftool gen min_core_btf $tmp/wide.btf $tmp/b.min $tmp/wide.o"
else
	echo "no clang or bpftool: the min --obj pair skips" >&2
fi
