// Scheduler tracepoint and raw tracepoint programs with CO-RE reads of
// task_struct (also a bitfield, read with BPF_CORE_READ_BITFIELD_PROBED),
// mm_struct and signal_struct, a tracepoint context read through CO-RE,
// type existence and size, and enum values. Built with (Debian 12's clang
// 14.0.6 and libbpf-dev 1.1 headers; vmlinux.h as in kprobe.bpf.c):
//   clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -fdebug-prefix-map=$PWD=. -I. -c sched.bpf.c -o sched.bpf.o && llvm-strip -g sched.bpf.o
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct event {
	u32 pid, tgid, prio, nr_threads;
	u64 total_vm, start_time;
	u32 reset_on_fork, pidtype_max, has_iter, mm_size;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} switches SEC(".maps");

SEC("tracepoint/sched/sched_process_exit")
int on_exit(struct trace_event_raw_sched_process_template *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return 0;
	e->pid = ctx->pid;
	e->prio = ctx->prio;
	e->tgid = BPF_CORE_READ(task, tgid);
	e->nr_threads = BPF_CORE_READ(task, signal, nr_threads);
	e->total_vm = BPF_CORE_READ(task, mm, total_vm);
	e->start_time = BPF_CORE_READ(task, start_time);
	e->reset_on_fork = BPF_CORE_READ_BITFIELD_PROBED(task, sched_reset_on_fork);
	e->pidtype_max = bpf_core_enum_value(enum pid_type, PIDTYPE_MAX);
	e->has_iter = bpf_core_type_exists(struct bpf_iter__task);
	e->mm_size = bpf_core_type_size(struct mm_struct);
	BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tracepoint/sched_switch")
int on_switch(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *next = (struct task_struct *)ctx->args[2];
	u32 zero = 0;
	u64 *n = bpf_map_lookup_elem(&switches, &zero);
	if (!n)
		return 0;
	if (BPF_CORE_READ(next, pid) != 0 && bpf_core_enum_value_exists(enum pid_type, PIDTYPE_SID))
		(*n)++;
	return 0;
}
