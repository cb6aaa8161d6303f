#!/usr/bin/env bash
# BTFHub's workload (issue 38): "kmeta btf min -d OUT --obj OBJ... ARCHIVE"
# over a BTFHub-style tree, DISTRO/VERSION/ARCH/RELEASE.btf.tar.xz (a tar of
# one raw .btf, xz-compressed, as BTFHub ships them), against what BTFHub's
# own tools/btfgen.sh does: per kernel, unpack the archive, then "bpftool
# gen min_core_btf" into custom-archive/DISTRO/VERSION/ARCH/RELEASE.btf.
# The tree holds six kernels of three architectures: Debian 12's 6.1,
# Debian 13's 6.12 and 7.3 (backports) and this project's host 6.18, all
# x86_64 (testdata/btf), and Debian 13's 6.12.117 arm64 and riscv64
# (bench/testdata/btf). The objects are six CO-RE programs, as in
# mincore.sh: prog, fields, types and matches of testdata and kprobe and
# sched of the loader benchmark.
#
# Every output is first checked byte-equal to bpftool's, file for file.
# Then hyperfine times, alternating, in one run:
#   bpftool-unpacked  a loop of bpftool over the unpacked files (the .btf
#                     files already extracted: bpftool's work alone);
#   btfgen            BTFHub's loop: tar xJf, bpftool, rm, per kernel;
#   kmeta-tree        kmeta over the tree of .btf.tar.xz (it unpacks too);
#   kmeta-unpacked    kmeta over the unpacked tree (.btf files).
# Ratios are of means against bpftool-unpacked, then of CPU time.
# Usage: bench/btfhub.sh. Needs bpftool, hyperfine, xz, zstd, tar.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root="$here/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/kmeta" ./cmd/kmeta)

# The tree, and the same tree unpacked.
add() { # SRC DISTRO/VERSION/ARCH RELEASE
	mkdir -p "$tmp/archive/$2" "$tmp/unpacked/$2"
	zstd -dcf "$1" > "$tmp/unpacked/$2/$3.btf"
	tar -C "$tmp/unpacked/$2" -cJf "$tmp/archive/$2/$3.btf.tar.xz" "$3.btf"
}
add "$root/testdata/btf/debian-6.1.btf.gz" debian/12/x86_64 6.1.0-47-cloud-amd64
add "$root/testdata/btf/debian-6.12-cloud.btf.zst" debian/13/x86_64 6.12.118+deb13-cloud-amd64
add "$root/testdata/btf/debian-7.3-cloud.btf.zst" debian/13/x86_64 7.3.4+deb13-cloud-amd64
add "$root/testdata/btf/host-6.18.44.btf.gz" firecracker/host/x86_64 6.18.44
add "$here/testdata/btf/debian-6.12-arm64.btf.zst" debian/13/arm64 6.12.117+deb13-cloud-arm64
add "$here/testdata/btf/debian-6.12-riscv64.btf.zst" debian/13/riscv64 6.12.117+deb13-riscv64

objs=""
for o in prog fields types matches; do
	src="$root/testdata/core/$o.bpf.o.gz"
	[ -e "$src" ] || src="$root/testdata/elf/$o.bpf.o.gz"
	zcat "$src" > "$tmp/$o.bpf.o"
	objs="$objs $tmp/$o.bpf.o"
done
for o in kprobe sched; do
	cp "$here/testdata/loader/$o.bpf.o" "$tmp/$o.bpf.o"
	objs="$objs $tmp/$o.bpf.o"
done
kobjs=$(for o in $objs; do printf -- '--obj %s ' "$o"; done)

# The loops, as scripts that hyperfine runs with bash.
cat > "$tmp/bpftool-unpacked.sh" <<SH
cd $tmp/unpacked
for f in \$(find . -name '*.btf'); do
	mkdir -p $tmp/ref/\$(dirname \$f)
	bpftool gen min_core_btf \$f $tmp/ref/\$f $objs
done
SH
cat > "$tmp/btfgen.sh" <<SH
cd $tmp/archive
for f in \$(find . -name '*.btf.tar.xz'); do
	d=\$(dirname \$f)
	x=\$(tar xvfJ \$f -C $tmp)
	mkdir -p $tmp/gen/\$d
	bpftool gen min_core_btf $tmp/\$x $tmp/gen/\$d/\$x $objs
	rm $tmp/\$x
done
SH
mkdir "$tmp/ref" "$tmp/gen" "$tmp/out" "$tmp/out2"
bash "$tmp/bpftool-unpacked.sh"
bash "$tmp/btfgen.sh"
"$tmp/kmeta" btf min -d "$tmp/out" $kobjs "$tmp/archive" > "$tmp/report.txt"
"$tmp/kmeta" btf min -d "$tmp/out2" $kobjs "$tmp/unpacked" > /dev/null
diff -r "$tmp/ref" "$tmp/out"
diff -r "$tmp/ref" "$tmp/out2"
diff -r "$tmp/ref" "$tmp/gen"
echo "outputs: $(find "$tmp/out" -type f | wc -l) files, equal to bpftool's; relocations that fail, per kernel:"
cut -d: -f1,2 "$tmp/report.txt" | sort | uniq -c

json=$(mktemp)
hyperfine --warmup 2 --runs "${RUNS:-15}" --export-json "$json" -S bash \
	-n bpftool-unpacked "bash $tmp/bpftool-unpacked.sh" \
	-n btfgen "bash $tmp/btfgen.sh" \
	-n kmeta-tree "$tmp/kmeta btf min -d $tmp/out $kobjs $tmp/archive" \
	-n kmeta-unpacked "$tmp/kmeta btf min -d $tmp/out2 $kobjs $tmp/unpacked" >&2
python3 - "$json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
b = r["bpftool-unpacked"]
bcpu = b['user'] + b['system']
for name, x in r.items():
    cpu = x['user'] + x['system']
    print(f"{name}: {x['mean']*1e3:.1f} ms (median {x['median']*1e3:.1f}), {x['mean']/b['mean']:.3f}x bpftool-unpacked (medians {x['median']/b['median']:.3f}x); CPU {cpu*1e3:.1f} ms, {cpu/bcpu:.3f}x")
PY
rm -f "$json"
