#!/usr/bin/env bash
# Checks "kmeta btf dump" of every architecture's kernel image package
# against bpftool's dump of the .BTF section of the same package's -dbg
# vmlinux (objcopy --dump-section .BTF), byte for byte (issue 38):
#   - the image package itself (arm64 Image, riscv64 EFI Image, s390x
#     compressed image, ppc64el ELF vmlinux, armhf zImage);
#   - its boot/vmlinuz (or vmlinux) alone;
#   - the package again with the -dbg package's real System.map in place of
#     Debian's placeholder, so that __start_BTF/__stop_BTF locate the BTF
#     and check the scan;
#   - for arm64, the Image gzip'ed (Image.gz, as arch/arm64/boot/Makefile
#     makes it) and wrapped as an EFI zboot image (the header of
#     drivers/firmware/efi/libstub/zboot-header.S around a gzip payload,
#     written by hand below: Debian ships none).
# A kernel built without BTF (armhf) must fail with one line and exit 2,
# as its -dbg vmlinux has no .BTF. Prints SAME, DIFF or NOBTF per input,
# with kmeta's time and peak RSS; exits 1 if any differs.
# Usage: bench/arch-images.sh DEBDIR [ARCH...]
#   DEBDIR holds linux-image-*_ARCH.deb and linux-image-*-dbg_*_ARCH.deb
#   (default ARCHs: arm64 riscv64 s390x ppc64el armhf).
# BPFTOOL (default /work/data/modern/bin/bpftool, 7.5) is the oracle;
# WORK (default a temporary directory) keeps the unpacked -dbg files.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 DEBDIR [ARCH...]" >&2; exit 2; }
debs=$1; shift
arches=("$@"); [ ${#arches[@]} -gt 0 ] || arches=(arm64 riscv64 s390x ppc64el armhf)
bpftool=${BPFTOOL:-/work/data/modern/bin/bpftool}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=${WORK:-$tmp}
bin=$tmp/kmeta
(cd "$here/.." && CGO_ENABLED=0 go build -o "$bin" ./cmd/kmeta)
diff=0

# zboot OUT PAYLOAD COMP MACHINE: an EFI zboot image around PAYLOAD.
zboot() {
	python3 - "$@" <<'PY'
import struct, sys
out, payload, comp, machine = sys.argv[1], open(sys.argv[2], 'rb').read(), sys.argv[3].encode(), int(sys.argv[4], 0)
off = 0x1000
hdr = bytearray(off)
hdr[0:2] = b'MZ'
hdr[4:8] = b'zimg'
# payload size leaves out the le32 size the build appends to all but gzip
size = len(payload) - (0 if comp == b'gzip' else 4)
struct.pack_into('<II', hdr, 8, off, size)
hdr[24:24 + len(comp)] = comp
struct.pack_into('<II', hdr, 0x38, 0x818223cd, 0x40)    # LINUX_PE_MAGIC, PE header offset
hdr[0x40:0x44] = b'PE\0\0'
struct.pack_into('<HHIIIHH', hdr, 0x44, machine, 0, 0, 0, 0, 0, 0x206)
open(out, 'wb').write(bytes(hdr) + payload)
PY
}

# check NAME INPUT WANT: kmeta btf dump INPUT against the file WANT.
check() {
	local name=$1 in=$2 want=$3
	if ! /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" btf dump "$in" >"$tmp/got" 2>"$tmp/err"; then
		echo "FAIL $name: $(cat "$tmp/err")"; diff=$((diff + 1)); return
	fi
	read -r secs kb <"$tmp/time"
	if cmp -s "$want" "$tmp/got"; then
		echo "SAME $name ($(wc -l <"$want") lines; kmeta ${secs}s, ${kb} KB)"
	else
		echo "DIFF $name"; diff=$((diff + 1))
	fi
}

# nobtf NAME INPUT: kmeta must fail with one line and exit 2.
nobtf() {
	local name=$1 in=$2 rc=0
	"$bin" btf dump "$in" >/dev/null 2>"$tmp/err" || rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ]; then
		echo "NOBTF $name (exit 2): $(cat "$tmp/err")"
	else
		echo "DIFF $name: exit $rc, $(wc -l <"$tmp/err") lines of error"; diff=$((diff + 1))
	fi
}

for arch in "${arches[@]}"; do
	img=$(ls "$debs"/linux-image-*_"$arch".deb | grep -v -- '-dbg_' | head -1)
	dbgdeb=$(ls "$debs"/linux-image-*-dbg_*_"$arch".deb | head -1)
	d=$work/$arch
	mkdir -p "$d/img"
	if [ ! -s "$d/System.map" ]; then
		dpkg-deb --fsys-tarfile "$dbgdeb" | tar -x -C "$d" --wildcards './usr/lib/debug/boot/*'
		mv "$d"/usr/lib/debug/boot/vmlinux-* "$d/vmlinux"
		mv "$d"/usr/lib/debug/boot/System.map-* "$d/System.map"
		rm -rf "$d/usr"
	fi
	dpkg-deb -R "$img" "$d/img"
	kimg=$(ls "$d"/img/boot/vmlinu[xz]-*)
	if ! objcopy --dump-section .BTF="$d/vmlinux.btf" "$d/vmlinux" 2>/dev/null; then
		nobtf "$arch package" "$img"
		nobtf "$arch $(basename "$kimg")" "$kimg"
		continue
	fi
	"$bpftool" btf dump file "$d/vmlinux.btf" >"$d/want.txt"
	check "$arch package" "$img" "$d/want.txt"
	check "$arch $(basename "$kimg")" "$kimg" "$d/want.txt"
	cp "$d/System.map" "$d"/img/boot/System.map-*
	dpkg-deb -Zxz -z1 -b "$d/img" "$tmp/sysmap.deb" >/dev/null
	check "$arch package with the -dbg System.map" "$tmp/sysmap.deb" "$d/want.txt"
	if [ "$arch" = arm64 ]; then
		gzip -9 -n -c "$kimg" >"$tmp/Image.gz"
		check "arm64 Image.gz" "$tmp/Image.gz" "$d/want.txt"
		zboot "$tmp/vmlinuz.efi" "$tmp/Image.gz" gzip 0xaa64
		check "arm64 EFI zboot (gzip)" "$tmp/vmlinuz.efi" "$d/want.txt"
		{ zstd -19 -q -c "$kimg"; python3 -c 'import os,struct,sys; sys.stdout.buffer.write(struct.pack("<I", os.path.getsize(sys.argv[1])))' "$kimg"; } >"$tmp/Image.zst"
		zboot "$tmp/vmlinuz.efi" "$tmp/Image.zst" zstd22 0xaa64
		check "arm64 EFI zboot (zstd)" "$tmp/vmlinuz.efi" "$d/want.txt"
	fi
	rm -rf "$d/img"
done
echo "$diff different"
[ "$diff" = 0 ]
