#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)
#endif

typedef unsigned int __u32;

typedef unsigned short __u16;

typedef unsigned char __u8;

struct flow_key {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
	__u8 proto;
	__u8 pad[3];
};

typedef unsigned long long __u64;

enum verdict {
	PASS = 1,
	DROP = 2,
	REDIRECT = 3,
};

struct flow_stats {
	__u64 packets;
	__u64 bytes;
	enum verdict last;
	union {
		__u32 flags;
		struct {
			__u16 lo;
			__u16 hi;
		} half;
	} u;
	unsigned int seen: 1;
	unsigned int kind: 3;
};

typedef struct flow_stats flow_stats_t;

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
