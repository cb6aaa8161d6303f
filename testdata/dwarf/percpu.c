/* percpu.c: per-CPU variables (pahole 1.24 encodes VARs and their
 * btf_decl_tags only for symbols in .data..percpu), global and static,
 * type tags on pointers to pointers, on function pointers and through
 * typedefs, a called extern declaration with tags (not encoded). No
 * headers.
 *
 * Objects (make.sh): clang 14 -g -O2 -c, DWARF 5 and -gdwarf-4, for
 * x86_64 and aarch64. */

typedef unsigned int u32;
typedef unsigned long u64;
typedef signed char s8;

#define __tag(x) __attribute__((btf_decl_tag(x)))
#define __user __attribute__((btf_type_tag("user")))
#define __rcu __attribute__((btf_type_tag("rcu")))
#define __percpu_data __attribute__((section(".data..percpu")))

struct counter {
	u64 hits __tag("hot");
	u32 cpu;
	s8 small:3;
	s8 more:5;
};

typedef int __user *user_int_ptr;
typedef void (*handler_t)(struct counter *c __tag("handler_param"));

struct table {
	int __user *__user *pp;
	user_int_ptr up;
	handler_t handler;
	int (__rcu *rcu_fn)(int);
	struct counter *__rcu slots[4];
	const char *names;
};

struct counter pcpu_counter __percpu_data __tag("pcpu_var") __tag("second");
static u32 pcpu_local __percpu_data __tag("static_pcpu") = 3;
struct table pcpu_table __percpu_data;
int pcpu_array[16] __percpu_data;
long plain_global = 5;

extern int ext_func(int a __tag("ext_param")) __tag("ext_decl");

int use_table(struct table *t, int __user *__user *pp)
{
	return **t->pp + **pp + ext_func(pcpu_local) + pcpu_array[3];
}

void run_handler(struct table *t)
{
	t->handler(&pcpu_counter);
}

__attribute__((noinline)) static s8 __tag("static_fn") small_val(struct counter *c)
{
	return c->small + c->more;
}

void bump(u32 n)
{
	pcpu_local += n;
}

int total(struct counter *c)
{
	return small_val(c) + (int)c->hits + (int)plain_global;
}
