#!/usr/bin/env bash
# Builds the out-of-tree module of bench/pahole/extmod (structs, a per-CPU
# variable, a kfunc) with Debian 13's linux-headers and gcc-14 in a trixie
# chroot, twice: with PAHOLE=pahole (1.30, the chroot's) and with
# PAHOLE=kmeta run as "pahole" (a symlink), and compares the two .ko files
# byte for byte (.BTF, .BTF.base and .BTF_ids included). The kernel's
# vmlinux is copied into the headers tree, which is what makes kbuild run
# pahole (with --btf_features=distilled_base for an external module) and
# resolve_btfids. Each pahole run's time and peak RSS are logged.
# Usage: bench/pahole/extmod.sh CHROOT KV VMLINUX [KMETA]
#   CHROOT   made by: mmdebstrap --variant=apt --include=gcc-14,make,libc6-dev,\
#            linux-headers-KV,pahole,binutils,kmod,xz-utils,zstd trixie CHROOT
#   KV       the headers' release (6.12.118+deb13-cloud-amd64)
#   VMLINUX  that kernel's vmlinux (with .BTF: fetch-modern.sh's k612cloud/vmlinux)
#   KMETA    a static kmeta binary (default: built from this tree)
# Needs root (chroot).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { echo "usage: $0 CHROOT KV VMLINUX [KMETA]" >&2; exit 2; }
root=$1 kv=$2 vmlinux=$3 kmeta=${4:-}
hdr=/usr/src/linux-headers-$kv
[ -d "$root$hdr" ] || { echo "no $hdr in $root" >&2; exit 2; }
if [ -z "$kmeta" ]; then
	kmeta=$(mktemp); trap 'rm -f "$kmeta"' EXIT
	(cd "$here/../.." && CGO_ENABLED=0 go build -tags netgo,osusergo -o "$kmeta" ./cmd/kmeta)
fi
cp "$vmlinux" "$root$hdr/vmlinux"
install -m 755 "$kmeta" "$root/usr/local/bin/kmeta"
mkdir -p "$root/opt/kmeta"; ln -sf /usr/local/bin/kmeta "$root/opt/kmeta/pahole"
cp /usr/bin/time "$root/usr/local/bin/gtime" # GNU time: only libc
# Wrappers that log each pahole run: "TOOL seconds KB".
for t in pahole:/usr/bin/pahole kmeta:/opt/kmeta/pahole; do
	cat >"$root/usr/local/bin/timed-${t%%:*}" <<W
#!/bin/sh
exec /usr/local/bin/gtime -a -o /tmp/btf-steps.log -f "${t%%:*} %e %M" ${t#*:} "\$@"
W
	chmod +x "$root/usr/local/bin/timed-${t%%:*}"
done
rm -f "$root/tmp/btf-steps.log"
for t in pahole kmeta; do
	rm -rf "$root/tmp/kmt-$t"; mkdir -p "$root/tmp/kmt-$t"
	cp "$here/extmod/"* "$root/tmp/kmt-$t/"
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		make -s -C "$hdr" M="/tmp/kmt-$t" CC=gcc-14 PAHOLE="/usr/local/bin/timed-$t" modules
done
cat "$root/tmp/btf-steps.log"
p=$root/tmp/kmt-pahole/kmt.ko k=$root/tmp/kmt-kmeta/kmt.ko
readelf -SW "$p" | grep -E '\.BTF' || true
if cmp "$p" "$k"; then echo "IDENTICAL kmt.ko ($(stat -c %s "$k") bytes)"; else echo "DIFFERENT kmt.ko"; exit 1; fi
