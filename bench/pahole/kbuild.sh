#!/usr/bin/env bash
# Builds a small kernel from Debian 13's linux-source-6.12 in a trixie chroot
# (tinyconfig plus DEBUG_INFO_BTF, DEBUG_INFO_BTF_MODULES, BPF_SYSCALL, a
# block layer and a few modules; reproducible: KBUILD_BUILD_TIMESTAMP, USER,
# HOST and VERSION fixed) with PAHOLE=pahole 1.30, then relinks vmlinux and
# every .ko with PAHOLE=kmeta (run as "pahole" through a symlink) and compares
# the two outputs: the .BTF and .BTF_ids of vmlinux and of each module, and
# the whole files. Only the steps that run pahole depend on it (vmlinux's
# link in link-vmlinux.sh, each .ko's Makefile.modfinal), so the second build
# removes vmlinux and the .ko files and runs make again on the same objects.
# Each pahole run's time and peak RSS are logged (chroot-tools.sh) and summed.
# Usage: bench/pahole/kbuild.sh CHROOT [KMETA]
#   CHROOT  as extmod.sh's, plus: linux-source-6.12 bc bison flex libelf-dev
#           libssl-dev cpio kmod python3 rsync
#   KMETA   a static kmeta binary (default: built from this tree)
# Needs root (chroot). JOBS (default nproc) sets make -j.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 CHROOT [KMETA]" >&2; exit 2; }
root=$1 kmeta=${2:-}
jobs=${JOBS:-$(nproc)}
. "$here/chroot-tools.sh"
src=/tmp/ksrc
if [ ! -e "$root$src/Makefile" ]; then
	rm -rf "$root$src"; mkdir -p "$root$src"
	tar -xaf "$root"/usr/src/linux-source-6.12.tar.* -C "$root$src" --strip-components=1
fi
repro=(KBUILD_BUILD_TIMESTAMP='2026-11-28 00:00:00 UTC' KBUILD_BUILD_USER=kmeta
	KBUILD_BUILD_HOST=kmeta KBUILD_BUILD_VERSION=1)
mk() { # mk TOOL TARGET...
	local t=$1; shift
	inroot "${repro[@]}" make -s -C "$src" -j"$jobs" CC=gcc-14 HOSTCC=gcc-14 \
		PAHOLE="/usr/local/bin/timed-$t" "$@"
}
mk pahole tinyconfig
cat >"$root$src/kmeta.config" <<'C'
CONFIG_64BIT=y
CONFIG_PRINTK=y
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_BLOCK=y
CONFIG_BPF_SYSCALL=y
CONFIG_DEBUG_KERNEL=y
CONFIG_DEBUG_INFO_DWARF5=y
CONFIG_DEBUG_INFO_BTF=y
CONFIG_DEBUG_INFO_BTF_MODULES=y
CONFIG_BLK_DEV_LOOP=m
CONFIG_BLK_DEV_NULL_BLK=m
CONFIG_EXT2_FS=m
CONFIG_CRC_ITU_T=m
CONFIG_CRC7=m
C
inroot sh -c "cd $src && scripts/kconfig/merge_config.sh -m .config kmeta.config >/dev/null"
mk pahole olddefconfig
for o in DEBUG_INFO_BTF DEBUG_INFO_BTF_MODULES BPF_SYSCALL BLK_DEV_LOOP EXT2_FS; do
	grep -E "^CONFIG_$o=[ym]" "$root$src/.config" || { echo "CONFIG_$o not set" >&2; exit 2; }
done
out() { # out TOOL: keeps this build's vmlinux and modules
	rm -rf "$root/tmp/kout-$1"; mkdir -p "$root/tmp/kout-$1"
	cp "$root$src/vmlinux" "$root/tmp/kout-$1/"
	(cd "$root$src" && find . -name '*.ko' -exec cp --parents {} "$root/tmp/kout-$1/" \;)
}
s=$(date +%s); mk pahole all; echo "build with pahole: $(( $(date +%s) - s )) s"
out pahole
cp "$root/tmp/btf-steps.log" "$root/tmp/btf-steps-pahole.log"; rm -f "$root/tmp/btf-steps.log"
find "$root$src" -name '*.ko' -delete; rm -f "$root$src"/vmlinux "$root$src"/.tmp_vmlinux*
s=$(date +%s); mk kmeta all; echo "relink with kmeta: $(( $(date +%s) - s )) s"
out kmeta
cp "$root/tmp/btf-steps.log" "$root/tmp/btf-steps-kmeta.log"
for t in pahole kmeta; do
	awk -v t=$t '$1 == t && / -J / { n++; s += $2; if ($3 > m) m = $3; if (/--btf_base/) { ms += $2 } else { v = $2; vm = $3 } }
		END { printf "%s: %d runs, %.2f s in all (vmlinux %.2f s, %d KB; modules %.2f s), peak RSS %d KB\n", t, n, s, v, vm, ms, m }' \
		"$root/tmp/btf-steps-$t.log"
done
bad=0
for f in $(cd "$root/tmp/kout-pahole" && find . -type f | sort); do
	p=$root/tmp/kout-pahole/$f k=$root/tmp/kout-kmeta/$f
	for sec in .BTF_ids .BTF; do # .BTF last: its size is printed
		objcopy -O binary --only-section=$sec "$p" /tmp/kbuild-p.sec
		objcopy -O binary --only-section=$sec "$k" /tmp/kbuild-k.sec
		cmp -s /tmp/kbuild-p.sec /tmp/kbuild-k.sec || { echo "DIFFERENT $sec of $f"; bad=1; }
	done
	if cmp -s "$p" "$k"; then echo "IDENTICAL $f ($(stat -c %s "$k") bytes, .BTF $(stat -c %s /tmp/kbuild-k.sec) bytes)"
	else echo "DIFFERENT file $f (.BTF $(stat -c %s /tmp/kbuild-k.sec) bytes)"; bad=1; fi
done
rm -f /tmp/kbuild-p.sec /tmp/kbuild-k.sec
exit $bad
