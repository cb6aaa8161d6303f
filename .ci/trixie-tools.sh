#!/usr/bin/env bash
# trixie-tools.sh DIR: Debian 13's bpftool 7.5 (and pahole 1.30) for the
# tests that compare with them, run on this Debian 12 machine from a
# minimal trixie tree in DIR through its own dynamic loader (nothing is
# mounted; host paths work as arguments). Prints the wrappers' directory,
# DIR/bin. The tree, DIR/trixie, also holds libbpf-dev 1.5 and its C
# library, which build-peers.sh links the libbpf peers against. Debian's
# mirrors are taken from this machine's apt configuration. Needs root and
# mmdebstrap (apt-get installs it).
set -euo pipefail
DIR=${1:?usage: trixie-tools.sh DIR}
mkdir -p "$DIR/bin"
DIR=$(cd "$DIR" && pwd)
command -v mmdebstrap >/dev/null || apt-get install -y -qq mmdebstrap >/dev/null
targets=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' | sort -u)
main=$(awk '$2 !~ /-(security|updates|backports)$/ {print $1; exit}' <<<"$targets")
sec=$(awk '$2 ~ /-security$/ {print $1; exit}' <<<"$targets")
[ -n "$main" ] || { echo "trixie-tools: no Debian mirror in apt's configuration" >&2; exit 1; }
[ -n "$sec" ] || sec=${main%/debian/}/debian-security/
root=$DIR/trixie
if [ ! -x "$root/usr/sbin/bpftool" ] || [ ! -f "$root/usr/lib/x86_64-linux-gnu/libbpf.a" ]; then
	rm -rf "$root.tmp"
	mmdebstrap --quiet --variant=apt --include=pahole,bpftool,libbpf-dev,libc6-dev trixie "$root.tmp" \
		"deb $main trixie main" "deb $main trixie-updates main" "deb $sec trixie-security main" >&2
	rm -rf "$root"
	mv "$root.tmp" "$root"
fi
for tool in usr/sbin/bpftool usr/bin/pahole; do
	cat >"$DIR/bin/${tool##*/}" <<WRAP
#!/bin/sh
exec "$root/lib64/ld-linux-x86-64.so.2" --library-path "$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu" "$root/$tool" "\$@"
WRAP
	chmod +x "$DIR/bin/${tool##*/}"
done
"$DIR/bin/bpftool" version >&2
echo "$DIR/bin"
