// CO-RE field relocations of every kind: byte offset, byte size, existence,
// signedness, left and right shift (bitfields), array elements, anonymous
// unions, pointer chains, a missing field (poisoned) and a flavor.
// vmlinux.h is "bpftool btf dump file host-6.18.44.btf format c" (not committed).
//   clang-14 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c fields.bpf.c -o fields.bpf.o && llvm-strip -g fields.bpf.o
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct task_struct___old {
	int no_such_field;
	unsigned int flags;
} __attribute__((preserve_access_index));

long out[32];

SEC("kprobe/do_exit")
int fields(void *ctx)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	struct task_struct___old *o = (void *)t;
	struct sk_buff *skb = 0;

	out[0] = BPF_CORE_READ_BITFIELD_PROBED(t, in_execve);
	out[1] = BPF_CORE_READ_BITFIELD_PROBED(t, sched_reset_on_fork);
	out[2] = bpf_core_field_size(t->comm);
	out[3] = bpf_core_field_offset(t->comm[3]);
	out[4] = bpf_core_field_size(t->comm[3]);
	out[5] = bpf_core_field_exists(o->no_such_field);
	if (bpf_core_field_exists(o->no_such_field))
		out[6] = BPF_CORE_READ(o, no_such_field);
	out[7] = BPF_CORE_READ(o, flags);
	out[8] = __builtin_preserve_field_info(t->prio, BPF_FIELD_SIGNED);
	out[9] = __builtin_preserve_field_info(t->__state, BPF_FIELD_SIGNED);
	out[10] = BPF_CORE_READ(t, real_parent, real_parent, pid);
	out[11] = BPF_CORE_READ(skb, tstamp);
	out[12] = BPF_CORE_READ(skb, len);
	out[13] = bpf_core_field_offset(skb->dev);
	out[14] = BPF_CORE_READ(t, mm, mmap_base);
	out[15] = bpf_core_field_exists(t->sched_info.pcount);
	return 0;
}
