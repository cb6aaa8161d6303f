// kprobe programs with CO-RE field reads on task_struct, struct filename
// and struct file, a field flavor (task_struct___old), field existence and
// size, and an enum value. Built with (Debian 12's clang 14.0.6 and
// libbpf-dev 1.1 headers; vmlinux.h is `bpftool btf dump file
// /sys/kernel/btf/vmlinux format c` of a 6.18 kernel, not committed):
//   clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -fdebug-prefix-map=$PWD=. -I. -c kprobe.bpf.c -o kprobe.bpf.o && llvm-strip -g kprobe.bpf.o
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

// Kernels before 5.14 named the state field "state".
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

struct tstat {
	u64 count;
	u64 last_ino;
	long state;
	u32 ppid;
	u32 pid_type_tgid;
	u32 comm_size;
	char name[32];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, struct tstat);
} stats SEC(".maps");

static __always_inline struct tstat *stat_of(struct task_struct *task)
{
	u32 tgid = BPF_CORE_READ(task, tgid);
	struct tstat zero = {}, *s = bpf_map_lookup_elem(&stats, &tgid);
	if (s)
		return s;
	bpf_map_update_elem(&stats, &tgid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&stats, &tgid);
}

static __always_inline long task_state(struct task_struct *task)
{
	if (bpf_core_field_exists(task->__state))
		return BPF_CORE_READ(task, __state);
	return BPF_CORE_READ((struct task_struct___old *)task, state);
}

SEC("kprobe/do_unlinkat")
int BPF_KPROBE(unlink_enter, int dfd, struct filename *name)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct tstat *s = stat_of(task);
	if (!s)
		return 0;
	s->count++;
	s->state = task_state(task);
	s->ppid = BPF_CORE_READ(task, real_parent, tgid);
	s->pid_type_tgid = bpf_core_enum_value(enum pid_type, PIDTYPE_TGID);
	s->comm_size = bpf_core_field_size(task->comm);
	bpf_probe_read_kernel_str(s->name, sizeof(s->name), BPF_CORE_READ(name, name));
	return 0;
}

SEC("kprobe/vfs_read")
int BPF_KPROBE(read_enter, struct file *file)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct tstat *s = stat_of(task);
	if (!s)
		return 0;
	s->count++;
	s->last_ino = BPF_CORE_READ(file, f_inode, i_ino);
	return 0;
}
