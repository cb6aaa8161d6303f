// A signedness relocation of a plain char field: clang 14 emits 1 (char
// is signed on BPF), but the field's BTF type, "char", has no signed bit,
// so libbpf computes 0 for the local value and refuses the instruction
// ("unexpected insn ... got 1, exp 0"). Built as the generated objects are:
//   clang-14 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c patchfail.bpf.c -o patchfail.bpf.o && llvm-strip -g patchfail.bpf.o
// vmlinux.h is "bpftool btf dump file host-6.18.44.btf format c" (not committed).
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
char LICENSE[] SEC("license") = "GPL";
long out[3];
SEC("kprobe/do_exit")
int patchfail(void *p)
{
	out[0] = __builtin_preserve_field_info(((struct Facility_UUIE_fastStart *)p)->item[17].separateStack.options, BPF_FIELD_BYTE_OFFSET);
	out[1] = __builtin_preserve_field_info(((struct Facility_UUIE_fastStart *)p)->item[17].separateStack.options, BPF_FIELD_SIGNED);
	return 0;
}
