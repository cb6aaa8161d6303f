// CO-RE relocations against types of a kernel module (kvm_mmu_page, only
// in Debian 6.1's kvm.ko) and of vmlinux (kvm_vcpu is there), for resolution on module BTF split on its vmlinux BTF. The
// local types are declared here with preserve_access_index, as a program
// does for module types that its vmlinux.h lacks.
//   clang-14 -g -O2 -target bpf -c module.bpf.c -o module.bpf.o && llvm-strip -g module.bpf.o
#define SEC(name) __attribute__((section(name), used))

struct kvm;
struct kvm_vcpu {
	struct kvm *kvm;
	int vcpu_id;
	int cpu;
} __attribute__((preserve_access_index));
struct task_struct {
	int pid;
} __attribute__((preserve_access_index));
struct kvm_mmu_page {
	_Bool unsync;
	struct gfn_to_pfn_cache *nope;
} __attribute__((preserve_access_index));
struct kvm_no_such_thing {
	int x;
} __attribute__((preserve_access_index));

char LICENSE[] SEC("license") = "GPL";
long out[8];

SEC("kprobe/kvm_vcpu_kick")
int kick(struct kvm_vcpu *vcpu)
{
	struct task_struct *t = (void *)vcpu;
	out[0] = __builtin_preserve_field_info(vcpu->vcpu_id, 0);
	out[1] = __builtin_preserve_field_info(vcpu->cpu, 0);
	out[2] = __builtin_preserve_field_info(vcpu->kvm, 0);
	out[3] = __builtin_preserve_field_info(t->pid, 0);
	out[4] = __builtin_preserve_type_info(*(struct kvm_vcpu *)0, 1);
	out[5] = __builtin_preserve_type_info(*(struct kvm_no_such_thing *)0, 0);
	out[6] = __builtin_preserve_field_info(((struct kvm_mmu_page *)t)->unsync, 0);
	out[7] = __builtin_preserve_type_info(*(struct kvm_mmu_page *)0, 1);
	return 0;
}
