// CO-RE type and enum relocations: local and target type ids, type
// existence and size (structs, unions, typedefs, a missing type), enum
// value existence and value (ENUM, ENUM64, a missing enumerator), in a
// program, a .text subprogram and a program that is not loaded by default.
// vmlinux.h is "bpftool btf dump file host-6.18.44.btf format c" (not committed).
//   clang-14 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c types.bpf.c -o types.bpf.o && llvm-strip -g types.bpf.o
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct no_such_struct { int x; };
enum bpf_map_type___new { BPF_MAP_TYPE_NO_SUCH___new = 1000, BPF_MAP_TYPE_ARENA___new = 33 };

long out[32];

static __attribute__((noinline)) long sub(long x)
{
	out[20] = bpf_core_type_size(struct mm_struct);
	out[21] = bpf_core_enum_value(enum pid_type, PIDTYPE_SID);
	return x + bpf_core_type_exists(union bpf_attr);
}

SEC("kprobe/do_exit")
int types(void *ctx)
{
	out[0] = bpf_core_type_id_local(struct task_struct);
	out[1] = bpf_core_type_id_kernel(struct task_struct);
	out[2] = bpf_core_type_exists(struct task_struct);
	out[3] = bpf_core_type_exists(struct no_such_struct);
	out[4] = bpf_core_type_size(struct task_struct);
	out[5] = bpf_core_type_size(union bpf_attr);
	out[6] = bpf_core_type_size(u64);
	out[7] = bpf_core_type_size(enum bpf_map_type);
	out[8] = bpf_core_enum_value_exists(enum bpf_map_type, BPF_MAP_TYPE_RINGBUF);
	out[9] = bpf_core_enum_value_exists(enum bpf_map_type___new, BPF_MAP_TYPE_NO_SUCH___new);
	out[10] = bpf_core_enum_value_exists(enum bpf_map_type___new, BPF_MAP_TYPE_ARENA___new);
	out[11] = bpf_core_enum_value(enum bpf_map_type___new, BPF_MAP_TYPE_ARENA___new);
	out[12] = bpf_core_enum_value(enum perf_callchain_context, PERF_CONTEXT_USER);
	out[13] = bpf_core_type_id_kernel(struct no_such_struct);
	out[14] = bpf_core_type_size(struct no_such_struct);
	return sub(out[2]);
}

SEC("?kprobe/do_exit")
int lazy(void *ctx)
{
	out[30] = bpf_core_type_size(struct sk_buff);
	return sub(1);
}
