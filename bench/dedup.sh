#!/usr/bin/env bash
# Times "kmeta btf dedup -B" against libbpf 1.8's btf__add_btf + btf__dedup
# (internal/dedup/testdata/libbpf/libbpfdedup.c, as a process) on the same
# inputs, in alternating rounds, after checking that both outputs hold the
# same types and strings byte for byte (libbpf 1.8 writes a 32-byte header,
# kmeta a 24-byte one unless --layout: the bodies are compared). Prints the
# medians of wall time, CPU time (user+sys) and peak RSS (/usr/bin/time) of
# each, their ratios, and the load average before and after (targets,
# issue 26: time <= 0.4x, peak RSS <= 1.0x).
#
# Usage: bench/dedup.sh LIBBPFDEDUP [DIR]
#   LIBBPFDEDUP  libbpfdedup built against libbpf 1.8, for example:
#                make -C libbpf/src BUILD_STATIC_ONLY=y OBJDIR=$T/obj DESTDIR=$T/inst install
#                cc -O2 -I $T/inst/usr/include -o libbpfdedup \
#                   internal/dedup/testdata/libbpf/libbpfdedup.c $T/inst/usr/lib64/libbpf.a -lelf -lz
#   DIR          vmlinux.btf and module BTF files below it (every *.btf but
#                vmlinux.btf, in C sort order), e.g. fetch-debian-kernel.sh's
#                OUTDIR; default: the 1,121 Debian 6.1 cloud modules of
#                testdata, unpacked into a temporary directory.
# ROUNDS (default 7). KMETA: a kmeta binary to use instead of building one.
# RT=1 runs both at real-time priority (chrt -f 10, as root): on a machine
# that other work keeps busy, each then runs as on an idle one (the
# kernel still keeps 5% of each second for the others).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LIBBPFDEDUP [DIR]" >&2; exit 2; }
lib=$(realpath "$1")
tmp=$(mktemp -d /dev/shm/kmeta-dedup.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${KMETA:-$tmp/kmeta}
[ -n "${KMETA:-}" ] || (cd "$here/.." && go build -tags netgo,osusergo -o "$bin" ./cmd/kmeta) # static, as README installs it
if [ $# -ge 2 ]; then
	dir=$(realpath "$2")
	base=$dir/vmlinux.btf
	[ -s "$base" ] || base=$(dirname "$dir")/vmlinux.btf # fetch-debian-kernel.sh's modules-btf/
else
	dir=$tmp/in
	mkdir "$dir"
	tar xzf "$here/../testdata/btf/debian-6.1-modules.tar.gz" -C "$dir"
	base=$dir/vmlinux.btf
	zcat "$here/../testdata/btf/debian-6.1.btf.gz" >"$base"
fi
(cd "$dir" && find . -name '*.btf' ! -name vmlinux.btf | LC_ALL=C sort) >"$tmp/list"
mods=()
while read -r f; do mods+=("$dir/${f#./}"); done <"$tmp/list"
echo "$(basename "$base") + ${#mods[@]} modules; $("$lib" -V | sed 's/^/libbpf /'); load: $(cut -d' ' -f1-3 /proc/loadavg)${RT:+; real-time priority}"

"$bin" btf dedup -B "$base" -o "$tmp/k.btf" "${mods[@]}"
"$lib" -B "$base" -o "$tmp/l.btf" "${mods[@]}"
body() { tail -c +$((1 + $(od -An -tu4 -j4 -N4 "$1"))) "$1"; } # after hdr_len
cmp <(body "$tmp/k.btf") <(body "$tmp/l.btf") || { echo "outputs differ" >&2; exit 1; }
echo "outputs equal ($(stat -c %s "$tmp/k.btf") bytes)"

rt=()
[ -z "${RT:-}" ] || rt=(chrt -f 10)
for r in $(seq "${ROUNDS:-7}"); do
	/usr/bin/time -o "$tmp/t" -f "%e %U %S %M" "${rt[@]}" "$lib" -B "$base" -o "$tmp/l.btf" "${mods[@]}"
	echo "libbpf $(cat "$tmp/t")" >>"$tmp/log"
	/usr/bin/time -o "$tmp/t" -f "%e %U %S %M" "${rt[@]}" "$bin" btf dedup -B "$base" -o "$tmp/k.btf" "${mods[@]}"
	echo "kmeta $(cat "$tmp/t")" >>"$tmp/log"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/log" <<'PY'
import statistics as st, sys
runs = {}
for line in open(sys.argv[1]):
    tool, wall, user, sys_, kb = line.split()
    runs.setdefault(tool, []).append((float(wall), float(user) + float(sys_), int(kb) / 1024))
med = {t: [st.median(r[i] for r in rs) for i in range(3)] for t, rs in runs.items()}
print("| | wall s | cpu s | peak RSS MiB |")
print("| --- | --- | --- | --- |")
for t in ("libbpf", "kmeta"):
    w, c, m = med[t]
    print(f"| {t} ({len(runs[t])} rounds, medians) | {w:.3f} | {c:.3f} | {m:.1f} |")
(lw, lc, lm), (kw, kc, km) = med["libbpf"], med["kmeta"]
print(f"| kmeta / libbpf | {kw/lw:.2f}x | {kc/lc:.2f}x | {km/lm:.2f}x |")
PY
