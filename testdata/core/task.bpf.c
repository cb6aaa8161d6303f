// CO-RE relocations on task_struct and a few other kernel types, with the
// types declared here (no vmlinux.h): field offsets, sizes and existence
// through a pointer chain, a local flavor of task_struct, type existence
// and size, and enum values. Its task_struct relocations resolve on every
// kernel and on hostile.Flavors (a task_struct of "pid" and "x", and N
// flavors of it): the input of the min --obj and core peak RSS tests.
//   clang-14 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c task.bpf.c -o task.bpf.o && llvm-strip -g task.bpf.o && gzip -9n task.bpf.o
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct mm_struct {
	unsigned long total_vm;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	unsigned int flags;
	struct task_struct *real_parent;
	struct mm_struct *mm;
	char comm[16];
} __attribute__((preserve_access_index));

struct task_struct___kmeta {
	int pid;
	int x;
} __attribute__((preserve_access_index));

enum pid_type {
	PIDTYPE_PID,
	PIDTYPE_TGID,
};

long out[16];

SEC("kprobe/do_exit")
int task(void *ctx)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	struct task_struct___kmeta *k = (void *)t;

	out[0] = BPF_CORE_READ(t, pid);
	out[1] = bpf_core_field_size(t->pid);
	out[2] = bpf_core_field_exists(k->x);
	if (bpf_core_field_exists(k->x))
		out[3] = BPF_CORE_READ(k, x);
	out[4] = bpf_core_type_exists(struct task_struct);
	out[5] = bpf_core_type_size(struct task_struct);
	if (bpf_core_field_exists(t->tgid)) {
		out[6] = BPF_CORE_READ(t, tgid);
		out[7] = BPF_CORE_READ(t, real_parent, pid);
		out[8] = BPF_CORE_READ(t, mm, total_vm);
		out[9] = BPF_CORE_READ(t, flags);
		out[10] = bpf_core_field_offset(t->comm[1]);
	}
	out[11] = bpf_core_type_exists(struct mm_struct);
	if (bpf_core_enum_value_exists(enum pid_type, PIDTYPE_TGID))
		out[12] = bpf_core_enum_value(enum pid_type, PIDTYPE_TGID);
	return 0;
}
