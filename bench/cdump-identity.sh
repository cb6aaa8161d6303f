#!/usr/bin/env bash
# Checks "kmeta btf dump --format c" against bpftool 7.5 (Debian 13's) and
# Debian 12's bpftool 7.1 on vmlinux-sized BTF and modules, byte for byte:
#   --unsorted             = bpftool 7.5 "format c unsorted"
#   (default, sorted)      = bpftool 7.5 "format c" plus one declaration, the
#                            type that sorts first, which bpftool 7.5 leaves
#                            out (kmeta prints it right after the macros)
#   --compat bpftool-7.1   = bpftool 7.1 "format c" (if bpftool 7.1 is there)
# then, with TIME=1, times kmeta against bpftool 7.5 on each vmlinux with
# hyperfine (sorted, to /dev/null).
#
# Usage: bench/cdump-identity.sh [DIR]
# DIR is what ../shared/fixtures/fetch-modern.sh filled (default
# $KMETA_MODERN): DIR/bin/bpftool is bpftool 7.5, and DIR/k612cloud and
# DIR/k73cloud hold the BTF that Debian's 6.12 and 7.3 cloud kernels ship
# (shipped/vmlinux.btf and the modules shipped/{af_key,tun,xfs}.btf). The
# running kernel's /sys/kernel/btf/vmlinux is checked too. BPFTOOL71 names
# bpftool 7.1 (default: bpftool on the PATH, if it is 7.1).
# Prints one line per check (SAME or DIFF) and a count; exits 1 if any
# differs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-${KMETA_MODERN:-}}
[ -n "$dir" ] || { echo "usage: $0 DIR (or set KMETA_MODERN)" >&2; exit 2; }
b75=$dir/bin/bpftool
# (the versions are read whole: grep -q would close the pipe early, and
# pipefail would see bpftool's SIGPIPE)
case $("$b75" version) in *" v7.5."*) ;; *) echo "$b75 is not bpftool 7.5" >&2; exit 2 ;; esac
b71=${BPFTOOL71:-$(command -v bpftool || true)}
if [ -n "$b71" ]; then
	case $("$b71" version) in *" v7.1."*) ;; *) b71= ;; esac
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/kmeta
(cd "$here/.." && CGO_ENABLED=0 go build -o "$bin" ./cmd/kmeta) # static, as README installs it

same=0 diff=0
verdict() { # name ok
	if [ "$2" = 0 ]; then
		echo "SAME $1"; same=$((same + 1))
	else
		echo "DIFF $1"; diff=$((diff + 1))
	fi
}

# check NAME FILE [BASE]
check() {
	local name=$1 file=$2 base=${3:-} bB=() kB=() ok
	if [ -n "$base" ]; then bB=(-B "$base"); kB=(-B "$base"); fi
	"$b75" "${bB[@]}" btf dump file "$file" format c unsorted >"$tmp/u75.h"
	"$bin" btf dump "$file" "${kB[@]}" --format c --unsorted >"$tmp/ukm.h"
	ok=0; cmp -s "$tmp/u75.h" "$tmp/ukm.h" || ok=1
	verdict "$name unsorted" $ok

	"$b75" "${bB[@]}" btf dump file "$file" format c >"$tmp/s75.h"
	"$bin" btf dump "$file" "${kB[@]}" --format c >"$tmp/skm.h"
	# bpftool's header must be kmeta's without one declaration, right
	# after the 16 lines of header and macros: one "17,Nd16" hunk.
	ok=0
	diff "$tmp/skm.h" "$tmp/s75.h" >"$tmp/d" && ok=1 # no difference at all is wrong too
	if [ $ok = 0 ]; then
		hunks=$(grep -c '^[0-9]' "$tmp/d" || true)
		head=$(head -1 "$tmp/d")
		if [ "$hunks" != 1 ] || ! [[ $head =~ ^17,[0-9]+d16$ ]]; then ok=1; fi
	fi
	verdict "$name sorted (kmeta adds: $(sed -n 2p "$tmp/d" | tr -d "<\t "))" $ok

	if [ -n "$b71" ]; then
		"$b71" "${bB[@]}" btf dump file "$file" format c >"$tmp/c71.h"
		"$bin" btf dump "$file" "${kB[@]}" --format c --compat bpftool-7.1 >"$tmp/ckm.h"
		ok=0; cmp -s "$tmp/c71.h" "$tmp/ckm.h" || ok=1
		verdict "$name --compat bpftool-7.1" $ok
	fi
}

vmlinuxes=()
for k in k612cloud k73cloud; do
	s=$dir/$k/shipped
	[ -f "$s/vmlinux.btf" ] || { echo "no $s/vmlinux.btf" >&2; exit 2; }
	check "$k vmlinux" "$s/vmlinux.btf"
	vmlinuxes+=("$s/vmlinux.btf")
	for m in af_key tun xfs; do
		check "$k $m" "$s/$m.btf" "$s/vmlinux.btf"
	done
done
if [ -r /sys/kernel/btf/vmlinux ]; then
	check "running kernel $(uname -r)" /sys/kernel/btf/vmlinux
	vmlinuxes+=(/sys/kernel/btf/vmlinux)
fi
[ -n "$b71" ] || echo "(no bpftool 7.1: --compat bpftool-7.1 not checked)"
echo "$same same, $diff different"

if [ "${TIME:-}" = 1 ] && command -v hyperfine >/dev/null; then
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
	for f in "${vmlinuxes[@]}"; do
		hyperfine --warmup 2 --runs "${RUNS:-15}" -N --output=null \
			-n "kmeta $f" "$bin btf dump $f --format c" \
			-n "kmeta --unsorted" "$bin btf dump $f --format c --unsorted" \
			-n "bpftool 7.5" "$b75 btf dump file $f format c" \
			-n "bpftool 7.5 unsorted" "$b75 btf dump file $f format c unsorted" >&2
	done
fi
[ "$diff" -eq 0 ]
