// Two socket filters, one calling a BPF-to-BPF subprogram, for the ksymbol
// tests: loading the object registers one kernel symbol per function,
// bpf_prog_<tag>_<name>, three in all. Built with (clang 14, libbpf-dev 1.1
// headers):
//   clang-14 -g -O2 -target bpf -I/usr/include/x86_64-linux-gnu -c subprog.bpf.c -o subprog.bpf.o && gzip -9n subprog.bpf.o
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

static __noinline int kmeta_classify(struct __sk_buff *skb)
{
	return skb->len > 64 ? 1 : 0;
}

SEC("socket")
int kmeta_sub_main(struct __sk_buff *skb)
{
	return kmeta_classify(skb) + 1;
}

SEC("socket")
int kmeta_plain(struct __sk_buff *skb)
{
	return 0;
}
