#!/usr/bin/env bash
# Times "kmeta btf min FILE --obj OBJ -o OUT" against "bpftool gen
# min_core_btf FILE OUT OBJ" as whole processes in one run (hyperfine,
# alternating), on the Debian 6.1 and host 6.18 vmlinux BTFs of testdata
# and the running kernel's, then the batch of one object against the three
# ("kmeta btf min -d OUTDIR --obj OBJ K1 K2 K3" against three bpftool runs
# in one shell). The outputs are checked equal first. kmeta is built both
# as Go builds it by default (cgo on: the spf13/pflag dependency imports
# net, so the binary is dynamically linked) and static, as the README
# installs it (-tags netgo,osusergo). Two floors are timed beside them:
# "kmeta-static version" (kmeta's start, its package initialisation and
# command tree, and exit) and an empty static Go program (the Go
# runtime's start and exit alone). Each ratio of wall times is followed by
# the ratio of CPU times (user + system, means), which the load of a shared
# machine moves less.
# Usage: bench/mincore.sh [OBJ] (default testdata/elf/prog.bpf.o.gz)
# Needs bpftool and hyperfine (apt-get install bpftool hyperfine).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root="$here/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/kmeta" ./cmd/kmeta && go build -tags netgo,osusergo -o "$tmp/kmeta-static" ./cmd/kmeta)
mkdir "$tmp/empty"
printf 'package main\n\nfunc main() {}\n' > "$tmp/empty/main.go"
(cd "$tmp/empty" && CGO_ENABLED=0 go build -o "$tmp/go-empty" main.go)
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
        cpu, bcpu = x['user'] + x['system'], b['user'] + b['system']
        print(f"{sys.argv[2]}: {name} {x['mean']*1e3:.1f} ms (median {x['median']*1e3:.1f}), bpftool {b['mean']*1e3:.1f} ms (median {b['median']*1e3:.1f}), ratio {x['mean']/b['mean']:.2f}x (medians {x['median']/b['median']:.2f}x); CPU {cpu*1e3:.1f} against {bcpu*1e3:.1f} ms, {cpu/bcpu:.2f}x")
PY
}
for k in $kernels; do
	hyperfine --warmup 5 --runs 40 -N --export-json "$json" \
		-n bpftool "bpftool gen min_core_btf $k $tmp/ref.btf $obj" \
		-n kmeta "$tmp/kmeta btf min $k --obj $obj -o $tmp/k.btf" \
		-n kmeta-static "$tmp/kmeta-static btf min $k --obj $obj -o $tmp/k.btf" \
		-n kmeta-version "$tmp/kmeta-static version" \
		-n go-empty "$tmp/go-empty" >&2
	ratios "one object, $(basename "$k")"
done
batch="for k in $kernels; do bpftool gen min_core_btf \$k $tmp/ref/\$(basename \$k) $obj; done"
hyperfine --warmup 3 --runs 30 --export-json "$json" -S bash \
	-n bpftool "$batch" \
	-n kmeta "$tmp/kmeta btf min -d $tmp/out --obj $obj $kernels" \
	-n kmeta-static "$tmp/kmeta-static btf min -d $tmp/out --obj $obj $kernels" >&2
ratios "batch, one object x $(echo $kernels | wc -w) kernels"

# BTFHub's workload: several objects over several kernels. Six CO-RE
# objects (the shared fixture's, three of the CO-RE tests' and two of the
# loader benchmark's) over Debian 6.1, Debian 13's 6.12 and this machine's
# 6.18 BTF, as one kmeta batch (on every core, and with -j 1) against one
# bpftool run per kernel.
. "$here/objs.sh"
core_objs "$root" "$tmp"
zstd -dc "$root/testdata/btf/debian-6.12-cloud.btf.zst" > "$tmp/debian-6.12.btf"
kernels3="$tmp/debian-6.1.btf $tmp/debian-6.12.btf $tmp/host-6.18.btf"
mkdir "$tmp/out6" "$tmp/ref6"
for k in $kernels3; do
	bpftool gen min_core_btf "$k" "$tmp/ref6/$(basename "$k")" $objs
done
"$tmp/kmeta-static" btf min -d "$tmp/out6" $kobjs $kernels3
for k in $kernels3; do
	cmp "$tmp/out6/$(basename "$k")" "$tmp/ref6/$(basename "$k")"
done
batch6="for k in $kernels3; do bpftool gen min_core_btf \$k $tmp/ref6/\$(basename \$k) $objs; done"
hyperfine --warmup 3 --runs 30 --export-json "$json" -S bash \
	-n bpftool "$batch6" \
	-n kmeta-static "$tmp/kmeta-static btf min -d $tmp/out6 $kobjs $kernels3" \
	-n kmeta-static-j1 "$tmp/kmeta-static btf min -j 1 -d $tmp/out6 $kobjs $kernels3" >&2
ratios "batch, six objects x three kernels"
rm -f "$json"
