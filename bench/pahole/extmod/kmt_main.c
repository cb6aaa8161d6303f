// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include "kmt.h"

static struct kmt_item kmt_first = { .name = "first", .tag = "kmeta" };

__bpf_kfunc_start_defs();

__bpf_kfunc u64 bpf_kmt_events(struct kmt_item *item, u32 flags)
{
	return kmt_total_events() + (item ? item->state : 0) + flags;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(kmt_kfunc_ids)
BTF_ID_FLAGS(func, bpf_kmt_events)
BTF_KFUNCS_END(kmt_kfunc_ids)

static const struct btf_kfunc_id_set kmt_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &kmt_kfunc_ids,
};

static int __init kmt_init(void)
{
	int err = register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING, &kmt_kfunc_set);

	if (err)
		return err;
	return kmt_add_item(&kmt_first);
}

static void __exit kmt_exit(void)
{
}

module_init(kmt_init);
module_exit(kmt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmeta's out-of-tree module for the pahole build bench");
