// CO-RE relocations that libbpf refuses: irq_info has two definitions in
// vmlinux with "irq" at different offsets (field offset ambiguity), after
// one relocation that resolves.
//   clang-14 -g -O2 -target bpf -c ambig.bpf.c -o ambig.bpf.o && llvm-strip -g ambig.bpf.o
#define SEC(name) __attribute__((section(name), used))

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));
struct irq_info {
	int irq;
} __attribute__((preserve_access_index));

char LICENSE[] SEC("license") = "GPL";
long out[4];

SEC("kprobe/do_exit")
int ambig(struct irq_info *info)
{
	out[0] = __builtin_preserve_field_info(((struct task_struct *)info)->pid, 0);
	out[1] = __builtin_preserve_field_info(info->irq, 0);
	return 0;
}
