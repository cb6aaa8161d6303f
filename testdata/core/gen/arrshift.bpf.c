// A shift relocation on an array element, which libbpf refuses after
// matching its candidate ("can't be applied to array access"): the match
// is reported all the same. Built as the generated objects are:
//   clang-14 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c arrshift.bpf.c -o arrshift.bpf.o && llvm-strip -g arrshift.bpf.o
// vmlinux.h is "bpftool btf dump file host-6.18.44.btf format c" (not committed).
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
char LICENSE[] SEC("license") = "GPL";
long out[2];
SEC("kprobe/do_exit")
int arrshift(void *p)
{
	out[0] = __builtin_preserve_field_info(((struct inet_diag_sockid *)p)->idiag_dst[1], BPF_FIELD_BYTE_OFFSET);
	out[1] = __builtin_preserve_field_info(((struct inet_diag_sockid *)p)->idiag_dst[1], BPF_FIELD_LSHIFT_U64);
	return 0;
}
