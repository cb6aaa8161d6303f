# Sourced by the CO-RE benchmarks (btfhub.sh, mincore.sh).
# core_objs ROOT TMP: unpacks the CO-RE objects of testdata (prog, fields,
# types, matches, and bench's loader objects kprobe and sched) into TMP and
# sets $objs to their paths and $kobjs to kmeta's "--obj PATH" for each.
core_objs() {
	local root=$1 tmp=$2 o src
	objs=""
	for o in prog fields types matches; do
		src="$root/testdata/core/$o.bpf.o.gz"
		[ -e "$src" ] || src="$root/testdata/elf/$o.bpf.o.gz"
		zcat "$src" > "$tmp/$o.bpf.o"
		objs="$objs $tmp/$o.bpf.o"
	done
	for o in kprobe sched; do
		cp "$root/bench/testdata/loader/$o.bpf.o" "$tmp/$o.bpf.o"
		objs="$objs $tmp/$o.bpf.o"
	done
	kobjs=$(for o in $objs; do printf -- '--obj %s ' "$o"; done)
}
