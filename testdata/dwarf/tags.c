/* tags.c: btf_decl_tag on structs, unions, members (bitfields too),
 * typedefs, functions and their parameters, global variables (not
 * per-CPU: pahole 1.24 drops their tags with them); btf_type_tag on
 * pointers, several on one pointer, on pointers in structs and in
 * function parameters; enums (signed, 64-bit), unions, arrays, a flexible
 * array, function pointers, const/volatile, floats, forward declarations,
 * varargs, static and global functions. No headers.
 *
 * Objects (make.sh): clang 14 -g -O2 -c, DWARF 5 and -gdwarf-4, -gdwarf64,
 * -gz=zlib, for x86_64, aarch64 and aarch64_be. */

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long s64;

#define __tag(x) __attribute__((btf_decl_tag(x)))
#define __user __attribute__((btf_type_tag("user")))
#define __rcu __attribute__((btf_type_tag("rcu")))
#define __percpu __attribute__((btf_type_tag("percpu")))

/* A typedef with decl tags. */
typedef u32 __tag("td_a") __tag("td_b") tagged_u32;

/* A forward declaration only used by pointer. */
struct opaque;
union opaque_u;

enum color { RED, GREEN = 5, BLUE = -3 };
enum big { BIG_LO = 1, BIG_HI = 0x123456789abcdefULL };
enum sbig { SBIG_NEG = -0x100000000LL, SBIG_POS = 7 };

struct __tag("s_one") __tag("s_two") point {
	int x __tag("x_tag");
	int y __tag("y_a") __tag("y_b");
	u32 flags:3 __tag("bf_tag");
	u32 mode:5;
	u32 :0;
	u64 wide:40;
	s64 neg:7;
	enum color c:4;
};

union __tag("u_tag") either {
	u32 word __tag("word_tag");
	u8 bytes[4];
	float f;
};

struct node {
	struct node *next;
	int __user *uptr;
	char __user __rcu *multi;
	struct opaque __percpu *pc;
	union opaque_u *ou;
	const volatile u16 cv;
	int matrix[3][4];
	char flex[];
};

struct ops {
	int (*open)(struct node *n, int __user *arg);
	void (*close)(const char *name, ...);
	long (*arr[2])(void);
	double d;
	long double ld;
	_Bool ok;
	tagged_u32 t;
	enum big b;
	enum sbig sb;
	union either e;
};

/* Global variables: pahole 1.24 only encodes per-CPU ones, so these
 * appear only as the types they use, and their tags do not. */
struct point gp __tag("var_tag");
struct ops gops;
int garr[8] __tag("arr_tag");

__attribute__((noinline)) int __tag("fn_tag") __tag("fn_tag2")
tagged_func(struct point *p __tag("param_tag"), int __user *u, int y __tag("p2a") __tag("p2b"))
{
	return p->x + *u + y + gp.y;
}

__attribute__((noinline)) long user_copy(char __user __rcu *dst, const void __user *src, u32 n)
{
	return (long)dst + (long)src + n + garr[n & 7];
}

static __attribute__((noinline)) int static_helper(struct node *n)
{
	return n->matrix[1][2] + n->cv;
}

int call_helpers(struct node *n, struct ops *o)
{
	return static_helper(n) + o->open(n, n->uptr) + (int)o->d;
}

float fsum(float a, double b, tagged_u32 c)
{
	return a + b + c + gops.t;
}

void varfn(int n, ...)
{
	gops.ok = n;
}

u64 bigfn(enum big b, enum sbig s, union either e, struct opaque *op)
{
	return b + s + e.word + (op != 0);
}
