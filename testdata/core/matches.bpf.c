// CO-RE type_matches relocations (clang 15 or later emits them; clang 14
// does not): structs with a subset of the target's members, a member of
// the wrong type, unions, enums, typedefs, function pointers, structs
// behind pointers, and a missing type.
// vmlinux.h is "bpftool btf dump file host-6.18.44.btf format c" (not committed).
//   clang-15 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c matches.bpf.c -o matches.bpf.o && llvm-strip -g matches.bpf.o
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct list_head___ok { struct list_head___ok *next, *prev; };
struct list_head___bad { int next; };
struct callback_head___ok { struct callback_head___ok *next; void (*func)(struct callback_head___ok *); };
struct qstr___ok { const unsigned char *name; };
enum pid_type___ok { PIDTYPE_PID___ok, PIDTYPE_TGID___ok };
enum pid_type___bad { PIDTYPE_NOPE___bad };
typedef unsigned long long u64___ok;
typedef int u64___bad;
struct file___ok { struct inode *f_inode; struct path f_path; };
struct no_such_struct___x { int a; };

long out[32];

SEC("kprobe/do_exit")
int matches(void *ctx)
{
	out[0] = bpf_core_type_matches(struct list_head___ok);
	out[1] = bpf_core_type_matches(struct list_head___bad);
	out[2] = bpf_core_type_matches(struct callback_head___ok);
	out[3] = bpf_core_type_matches(struct qstr___ok);
	out[4] = bpf_core_type_matches(enum pid_type___ok);
	out[5] = bpf_core_type_matches(enum pid_type___bad);
	out[6] = bpf_core_type_matches(u64___ok);
	out[7] = bpf_core_type_matches(u64___bad);
	out[8] = bpf_core_type_matches(struct file___ok);
	out[9] = bpf_core_type_matches(struct no_such_struct___x);
	out[10] = bpf_core_type_matches(union bpf_attr);
	return 0;
}
