#!/usr/bin/env bash
# "kmeta btf encode --each" over every module of a -dbg package's tree,
# against pahole 1.30 processes over the same modules run two at a time
# (as make -j2 runs them; for 7.x each followed by resolve_btfids --btf, as
# scripts/gen-btf.sh does). Prints the wall time of each whole run, the
# peak RSS of kmeta and of the largest pahole (and resolve_btfids)
# process, and checks every kmeta output against the .BTF that the image
# package's module (MOD.ko.xz) ships, and pahole's too.
# Usage: bench/pahole/each.sh PAHOLE RESOLVE_BTFIDS DBGTREE IMGTREE BASE KIND
#   DBGTREE  the -dbg package's unpacked modules (usr/lib/debug/lib/modules/KV)
#   IMGTREE  the image (or modules) package's (usr/lib/modules/KV)
#   BASE     the shipped vmlinux BTF (fetch-modern.sh's shipped/vmlinux.btf)
#   KIND     6.12 or 7 (which kbuild's flags and steps)
# PAR=N (default 2) runs N pahole processes at a time.
# STEP=N (default 1) times pahole, and kmeta beside it, on every Nth module
# only: on a loaded machine a thousand pahole processes take an hour.
# kmeta's run over all modules is timed and checked in every case, unless
# ALL=0: then only the subset's outputs are checked.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 6 ] || { echo "usage: $0 PAHOLE RESOLVE_BTFIDS DBGTREE IMGTREE BASE 6.12|7" >&2; exit 2; }
pahole=$1 rbi=$2 dbg=$3 img=$4 base=$5 kind=$6
tmp=$(mktemp -d); [ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT  # KEEP=1 keeps the outputs
(cd "$here" && CGO_ENABLED=0 go build -tags netgo,osusergo -o "$tmp/kmeta" ./cmd/kmeta)
feat=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func
[ "$kind" = 7 ] || feat=$feat,decl_tag_kfuncs
export pahole rbi base kind feat tmp
find "$dbg" -name '*.ko' | sort >"$tmp/mods"
n=$(wc -l <"$tmp/mods")
echo "$n modules; load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
mkdir -p "$tmp/k" "$tmp/p" "$tmp/w" "$tmp/s"

awk -v s="${STEP:-1}" '(NR - 1) % s == 0' "$tmp/mods" >"$tmp/sub"
ns=$(wc -l <"$tmp/sub")
# kmeta, one process for all.
if [ "${ALL:-1}" = 1 ]; then
	/usr/bin/time -o "$tmp/kt" -f "%e %M %U %S" "$tmp/kmeta" btf encode --each -B "$base" -d "$tmp/k" "$dbg"
else
	cp "$tmp/sub" "$tmp/mods.all"; cp "$tmp/sub" "$tmp/mods"; n=$(wc -l <"$tmp/mods"); echo "0 0 0 0" >"$tmp/kt"
fi
# The subset timed against pahole: kmeta on it, then pahole, one process
# per module, two at a time.
mkdir -p "$tmp/ks" "$tmp/subdir"
while read -r m; do ln -s "$m" "$tmp/subdir/$(basename "$m")"; done <"$tmp/sub"
/usr/bin/time -o "$tmp/kst" -f "%e %M %U %S" "$tmp/kmeta" btf encode --each -B "$base" -d "$tmp/ks" "$tmp/subdir"
one() {
	m=$1 name=$(basename "$1" .ko)
	ln -s "$m" "$tmp/w/$name.ko"
	/usr/bin/time -a -o "$tmp/pt" -f "pahole %e %M %U %S" "$pahole" -J -j --btf_features=$feat -j \
		--btf_features=+reproducible_build --lang_exclude=rust --btf_base "$base" \
		--btf_encode_detached="$tmp/w/$name.BTF.1" "$tmp/w/$name.ko"
	if [ "$kind" = 7 ]; then
		/usr/bin/time -a -o "$tmp/pt" -f "resolve_btfids %e %M %U %S" "$rbi" --btf "$tmp/w/$name.BTF.1" \
			--btf_base "$base" "$tmp/w/$name.ko" >/dev/null
		mv "$tmp/w/$name.ko.BTF" "$tmp/p/$name.btf"
	else
		mv "$tmp/w/$name.BTF.1" "$tmp/p/$name.btf"
	fi
	rm -f "$tmp/w/$name".*
}
export -f one
start=$(date +%s.%N)
xargs -P"${PAR:-2}" -I{} bash -c 'one {}' <"$tmp/sub"
end=$(date +%s.%N)

# The shipped .BTF of every module.
find "$img" -name '*.ko.xz' | xargs -P2 -I{} sh -c \
	'n=$(basename {} .ko.xz); xz -dc {} >"$0/s/$n.ko" && objcopy --dump-section .BTF="$0/s/$n.btf" "$0/s/$n.ko" /dev/null; rm -f "$0/s/$n.ko"' "$tmp"
ksame=0 psame=0
while read -r m; do
	name=$(basename "$m" .ko)
	k=$tmp/k/$name.btf; [ "${ALL:-1}" = 1 ] || k=$tmp/ks/$name.btf
	cmp -s "$k" "$tmp/s/$name.btf" && ksame=$((ksame + 1)) || echo "kmeta differs from the shipped: $name"
done <"$tmp/mods"
while read -r m; do
	name=$(basename "$m" .ko)
	cmp -s "$tmp/p/$name.btf" "$tmp/s/$name.btf" && psame=$((psame + 1)) || echo "pahole differs from the shipped: $name"
done <"$tmp/sub"
read -r kt km ku ks <"$tmp/kt"
read -r kst ksm ksu kss <"$tmp/kst"
pt=$(echo "$end - $start" | bc)
pm=$(awk '$1 == "pahole" && $3 > m {m = $3} END {print m}' "$tmp/pt")
rm_=$(awk '$1 == "resolve_btfids" && $3 > m {m = $3} END {print m+0}' "$tmp/pt")
echo "kmeta btf encode --each, all $n: $kt s, peak RSS $((km / 1024)) MB; $ksame of $n give the shipped .BTF"
echo "on $ns of them (every ${STEP:-1}th): kmeta $kst s, peak RSS $((ksm / 1024)) MB;" \
	"pahole 1.30 x$ns two at a time: $pt s, largest peak RSS $((pm / 1024)) MB (resolve_btfids $((rm_ / 1024)) MB); $psame of $ns give the shipped .BTF"
pc=$(awk '{c += $4 + $5} END {print c}' "$tmp/pt")
echo "CPU (user+system): kmeta over all $((${ku%.*} + ${ks%.*})) s; on the subset kmeta $(echo "$ksu + $kss" | bc) s, pahole (and resolve_btfids) summed $pc s"
python3 -c "print(f'time ratio {$kst/$pt:.3f}x on the subset (CPU {($ksu+$kss)/$pc:.3f}x); peak RSS of kmeta over all {$km/$pm:.2f}x the largest pahole of the subset')"
