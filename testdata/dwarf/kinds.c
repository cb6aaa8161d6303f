/* kinds.c: the kinds and corner cases around the tags: anonymous and
 * nested members, packed and empty structs, enum declarations and 64-bit
 * enumerators, vectors, __int128, __fp16 (storage only; clang 14 has no
 * _Float16 on x86_64), function types, restrict, an unnamed parameter
 * (pahole 1.24 leaves the function out), inline and weak functions. No
 * headers.
 *
 * Objects (make.sh): clang 14 -g -O2 -c for x86_64 and aarch64. */

typedef unsigned int u32;
typedef unsigned long long u64;

#define __tag(x) __attribute__((btf_decl_tag(x)))
#define __user __attribute__((btf_type_tag("user")))

enum fwd_enum;
struct fwd_struct;
typedef int fn_t(int, char);
typedef int v4si __attribute__((vector_size(16)));

enum wide { W_ZERO, W_MAX = 0xffffffffffffffffULL };
enum neg32 { N_MIN = -2147483647 - 1, N_MAX = 2147483647 };
enum u32max { U_MAX = 0xffffffffU };

struct empty {};

struct __attribute__((packed)) packed {
	char c;
	u32 x;
	u64 y:33;
	unsigned short z:15 __tag("z_tag");
};

struct __tag("outer") outer {
	int kind;
	union {
		struct {
			u32 lo:16, hi:16;
		};
		u64 whole __tag("whole");
	};
	struct {
		int a, b;
	} named;
	enum { ANON_A = 1, ANON_B } anon_enum;
	_Bool flag:1;
	enum wide w:2;
	char tail:4;
	struct empty nothing;
	enum fwd_enum *fe;
	struct fwd_struct *fs;
	fn_t *fn;
	v4si vec;
	__int128 big;
	unsigned __int128 ubig;
	__fp16 half;
	int *restrict rp;
	volatile void *vv;
	const int carr[2];
	int __user *const cup;
	enum neg32 n32;
	enum u32max u32m;
	struct packed p;
};

static inline __attribute__((always_inline)) int inl(struct outer *o)
{
	return o->kind * 2;
}

static __attribute__((noinline)) int out_of_line(struct outer *o, int k)
{
	return o->named.a + k;
}

int unnamed_param(int, struct outer *o)
{
	return inl(o) + out_of_line(o, 3);
}

__attribute__((weak)) u64 weak_fn(struct outer *o __tag("weak_param"))
{
	return o->whole + o->hi;
}

int fnptr_user(fn_t *f, int (*g)(), void *restrict r)
{
	return f(1, 'a') + g() + (r != 0);
}

struct outer kinds_global;

__int128 wide_ret(unsigned __int128 x, double h)
{
	return x + (int)h + kinds_global.kind;
}
