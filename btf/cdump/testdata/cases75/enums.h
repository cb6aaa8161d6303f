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

enum e64s {
	S_NEG = -1LL,
	S_MIN = -9223372036854775808LL,
};

enum e64small {
	X_ONE = 1ULL,
} __attribute__((mode(word)));

enum e64u {
	U_HI = 1099511627776ULL,
	U_MAX = 18446744073709551615ULL,
};

enum s32 {
	NEG = -1,
	MIN = -2147483648,
	POS = 5,
};

enum small {
	S_A = 1,
} __attribute__((mode(byte)));

enum u32 {
	BIG = 4294967295,
	ZERO = 0,
};

enum wide {
	W_A = 1,
} __attribute__((mode(word)));


/* BPF kfuncs */
#ifndef BPF_NO_KFUNC_PROTOTYPES
#endif

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
