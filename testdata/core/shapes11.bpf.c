// CO-RE relocations that hit the eleventh campaign's shapes
// (internal/testfixtures/hostile/variant11.go): a struct "s0" and its
// typedef "p0" (distinct-params), struct "s0" whose pointer goes through
// TYPE_TAGs and its typedef "t0" (tag-forest), struct "fs0" of FLOATs
// (floats), bitfields of struct "bits" whose INTs carry bit offsets
// (int-bits; libbpf takes those of bit offset 0 only), values of the signed ENUM64 "e0" and the ENUM "s0"
// (signed-enums), the struct "outer" (empty-names, suffix-names) and the
// struct "r0" of base-refs. Every relocation finds its candidates in one
// shape and none in the others.
//   clang-14 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c shapes11.bpf.c -o shapes11.bpf.o && llvm-strip -g shapes11.bpf.o
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct s0 {
	int x;
} __attribute__((preserve_access_index));
typedef struct s0 *p0;

struct s0___tag {
	int *p;
	int x;
} __attribute__((preserve_access_index));
typedef struct s0___tag t0;

struct fs0 {
	float a;
	float b[3];
} __attribute__((preserve_access_index));

struct bits {
	unsigned long long m0 : 1, m1 : 2;
	long long m32 : 1;
	unsigned long long m64 : 1;
} __attribute__((preserve_access_index));

enum e0 { E0_0, E0_1, E0_2, E0_3 };
enum s0___sig { S0_0, S0_1, S0_7 = 7 };

struct outer {
	int m;
} __attribute__((preserve_access_index));

struct r0 {
	long in;
	void *to;
} __attribute__((preserve_access_index));

long out[32];

SEC("kprobe/do_exit")
int shapes11(void *ctx)
{
	struct s0 *s = (void *)bpf_get_current_task();
	struct s0___tag *tg = (void *)s;
	struct fs0 *f = (void *)s;
	struct bits *b = (void *)s;
	struct outer *o = (void *)s;
	struct r0 *r = (void *)s;

	out[0] = bpf_core_field_offset(s->x);
	out[1] = bpf_core_type_exists(p0);
	out[2] = bpf_core_type_size(t0);
	out[3] = bpf_core_field_offset(tg->x);
	out[4] = bpf_core_field_size(tg->p);
	out[5] = bpf_core_field_offset(f->b[2]);
	out[6] = bpf_core_field_size(f->a);
	out[7] = BPF_CORE_READ_BITFIELD_PROBED(b, m1);
	out[8] = BPF_CORE_READ_BITFIELD_PROBED(b, m32);
	out[9] = BPF_CORE_READ_BITFIELD_PROBED(b, m64);
	out[10] = __builtin_preserve_field_info(b->m32, BPF_FIELD_SIGNED);
	out[11] = bpf_core_enum_value(enum e0, E0_3);
	out[12] = bpf_core_enum_value_exists(enum e0, E0_2);
	out[13] = bpf_core_enum_value(enum s0___sig, S0_7);
	out[14] = bpf_core_field_exists(o->m);
	out[15] = bpf_core_field_exists(r->in);
	out[16] = bpf_core_field_offset(r->to);
	return 0;
}
