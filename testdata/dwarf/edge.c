/* edge.c: tags where they are easy to lose or to double: on an anonymous
 * struct member (clang puts it on the member's type), twice the same on
 * one member and on one per-CPU variable, on a typedef of an enum and of
 * a pointer to a forward declaration, on a forward declaration (pahole
 * 1.24 drops it); type tags on void pointers and pointers to them; a
 * static inline function both inlined and taken the address of, static
 * functions with tagged parameters, inlined and not. No headers.
 *
 * Objects (make.sh): clang 14 -g -O2 -c for x86_64 and aarch64. */

typedef unsigned int u32;
#define __tag(x) __attribute__((btf_decl_tag(x)))
#define __user __attribute__((btf_type_tag("user")))
#define __percpu_data __attribute__((section(".data..percpu")))

struct __tag("fwd_tag") fwd_only;
enum tagged_enum { TE_A };
typedef enum tagged_enum te_t __tag("te");
typedef struct fwd_only *fwd_ptr __tag("fwdptr");

struct e {
	struct {
		int inner __tag("inner_tag");
	} __tag("anon_member_tag");
	union {
		u32 ub:3 __tag("ub_tag");
		u32 uc:5;
	};
	int dup __tag("same") __tag("same");
	void __user *vp;
	void __user *__user *vpp;
	te_t t;
	fwd_ptr f;
};

static inline int both(struct e *e) { return e->dup + e->ub; }
int use_both(struct e *e) { return both(e); }
int (*keep)(struct e *) = both;

struct e pcpu_e __percpu_data __tag("pe") __tag("pe");
static int __tag("static_tagged") hidden(int x __tag("hx")) { return x * 3; }
int call_hidden(int x) { return hidden(x); }
__attribute__((noinline)) static int noinl(int x __tag("nx")) { return x + 1; }
int call_noinl(int x) { return noinl(x) + noinl(x + 1); }
