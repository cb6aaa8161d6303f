// BTF-enabled tracepoint programs (tp_btf): BTF-typed arguments read
// directly, and task_struct through bpf_get_current_task_btf, with CO-RE
// relocations. The loader finds the attach target's BTF id
// (btf_trace_sched_*) in the kernel's BTF itself, so cilium/ebpf reads the
// whole vmlinux BTF for these whatever KernelTypes says. (fentry and fexit
// programs would do the same, but the project's 6.18 VM refuses them: no
// BPF trampolines there.) Built with (Debian 12's clang 14.0.6 and
// libbpf-dev 1.1 headers; vmlinux.h as in kprobe.bpf.c):
//   clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -fdebug-prefix-map=$PWD=. -I. -c tpbtf.bpf.c -o tpbtf.bpf.o && llvm-strip -g tpbtf.bpf.o
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

u64 forks, switches;
u32 last_parent, last_child, last_prio;

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	last_parent = parent->tgid;
	last_child = child->pid;
	if (bpf_core_field_exists(child->real_parent))
		last_parent ^= BPF_CORE_READ(child, real_parent, tgid) << 16;
	__sync_fetch_and_add(&forks, 1);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct task_struct *task = bpf_get_current_task_btf();
	last_prio = task->prio + bpf_core_enum_value(enum pid_type, PIDTYPE_PGID);
	__sync_fetch_and_add(&switches, 1);
	return 0;
}
