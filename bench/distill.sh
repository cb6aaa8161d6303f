#!/usr/bin/env bash
# Times "kmeta btf distill MODULE -B BASE -o OUT --base-out BASEOUT" against
# libbpf's btf__distill_base as a process (bench/testdata/libbpfdistill.c,
# built against libbpf 1.5 or later, statically: see its header), on the
# same inputs, whole processes alternated round by round (GNU time: medians
# of CPU time, user+sys, and peak RSS; bench/alternate.py's RSS would start
# at its Python's, above a small module's), after checking that both
# write the same two files byte for byte (libbpf 1.8's 32-byte header with
# an empty layout section counts as kmeta's 24-byte one). Prints one
# Markdown row per input with the ratios kmeta / libbpf.
#
# Usage: bench/distill.sh LIBBPFDISTILL [BASE MODULE]...
#   Without pairs: Debian 6.1's af_key, kvm, xfs and mlx5_core on their
#   vmlinux (testdata), then the hostile inputs of cmd/kmeta's
#   TestDistillPeakRSS and more (bench/distillgen: 100,000 structs split on
#   a chain of 100,000 pointers, typedefs, qualifiers or arrays, 3,000
#   nested records, a struct of 20,000 members, a struct that holds
#   itself). libbpf's btf__distill_base recurses once per level of a
#   chain: on the chains it overflows the default 8 MB stack, so they are
#   run under "ulimit -s unlimited" (and the crash is reported).
# Skips (exit 0) when LIBBPFDISTILL is not an executable.
# ROUNDS (default 5). KMETA: a kmeta binary to use instead of building one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LIBBPFDISTILL [BASE MODULE]..." >&2; exit 2; }
if [ ! -x "$1" ]; then
	echo "skip: no libbpf peer at $1 (build bench/testdata/libbpfdistill.c: see its header)"
	exit 0
fi
lib=$(realpath "$1")
shift
tmp=$(mktemp -d /dev/shm/kmeta-distill.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${KMETA:-$tmp/kmeta}
[ -n "${KMETA:-}" ] || (cd "$here/.." && go build -tags netgo,osusergo -o "$bin" ./cmd/kmeta) # static, as README installs it
pairs=("$@")
if [ ${#pairs[@]} -eq 0 ]; then
	mkdir "$tmp/in" "$tmp/hostile"
	tar xzf "$here/../testdata/btf/debian-6.1-modules.tar.gz" -C "$tmp/in"
	zcat "$here/../testdata/btf/debian-6.1.btf.gz" >"$tmp/in/vmlinux.btf"
	for m in af_key kvm xfs mlx5_core; do
		pairs+=("$tmp/in/vmlinux.btf" "$(find "$tmp/in" -name "$m.btf" | head -1)")
	done
	(cd "$here" && go run ./distillgen "$tmp/hostile")
	for b in "$tmp"/hostile/*-base.btf; do pairs+=("$b" "${b%-base.btf}-split.btf"); done
fi
norm() { python3 - "$@" <<'PY'
import struct, sys
for p in sys.argv[1:]:  # libbpf 1.8's 32-byte header, empty layout section: as 24 bytes
    b = open(p, 'rb').read()
    e = '<' if b[:2] == b'\x9f\xeb' else '>'
    if struct.unpack(e + 'I', b[4:8])[0] == 32 and b[24:32] == bytes(8):
        open(p, 'wb').write(b[:4] + struct.pack(e + 'I', 24) + b[8:24] + b[32:])
PY
}
echo "kmeta $bin, libbpf peer $lib; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| input | libbpf cpu, RSS | kmeta cpu, RSS | kmeta / libbpf |"
echo "| --- | --- | --- | --- |"
for ((i = 0; i < ${#pairs[@]}; i += 2)); do
	base=${pairs[i]} mod=${pairs[i + 1]}
	name=$(basename "$mod" .btf)
	stack=""
	if ! ("$lib" "$base" "$mod" "$tmp/l.btf" "$tmp/l.base"; exit $?) 2>/dev/null; then
		stack=" (libbpf needs ulimit -s unlimited)"
		(ulimit -s unlimited && "$lib" "$base" "$mod" "$tmp/l.btf" "$tmp/l.base")
	fi
	"$bin" btf distill "$mod" -B "$base" -o "$tmp/k.btf" --base-out "$tmp/k.base" --max-input 64M
	norm "$tmp/l.btf" "$tmp/l.base"
	cmp -s "$tmp/l.btf" "$tmp/k.btf" && cmp -s "$tmp/l.base" "$tmp/k.base" || { echo "$name: outputs differ" >&2; exit 1; }
	rm -f "$tmp/log"
	for r in $(seq "${ROUNDS:-5}"); do
		(ulimit -s unlimited && /usr/bin/time -o "$tmp/t" -f "%U %S %M" "$lib" "$base" "$mod" "$tmp/l.btf" "$tmp/l.base")
		echo "libbpf $(cat "$tmp/t")" >>"$tmp/log"
		/usr/bin/time -o "$tmp/t" -f "%U %S %M" "$bin" btf distill "$mod" -B "$base" -o "$tmp/k.btf" --base-out "$tmp/k.base" --max-input 64M
		echo "kmeta $(cat "$tmp/t")" >>"$tmp/log"
	done
	python3 - "$tmp/log" "$name$stack" <<'PY'
import statistics as st, sys
runs = {}
for line in open(sys.argv[1]):
    tool, user, sys_, kb = line.split()
    runs.setdefault(tool, []).append((float(user) + float(sys_), int(kb) / 1024))
(lc, lm), (kc, km) = [[st.median(r[i] for r in runs[t]) for i in range(2)] for t in ("libbpf", "kmeta")]
print(f"| {sys.argv[2]} | {lc*1e3:.0f} ms, {lm:.1f} MB | {kc*1e3:.0f} ms, {km:.1f} MB | {kc/lc:.2f}x cpu, {km/lm:.2f}x RSS |")
PY
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
