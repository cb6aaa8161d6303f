/* SPDX-License-Identifier: GPL-2.0 */
/* A small out-of-tree module for bench/pahole/extmod.sh: structs, a union,
 * bitfields, a per-CPU variable and a kfunc, so that its BTF has split
 * types on vmlinux, a DATASEC and a bpf_kfunc tag. */
#ifndef KMT_H
#define KMT_H
#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>

enum kmt_state { KMT_IDLE, KMT_BUSY, KMT_DONE = 1ULL << 40 };

struct kmt_stats {
	u64 events;
	u32 drops : 12, flags : 4, level : 16;
	union {
		u64 raw;
		struct { u32 lo, hi; } parts;
	};
};

struct kmt_item {
	struct list_head node;
	spinlock_t lock;
	enum kmt_state state;
	const char *name;
	struct kmt_stats *stats;
	int (*handler)(struct kmt_item *item, unsigned long arg);
	char tag[16];
};

int kmt_add_item(struct kmt_item *item);
u64 kmt_total_events(void);
#endif
