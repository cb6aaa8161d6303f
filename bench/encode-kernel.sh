#!/usr/bin/env bash
# Checks "kmeta btf encode" against the BTF a kernel package ships, byte
# for byte: KDIR is one kernel's directory made by the shared fixtures'
# fetch-modern.sh (k612cloud/, k73cloud/): dbg/vmlinux and dbg/MOD.ko (the
# -dbg package's files, the encoder's input) and shipped/vmlinux.btf,
# shipped/MOD.btf (the .BTF of the shipped vmlinuz and .ko.xz). Every
# module is encoded on shipped/vmlinux.btf. With no option kmeta encodes
# as the kernel's own build did (the release is read from the input).
# JOBS lists the -j values (default "1 2 8"). Prints SAME or DIFF per
# file and -j; exits 1 if any differs. As root, the encoded vmlinux BTF is
# then loaded into the running kernel (BPF_BTF_LOAD, dwarf2btf's
# TestKernelAcceptsFiles).
# Usage: bench/encode-kernel.sh KDIR [MOD...]   (default MODs: af_key tun xfs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 KDIR [MOD...]" >&2; exit 2; }
k=$1; shift
mods=("$@"); [ ${#mods[@]} -gt 0 ] || mods=(af_key tun xfs)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/kmeta
(cd "$here/.." && CGO_ENABLED=0 go build -o "$bin" ./cmd/kmeta)
diff=0
check() { # name want args...
	local name=$1 want=$2; shift 2
	for j in ${JOBS:-1 2 8}; do
		rm -f "$tmp/k.btf"
		"$bin" btf encode "$@" -o "$tmp/k.btf" -j "$j" || true
		if cmp -s "$want" "$tmp/k.btf"; then
			echo "SAME $name -j$j"
		else
			echo "DIFF $name -j$j"; diff=$((diff + 1))
		fi
	done
}
for m in "${mods[@]}"; do
	check "$m" "$k/shipped/$m.btf" "$k/dbg/$m.ko" -B "$k/shipped/vmlinux.btf"
done
check vmlinux "$k/shipped/vmlinux.btf" "$k/dbg/vmlinux"
echo "$diff different"
if [ "$(id -u)" = 0 ]; then
	(cd "$here/.." && KMETA_LOAD_BTF="$tmp/k.btf" go test -count=1 -run TestKernelAcceptsFiles ./dwarf2btf/) || diff=$((diff + 1))
fi
[ "$diff" -eq 0 ]
