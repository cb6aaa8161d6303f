// SPDX-License-Identifier: GPL-2.0
#include <linux/percpu.h>
#include <linux/cpumask.h>
#include "kmt.h"

DEFINE_PER_CPU(struct kmt_stats, kmt_pcpu_stats);
static LIST_HEAD(kmt_items);
static DEFINE_SPINLOCK(kmt_lock);

int kmt_add_item(struct kmt_item *item)
{
	spin_lock(&kmt_lock);
	list_add_tail(&item->node, &kmt_items);
	item->state = KMT_BUSY;
	spin_unlock(&kmt_lock);
	this_cpu_inc(kmt_pcpu_stats.events);
	return 0;
}

u64 kmt_total_events(void)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(kmt_pcpu_stats, cpu).events;
	return sum;
}
