/* kinds2.c: a second unit for the multi-unit objects (make.sh links it
 * with kinds.c, percpu.c and tags.c by ld -r): the same types again, a
 * static function of the same name as one of kinds.c (pahole emits only
 * the first), an array only here, tags on a function kinds.c does not
 * have, a per-CPU variable. No headers. */

typedef unsigned int u32;

#define __tag(x) __attribute__((btf_decl_tag(x)))
#define __user __attribute__((btf_type_tag("user")))

struct outer;

struct second {
	u32 vals[3] __tag("vals");
	struct outer *o;
	char __user *ubuf;
};

static __attribute__((noinline)) int out_of_line(struct second *s, int k)
{
	return s->vals[k];
}

int __tag("second_fn") second_fn(struct second *s __tag("s_param"), int k)
{
	return out_of_line(s, k) + (s->ubuf != 0);
}

struct second second_global;

/* A per-CPU variable of a second unit, with a tag: the DATASEC gathers
 * both units' variables, sorted by offset. */
struct second pcpu_second __attribute__((section(".data..percpu"))) __tag("k2_pcpu");
