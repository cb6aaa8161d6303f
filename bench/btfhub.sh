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
# Then alternate.py times, alternating, in one run (rounds: RUNS, 10):
#   bpftool-unpacked  a loop of bpftool over the unpacked files (the .btf
#                     files already extracted: bpftool's work alone);
#   btfgen            BTFHub's loop: tar xJf, bpftool, rm, per kernel;
#   kmeta-tree        kmeta over the tree of .btf.tar.xz (it unpacks too);
#   kmeta-unpacked    kmeta over the unpacked tree (.btf files);
#   xz-only           xz -dc of every archive (liblzma's decompression
#                     alone: the floor of any reader of the .tar.xz tree).
# Ratios are of medians against bpftool-unpacked, of wall and of CPU time
# (user + system of each process and its children), which the load of a
# shared machine moves less.
# Usage: [RUNS=N] bench/btfhub.sh. Needs bpftool, xz, zstd, tar, python3.
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

. "$here/objs.sh"
core_objs "$root" "$tmp"

# The loops, as scripts run with bash.
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

cat > "$tmp/xz-only.sh" <<SH
for f in \$(find $tmp/archive -name '*.xz'); do xz -dc \$f > /dev/null; done
SH
# Alternating rounds (alternate.py): wall and CPU medians, then the ratios
# to bpftool-unpacked.
python3 "$here/alternate.py" "${RUNS:-10}" \
	"bash $tmp/bpftool-unpacked.sh" \
	"bash $tmp/btfgen.sh" \
	"$tmp/kmeta btf min -d $tmp/out $kobjs $tmp/archive" \
	"$tmp/kmeta btf min -d $tmp/out2 $kobjs $tmp/unpacked" \
	"bash $tmp/xz-only.sh" | tee "$tmp/times.txt"
awk -v names="bpftool-unpacked btfgen kmeta-tree kmeta-unpacked xz-only" '
	/wall med/ { n++; for (i = 1; i <= NF; i++) { if ($i == "med" && $(i-1) == "wall") w[n] = $(i+1); if ($i == "med" && $(i-1) == "cpu") c[n] = $(i+1) } }
	END { split(names, nm, " "); for (i = 1; i <= n; i++) printf "%s: wall %.3fx, CPU %.3fx of bpftool-unpacked\n", nm[i], w[i] / w[1], c[i] / c[1] }' "$tmp/times.txt"
