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

enum {
	A_FIRST = 0,
};

struct same {
	int a;
};

struct same___2 {
	int b;
};

struct same___3 {
	int a;
};

typedef struct {
	int z;
} anon_t;

typedef struct same *same_p;

typedef int fn_t(int x);

typedef struct same same_arr[2];

typedef enum {
	C_X = 1,
} c_t;

enum zeta {
	Z_A = 0,
};

enum alpha {
	AL_A = 0,
};

struct Upper {
	int q;
};

union same___4 {
	int u;
};

typedef int same;

struct same;

typedef struct same *same_p2;

struct user {
	same_p2 *p;
};


/* BPF kfuncs */
#ifndef BPF_NO_KFUNC_PROTOTYPES
#endif

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
