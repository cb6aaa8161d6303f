// fentry and fexit programs: BTF-typed arguments read directly, and
// task_struct through bpf_get_current_task_btf with CO-RE relocations. The
// loader finds the attach target's BTF id in the kernel's BTF itself, so
// cilium/ebpf reads the whole vmlinux BTF for these whatever KernelTypes
// says. Built with (Debian 12's clang 14.0.6 and libbpf-dev 1.1 headers;
// vmlinux.h as in kprobe.bpf.c):
//   clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -fdebug-prefix-map=$PWD=. -I. -c fentry.bpf.c -o fentry.bpf.o && llvm-strip -g fentry.bpf.o
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

u64 unlinks, failures;
u32 last_tgid;

SEC("fentry/do_unlinkat")
int BPF_PROG(unlink_entry, int dfd, struct filename *name)
{
	struct task_struct *task = bpf_get_current_task_btf();
	last_tgid = task->tgid;
	if (bpf_core_field_exists(task->real_parent))
		last_tgid ^= BPF_CORE_READ(task, real_parent, tgid) << 16;
	__sync_fetch_and_add(&unlinks, 1);
	return 0;
}

SEC("fexit/do_unlinkat")
int BPF_PROG(unlink_exit, int dfd, struct filename *name, long ret)
{
	if (ret)
		__sync_fetch_and_add(&failures, 1);
	return 0;
}
