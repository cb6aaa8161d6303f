#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)
#endif

#ifndef __ksym
#define __ksym __attribute__((section(".ksyms")))
#endif

#ifndef __weak
#define __weak __attribute__((weak))
#endif

struct sock {
	int x;
};

struct sock___2 {
	char y;
};


/* BPF kfuncs */
#ifndef BPF_NO_KFUNC_PROTOTYPES
extern struct sock___2 *bpf_z(void) __weak __ksym;
extern int bpf_a(struct sock *sk, unsigned int f) __weak __ksym;
extern int bpf_a(struct sock *sk, unsigned int f) __weak __ksym;
extern void bpf_e(enum {
	K_ONE = 1,
} e, ...) __weak __ksym;
#endif

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
