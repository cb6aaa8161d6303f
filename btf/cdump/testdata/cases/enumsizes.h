#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)
#endif

enum e8 {
	E8_A = 1,
};

enum e16 {
	E16_A = 1,
};

enum ew {
	EW_A = 1,
};

enum e64small {
	X_SMALL = 1ULL,
};

enum e64big {
	X_BIG = 1099511627776ULL,
};

enum e64byte {
	X_BYTE = 1ULL,
};

struct holder {
	enum {
		IN_A = 0,
		IN_B = 1,
	} f;
	enum e8 g;
	char c;
	int: 0;
};

enum empty1;

enum {
	TOP_A = 3,
};

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
