#!/usr/bin/env bash
# Times "kmeta btf min FILE --obj OBJ -o OUT" against "bpftool gen
# min_core_btf FILE OUT OBJ" as whole processes in one run (hyperfine,
# alternating), on the Debian 6.1 and host 6.18 vmlinux BTFs of testdata
# and the running kernel's, then the batch of one object against the three
# ("kmeta btf min -d OUTDIR --obj OBJ K1 K2 K3" against three bpftool runs
# in one shell). The outputs are checked equal first. kmeta is built both
# as Go builds it by default (cgo on: the spf13/pflag dependency imports
# net, so the binary is dynamically linked) and with CGO_ENABLED=0.
# Usage: bench/mincore.sh [OBJ] (default testdata/elf/prog.bpf.o.gz)
# Needs bpftool and hyperfine (apt-get install bpftool hyperfine).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root="$here/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/kmeta" ./cmd/kmeta && CGO_ENABLED=0 go build -o "$tmp/kmeta-static" ./cmd/kmeta)
obj="$tmp/prog.bpf.o"
zcat -f "${1:-$root/testdata/elf/prog.bpf.o.gz}" > "$obj"
zcat "$root/testdata/btf/debian-6.1.btf.gz" > "$tmp/debian-6.1.btf"
zcat "$root/testdata/btf/host-6.18.44.btf.gz" > "$tmp/host-6.18.btf"
kernels="$tmp/debian-6.1.btf $tmp/host-6.18.btf"
if [ -r /sys/kernel/btf/vmlinux ]; then
	cp /sys/kernel/btf/vmlinux "$tmp/running.btf"
	kernels="$kernels $tmp/running.btf"
fi
mkdir "$tmp/out" "$tmp/ref"
for k in $kernels; do
	bpftool gen min_core_btf "$k" "$tmp/ref/$(basename "$k")" "$obj"
done
"$tmp/kmeta" btf min -d "$tmp/out" --obj "$obj" $kernels
for k in $kernels; do
	cmp "$tmp/out/$(basename "$k")" "$tmp/ref/$(basename "$k")"
done

json=$(mktemp)
ratios() {
	python3 - "$json" "$1" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
b = r["bpftool"]
for name, x in r.items():
    if name != "bpftool":
        print(f"{sys.argv[2]}: {name} {x['mean']*1e3:.1f} ms (median {x['median']*1e3:.1f}), bpftool {b['mean']*1e3:.1f} ms (median {b['median']*1e3:.1f}), ratio {x['mean']/b['mean']:.2f}x (medians {x['median']/b['median']:.2f}x)")
PY
}
for k in $kernels; do
	hyperfine --warmup 5 --runs 40 -N --export-json "$json" \
		-n bpftool "bpftool gen min_core_btf $k $tmp/ref.btf $obj" \
		-n kmeta "$tmp/kmeta btf min $k --obj $obj -o $tmp/k.btf" \
		-n kmeta-static "$tmp/kmeta-static btf min $k --obj $obj -o $tmp/k.btf" >&2
	ratios "one object, $(basename "$k")"
done
batch="for k in $kernels; do bpftool gen min_core_btf \$k $tmp/ref/\$(basename \$k) $obj; done"
hyperfine --warmup 3 --runs 30 --export-json "$json" -S bash \
	-n bpftool "$batch" \
	-n kmeta "$tmp/kmeta btf min -d $tmp/out --obj $obj $kernels" \
	-n kmeta-static "$tmp/kmeta-static btf min -d $tmp/out --obj $obj $kernels" >&2
ratios "batch, one object x $(echo $kernels | wc -w) kernels"
rm -f "$json"
