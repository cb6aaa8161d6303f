// kprobe programs on TCP with CO-RE reads of struct sock (through the
// anonymous unions of sock_common), inet_sock and tcp_sock, field existence
// and an enum value. Built with (Debian 12's clang 14.0.6 and libbpf-dev
// 1.1 headers; vmlinux.h as in kprobe.bpf.c):
//   clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -fdebug-prefix-map=$PWD=. -I. -c net.bpf.c -o net.bpf.o && llvm-strip -g net.bpf.o
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct conn {
	u32 saddr, daddr;
	u16 sport, dport, family;
	u32 srtt_us, snd_cwnd;
	u32 stream;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, u64);
	__type(value, struct conn);
} conns SEC(".maps");

static __always_inline void fill(struct conn *c, struct sock *sk)
{
	c->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	c->saddr = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
	c->daddr = BPF_CORE_READ(sk, __sk_common.skc_daddr);
	c->dport = BPF_CORE_READ(sk, __sk_common.skc_dport);
	c->sport = BPF_CORE_READ((struct inet_sock *)sk, inet_sport);
}

SEC("kprobe/tcp_connect")
int BPF_KPROBE(connect, struct sock *sk)
{
	struct conn c = {};
	u64 key = (u64)sk;
	fill(&c, sk);
	bpf_map_update_elem(&conns, &key, &c, BPF_ANY);
	return 0;
}

SEC("kprobe/tcp_rcv_established")
int BPF_KPROBE(rcv, struct sock *sk)
{
	u64 key = (u64)sk;
	struct conn *c = bpf_map_lookup_elem(&conns, &key);
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	if (!c)
		return 0;
	c->srtt_us = BPF_CORE_READ(tp, srtt_us) >> 3;
	if (bpf_core_field_exists(tp->snd_cwnd))
		c->snd_cwnd = BPF_CORE_READ(tp, snd_cwnd);
	c->stream = BPF_CORE_READ(sk, sk_type) == bpf_core_enum_value(enum sock_type, SOCK_STREAM);
	return 0;
}
