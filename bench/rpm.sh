#!/usr/bin/env bash
# Checks kmeta on RPM kernel packages built from a real kernel (issue 38):
# rpmbuild makes, with testdata/kimage/rpm's spec files, a kernel-core RPM
# of the kernel image VMLINUZ (in /lib/modules/RELEASE/vmlinuz, as Fedora
# lays it out) and the module MODULE (a .ko.xz), once per payload
# compression (gzip, xz, zstd), and a kernel-debuginfo RPM of the vmlinux
# with DWARF VMLINUX (zstd payload). Then, against SHIPPED, the kernel's
# own BTF (/sys/kernel/btf/vmlinux as the package's kernel shows it):
#   kmeta btf dump KERNEL-CORE.rpm       = bpftool btf dump file SHIPPED
#   kmeta btf modules --package, btf find --kernel --package (the module)
#   kmeta btf encode KERNEL-DEBUGINFO.rpm = SHIPPED, byte for byte
# and times each kmeta run (with peak RSS) with /usr/bin/time.
# Usage: bench/rpm.sh VMLINUZ MODULE VMLINUX SHIPPED
# (Debian 13's 6.12 cloud kernel: fetch-modern.sh's k612cloud/img/boot/
# vmlinuz-*, img/usr/lib/modules/*/kernel/net/key/af_key.ko.xz, dbg/vmlinux
# and shipped/vmlinux.btf.) Needs rpmbuild (Debian's rpm), bpftool.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
spec="$here/../testdata/kimage/rpm"
[ $# -eq 4 ] || { echo "usage: $0 VMLINUZ MODULE VMLINUX SHIPPED" >&2; exit 2; }
vmlinuz=$1 module=$2 vmlinux=$3 shipped=$4
rel=$(basename "$vmlinuz"); rel=${rel#vmlinuz-}
kver=${rel%%-*} krelease=${rel#*-}
kmod=$(basename "$module" .ko.xz)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$here/.." && CGO_ENABLED=0 go build -o "$tmp/kmeta" ./cmd/kmeta)
mkdir "$tmp/SOURCES"
cp "$vmlinuz" "$tmp/SOURCES/vmlinuz"
cp "$module" "$tmp/SOURCES/$kmod.ko.xz"
ln -s "$(realpath "$vmlinux")" "$tmp/SOURCES/vmlinux"
build() { # SPEC PAYLOAD OUT
	rpmbuild -bb --quiet --target x86_64 --define "_topdir $tmp" --define "_binary_payload $2" \
		--define "kver $kver" --define "krelease $krelease" --define "kmod $kmod" "$spec/$1" >/dev/null
	mv "$tmp"/RPMS/x86_64/*.rpm "$tmp/$3"
}
t() { /usr/bin/time -f "  %e s, %M KB peak RSS" "$@"; }
bpftool btf dump file "$shipped" > "$tmp/want.txt"
for p in w9.gzdio w6.xzdio w19.zstdio; do
	build kernel-core.spec "$p" core.rpm
	echo "kernel-core ($p, $(stat -c %s "$tmp/core.rpm") bytes): btf dump"
	t "$tmp/kmeta" btf dump "$tmp/core.rpm" > "$tmp/got.txt"
	cmp "$tmp/want.txt" "$tmp/got.txt" && echo "  SAME as bpftool's dump of $shipped"
	"$tmp/kmeta" btf modules --package "$tmp/core.rpm"
	"$tmp/kmeta" btf find --kernel --package "$tmp/core.rpm" sock | head -1
done
build kernel-debuginfo.spec w3.zstdio debuginfo.rpm
echo "kernel-debuginfo (zstd, $(stat -c %s "$tmp/debuginfo.rpm") bytes): btf encode"
t "$tmp/kmeta" btf encode "$tmp/debuginfo.rpm" -o "$tmp/enc.btf"
cmp "$tmp/enc.btf" "$shipped" && echo "  SAME bytes as $shipped"
