// SPDX-License-Identifier: GPL-2.0
//
// A BPF object for bpfobj's tests: several programs of different types and
// maps of several kinds (hash, array, per-CPU, LRU, ring buffer, global
// data), so that loading it gives the kernel BTF objects used by many
// programs and maps at once.
//
// Compiled with Debian bookworm's clang 14.0.6 and libbpf-dev 1.1:
//
//	clang -g -O2 -target bpf -fdebug-prefix-map=$PWD=. -I/usr/include/x86_64-linux-gnu \
//		-c objs.bpf.c -o objs.bpf.o && llvm-strip -g objs.bpf.o
//
// and loaded by the tests with "bpftool prog loadall objs.bpf.o DIR".

#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct flow_key {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
	__u8 proto;
	__u8 pad[3];
};

enum verdict { PASS = 1, DROP = 2, REDIRECT = 3 };

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
	unsigned int seen : 1;
	unsigned int kind : 3;
};

typedef struct flow_stats flow_stats_t;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct flow_key);
	__type(value, flow_stats_t);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct flow_stats);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 32);
	__type(key, __u64);
	__type(value, char[16]);
} names SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

__u64 total_packets = 0;         /* .bss */
__u32 sample_rate = 16;          /* .data */
const volatile __u32 debug = 0;  /* .rodata */

static __always_inline void count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &idx);

	if (v)
		__sync_fetch_and_add(v, 1);
}

static __noinline int account(struct flow_key *k, __u32 len)
{
	flow_stats_t *s = bpf_map_lookup_elem(&flows, k);

	if (!s)
		return 0;
	s->packets++;
	s->bytes += len;
	return s->last;
}

SEC("socket")
int sock_count(struct __sk_buff *skb)
{
	struct flow_key k = {.proto = 6};

	count(0);
	total_packets++;
	account(&k, skb->len);
	return 0;
}

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	struct flow_key k = {.proto = 17};
	__u32 zero = 0;
	struct flow_stats *s = bpf_map_lookup_elem(&scratch, &zero);

	count(1);
	if (s)
		s->u.half.lo++;
	if (debug)
		bpf_printk("xdp %u", sample_rate);
	return account(&k, ctx->data_end - ctx->data) == DROP ? XDP_DROP : XDP_PASS;
}

SEC("tc")
int tc_mark(struct __sk_buff *skb)
{
	__u64 key = skb->mark;
	char name[16] = "tc";

	count(2);
	bpf_map_update_elem(&names, &key, name, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_getpid")
int tp_getpid(void *ctx)
{
	__u64 *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	count(3);
	if (!e)
		return 0;
	*e = bpf_get_current_pid_tgid();
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("kprobe/do_nanosleep")
int kp_nanosleep(void *ctx)
{
	sample_rate++;
	return 0;
}
