# Sourced by extmod.sh and kbuild.sh: installs a static kmeta in the
# chroot $root as /opt/kmeta/pahole (a symlink, so it runs as pahole) and two
# wrappers, /usr/local/bin/timed-pahole and timed-kmeta, that log every run
# to /tmp/btf-steps.log as "TOOL seconds peakKB command line" (GNU time).
# Needs: $root, $kmeta (empty: built from this tree), $here (bench/pahole).
if [ -z "$kmeta" ]; then
	kmeta=$(mktemp); trap 'rm -f "$kmeta"' EXIT
	(cd "$here/../.." && CGO_ENABLED=0 go build -tags netgo,osusergo -o "$kmeta" ./cmd/kmeta)
fi
install -m 755 "$kmeta" "$root/usr/local/bin/kmeta"
mkdir -p "$root/opt/kmeta"; ln -sf /usr/local/bin/kmeta "$root/opt/kmeta/pahole"
cp /usr/bin/time "$root/usr/local/bin/gtime" # GNU time: only libc
for t in pahole:/usr/bin/pahole kmeta:/opt/kmeta/pahole; do
	cat >"$root/usr/local/bin/timed-${t%%:*}" <<W
#!/bin/sh
exec /usr/local/bin/gtime -a -o /tmp/btf-steps.log -f "${t%%:*} %e %M %C" ${t#*:} "\$@"
W
	chmod +x "$root/usr/local/bin/timed-${t%%:*}"
done
rm -f "$root/tmp/btf-steps.log"
# inroot CMD...: runs CMD in the chroot with a clean environment.
inroot() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"
}
