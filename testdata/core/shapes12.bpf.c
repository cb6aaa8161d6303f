// CO-RE relocations that hit the twelfth campaign's shapes
// (internal/testfixtures/hostile/variant12.go): the last member of the
// struct "wide" and the members of "outer" through the deep anonymous
// chain and its typedef "t" (wide-deep-proto), the struct "outer" of a
// pointer to a chain of prototypes and its typedef "chain"
// (param-ptr-chain), the anonymous wide struct inside "h0" and the
// typedef "t0" of it (shared-anon-wide), the typedef "fp0" of a pointer
// to a prototype of 65,535 parameters (shared-wide-proto), and the
// members of "s0" whose types are a FUNC, a typedef of one and an array
// of them (kind-soup): a relocation whose target member has no size.
//   clang-14 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c shapes12.bpf.c -o shapes12.bpf.o && llvm-strip -g shapes12.bpf.o
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct wide {
	int m0;
	int m1023;
} __attribute__((preserve_access_index));

typedef struct {
	union {
		struct {
			int x;
		} m;
		int x;
	} m;
	int x;
} t;

struct outer {
	t in;
	void *fn;
} __attribute__((preserve_access_index));

typedef int chain(int, void *);

struct h0 {
	struct {
		int m0;
		int m65534;
	} in;
} __attribute__((preserve_access_index));

typedef struct {
	int m65534;
} t0;

typedef int (*fp0)(int);

struct s0 {
	int a;
	int b;
	int c[2];
} __attribute__((preserve_access_index));

long out[32];

SEC("kprobe/do_exit")
int shapes12(void *ctx)
{
	struct wide *w = (void *)bpf_get_current_task();
	struct outer *o = (void *)w;
	struct h0 *h = (void *)w;
	struct s0 *s = (void *)w;

	out[0] = bpf_core_field_offset(w->m1023);
	out[1] = bpf_core_field_offset(o->in.x);
	out[2] = bpf_core_field_offset(o->in.m.m.x);
	out[3] = bpf_core_field_size(o->fn);
	out[4] = bpf_core_type_size(t);
	out[5] = bpf_core_type_exists(chain);
	out[6] = bpf_core_field_offset(h->in.m65534);
	out[7] = bpf_core_type_size(t0);
	out[8] = bpf_core_type_exists(fp0);
	out[9] = bpf_core_field_size(s->a);
	out[10] = bpf_core_field_offset(s->b);
	out[11] = bpf_core_field_offset(s->c[1]);
	out[12] = bpf_core_field_exists(s->c);
	return 0;
}
