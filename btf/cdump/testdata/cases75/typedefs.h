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

typedef int c_t;

typedef c_t b_t;

typedef b_t a_t;

struct fl {
	double d;
};

typedef unsigned char __Poly8_t;

struct poly {
	__Poly8_t p;
};

struct ptd {
	int x;
};

typedef struct ptd *sp_t;

struct later;

typedef struct later later_t;

struct uses {
	later_t *p;
	sp_t *q;
};

typedef __builtin_va_list __gnuc_va_list;


/* BPF kfuncs */
#ifndef BPF_NO_KFUNC_PROTOTYPES
#endif

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
