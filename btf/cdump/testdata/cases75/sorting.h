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

enum {
	B_FIRST = 0,
};

typedef enum {
	C_X = 1,
} c_t;

enum alpha {
	AL_A = 0,
};

enum zeta {
	Z_A = 0,
};

typedef int same;

typedef struct {
	int z;
} anon_t;

struct Upper {
	int q;
};

struct same {
	int a;
};

struct same___2 {
	int a;
};

struct same___3 {
	int b;
};

union same___4 {
	int u;
};

typedef struct same same_arr[2];

typedef struct same *same_p;

typedef struct same *same_p2;

struct user {
	same_p2 *p;
};

typedef int fn_t(int x);

struct same;


/* BPF kfuncs */
#ifndef BPF_NO_KFUNC_PROTOTYPES
#endif

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
