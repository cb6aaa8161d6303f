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

struct ops {
	void (*none)(void);
	int (*void_arg)(void);
	int (*two)(int x, char *buf);
	long int (*printf)(const char *fmt, ...);
	int (* (*getter)(int which))(int x, char *buf);
	int (*table[1])(void);
};

typedef int (*handler_ptr_t)(int x, char *buf);

typedef int handler_t(int x, char *buf);


/* BPF kfuncs */
#ifndef BPF_NO_KFUNC_PROTOTYPES
#endif

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
