#!/usr/bin/env bash
# build-peers.sh DIR [TRIXIE]: the libbpf peers of the ninth campaign
# (cmd/kmeta/redteam9_test.go: libbpfdedup, libbpfcopy, libbpfdistill),
# built from their sources into DIR as static programs, as the build
# machine's libbpf 1.8 ones are (a dynamic program's peak RSS counts its
# shared libraries' pages: a looser bound for the writers' peaks).
#
# With TRIXIE, the Debian 13 tree trixie-tools.sh made (its libbpf-dev is
# libbpf 1.5), each is linked against that tree's libbpf.a and C library
# by the host's compiler (--sysroot), with the host's libelf.a: trixie's
# libelf.a (elfutils 0.192) refers to a helper library that Debian does
# not ship. Without TRIXIE, or where that fails, libbpfdedup and
# libbpfcopy are linked against the host's libbpf-dev (1.1 on Debian 12),
# and libbpfdistill is not built (btf__distill_base is libbpf 1.5's).
#
# Prints each program built and its libbpf. A program that does not build
# is left out (the campaign skips its peer), with a warning on stderr.
set -euo pipefail
DIR=${1:?usage: build-peers.sh DIR [TRIXIE]}
TRIXIE=${2:-}
cd "$(dirname "$0")/.."
mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build NAME SOURCE ARGS...: cc SOURCE into DIR/NAME with ARGS.
build() {
	local name=$1 src=$2
	shift 2
	if cc -O2 -static -o "$tmp/$name" "$src" "$@" 2>"$tmp/$name.err"; then
		mv "$tmp/$name" "$DIR/$name"
		return 0
	fi
	return 1
}

lib=$TRIXIE/usr/lib/x86_64-linux-gnu
for p in internal/dedup/testdata/libbpf/libbpfdedup.c bench/testdata/libbpfcopy.c bench/testdata/libbpfdistill.c; do
	name=$(basename "$p" .c)
	if [ -n "$TRIXIE" ] && [ -f "$lib/libbpf.a" ] &&
		build "$name" "$p" --sysroot="$TRIXIE" -B"$lib" -L"$lib" \
			"$lib/libbpf.a" /usr/lib/x86_64-linux-gnu/libelf.a "$lib/libz.a"; then
		echo "$DIR/$name: libbpf-dev $(dpkg-query --admindir="$TRIXIE/var/lib/dpkg" -W -f '${Version}' libbpf-dev) of $TRIXIE"
	elif [ "$name" != libbpfdistill ] && build "$name" "$p" -lbpf -lelf -lz; then
		echo "$DIR/$name: the host's libbpf-dev $(dpkg-query -W -f '${Version}' libbpf-dev)"
	elif [ "$name" = libbpfdistill ] && [ -z "$TRIXIE" ]; then
		echo "build-peers: $name not built: it needs libbpf 1.5 or later (TRIXIE's)" >&2
	else
		echo "build-peers: $name not built: $(head -c 300 "$tmp/$name.err" | tr '\n' ' ')" >&2
	fi
done
