// CO-RE edge cases: a type with two target candidates (syscall_tp_t has two
// definitions in vmlinux) whose candidate list is pruned by one relocation
// so that a later one is poisoned; vmlinux.h's ___2 flavor; loads whose size
// changes (allowed for unsigned integers, poisoned for signed ones); signed
// and enum bitfields inside anonymous unions; arrays of structs.
// vmlinux.h is "bpftool btf dump file host-6.18.44.btf format c" (not committed).
//   clang-14 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c edge.bpf.c -o edge.bpf.o && llvm-strip -g edge.bpf.o
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct syscall_tp_t___l {
	int syscall_nr;
	long ret;
	unsigned long args[6];
} __attribute__((preserve_access_index));

struct task_struct___sz {
	unsigned long long flags;
	long long pid;
} __attribute__((preserve_access_index));

long out[32];

SEC("kprobe/do_exit")
int edge(void *ctx)
{
	struct syscall_tp_t___l *s = (void *)bpf_get_current_task();
	struct task_struct___sz *ts = (void *)s;
	struct bpf_reg_state *reg = (void *)s;
	struct signal_struct *sig = (void *)s;

	out[0] = bpf_core_field_offset(s->syscall_nr);
	out[1] = bpf_core_field_offset(s->ret);
	out[2] = bpf_core_field_offset(s->args[2]);
	out[3] = bpf_core_field_exists(((struct syscall_tp_t___2 *)s)->args);
	out[4] = bpf_core_type_size(struct syscall_tp_t___2);
	out[5] = ts->flags;
	out[6] = ts->pid;
	out[7] = BPF_CORE_READ_BITFIELD_PROBED(&reg->iter, depth);
	out[8] = BPF_CORE_READ_BITFIELD_PROBED(&reg->iter, state);
	out[9] = BPF_CORE_READ(sig, rlim[3].rlim_max);
	out[10] = bpf_core_field_size(sig->rlim[3]);
	out[11] = bpf_core_field_offset(sig->rlim);
	return 0;
}
