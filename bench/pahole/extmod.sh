#!/usr/bin/env bash
# Builds the out-of-tree module of bench/pahole/extmod (structs, a per-CPU
# variable, a kfunc) with Debian 13's linux-headers and gcc-14 in a trixie
# chroot, twice: with PAHOLE=pahole (1.30, the chroot's) and with
# PAHOLE=kmeta run as "pahole" (a symlink), and compares the two .ko files
# byte for byte (.BTF, .BTF.base and .BTF_ids included). The kernel's
# vmlinux is copied into the headers tree, which is what makes kbuild run
# pahole (with --btf_features=distilled_base for an external module) and
# resolve_btfids. Each pahole run's time and peak RSS are logged
# (chroot-tools.sh).
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
cp "$vmlinux" "$root$hdr/vmlinux"
. "$here/chroot-tools.sh"
# Both builds run in the same directory: its path is in the DWARF
# (.debug_line_str), so two directories would give two different files.
for t in pahole kmeta; do
	rm -rf "$root/tmp/kmt"; mkdir -p "$root/tmp/kmt"
	cp "$here/extmod/"* "$root/tmp/kmt/"
	inroot make -s -C "$hdr" M=/tmp/kmt CC=gcc-14 PAHOLE="/usr/local/bin/timed-$t" modules
	cp "$root/tmp/kmt/kmt.ko" "$root/tmp/kmt-$t.ko"
done
cat "$root/tmp/btf-steps.log"
p=$root/tmp/kmt-pahole.ko k=$root/tmp/kmt-kmeta.ko
readelf -SW "$p" | grep -E '\.BTF' || true
if cmp "$p" "$k"; then echo "IDENTICAL kmt.ko ($(stat -c %s "$k") bytes)"; else echo "DIFFERENT kmt.ko"; exit 1; fi
