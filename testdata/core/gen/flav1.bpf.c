// Generated CO-RE relocations for differential tests against libbpf and bpftool:
//   python3 gen.py --flavors 2 60 > flav1.bpf.c  (testdata/core/gen/gen.py; repair.py dropped the lines clang 14 rejects)
//   clang-14 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c flav1.bpf.c -o flav1.bpf.o && llvm-strip -g flav1.bpf.o
// vmlinux.h is "bpftool btf dump file host-6.18.44.btf format c" (not committed).
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
char LICENSE[] SEC("license") = "GPL";
enum x86_pf_error_code___g2_0 {
	X86_PF_WRITE___g2_0 = 2,
	X86_PF_RMP___g2_0 = 18446744071562067968,
	GEN_MISSING___g2_0 = 3,
};
struct sctp_hostname_param___g2_1 {
	int param_hdr;
	char hostname[1];
} __attribute__((preserve_access_index));
struct rtattr___g2_2 {
	unsigned char rta_len;
	unsigned long long rta_type: 8;
} __attribute__((preserve_access_index));
struct zcomp_strm___g2_3 {
	void * buffer;
	int ctx;
	void * local_copy;
	int lock;
} __attribute__((preserve_access_index));
enum nfqnl_attr_type___g2_4 {
	NFQA_UID___g2_4 = 17,
	NFQA_L2HDR___g2_4 = 21,
	GEN_MISSING___g2_4 = 3,
};
struct fscrypt_direct_key___g2_5 {
	char dk_descriptor[8];
	int dk_key;
	void * dk_sb;
} __attribute__((preserve_access_index));
enum stack_type___g2_6 {
	STACK_TYPE_SOFTIRQ___g2_6 = 3,
	STACK_TYPE_EXCEPTION___g2_6 = 5,
	GEN_MISSING___g2_6 = 3,
};
struct trace_event_raw_filemap_set_wb_err___g2_7 {
	struct trace_entry ent;
	int gen_missing_7;
} __attribute__((preserve_access_index));
struct pv_lazy_ops___g2_8 {
	void * enter;
	int gen_missing_8;
} __attribute__((preserve_access_index));
struct perf_ibs___g2_9 {
	void * get_count;
	unsigned char offset_max;
	unsigned long long fetch_ignore_if_zero_rip: 1;
	void * config_mask;
	int gen_missing_9;
} __attribute__((preserve_access_index));
union __kfifo___g2_10 {
	signed char in;
	void * esize;
	int gen_missing_10;
} __attribute__((preserve_access_index));
union btf_enum___g2_11 {
	int name_off;
	unsigned long long val: 8;
	int gen_missing_11;
} __attribute__((preserve_access_index));
struct kvm_vcpu___g2_12 {
	int mode;
	struct kvm_vcpu_arch arch;
	int gen_missing_12;
} __attribute__((preserve_access_index));
enum vc_ctl_state___g2_13 {
	ESesc___g2_13 = 2,
	ESANSI_first___g2_13 = 12,
	GEN_MISSING___g2_13 = 3,
};
union opcode___g2_14 {
	int pad[7];
	int gen_missing_14;
} __attribute__((preserve_access_index));
struct user_msghdr___g2_15 {
	void * msg_iov;
	int gen_missing_15;
} __attribute__((preserve_access_index));
struct unwind_state___g2_16 {
	unsigned long long error;
	signed char signal;
	void * sp;
	long task;
	int gen_missing_16;
} __attribute__((preserve_access_index));
union xps_dev_maps___g2_17 {
	int attr_map[1];
	struct callback_head rcu;
	void * nr_ids;
} __attribute__((preserve_access_index));
enum btrfs_compare_tree_result___g2_18 {
	BTRFS_COMPARE_TREE_DELETED___g2_18 = 1,
	BTRFS_COMPARE_TREE_SAME___g2_18 = 4,
	GEN_MISSING___g2_18 = 3,
};
struct virtio_admin_cmd_legacy_wr_data___g2_19 {
	int reserved[7];
	void * offset;
} __attribute__((preserve_access_index));
struct mei_dma_data___g2_20 {
	void * buffer_id;
	void * vaddr;
	unsigned long long daddr;
	int size;
	int gen_missing_20;
} __attribute__((preserve_access_index));
struct trace_event_raw_kvm_vmgexit_exit___g2_21 {
	unsigned long long info2;
	struct trace_entry ent;
	unsigned char info1;
	long long exit_reason: 11;
} __attribute__((preserve_access_index));
struct netlbl_unlhsh_tbl___g2_22 {
	void * tbl;
	unsigned long long size: 8;
	int gen_missing_22;
} __attribute__((preserve_access_index));
struct bpf_insn_cbs___g2_23 {
	void * cb_imm;
} __attribute__((preserve_access_index));
enum show_regs_mode___g2_24 {
	SHOW_REGS_ALL___g2_24 = 2,
	SHOW_REGS_USER___g2_24 = 1,
	GEN_MISSING___g2_24 = 3,
};
struct x86_init_oem___g2_25 {
	void * arch_setup;
	void * banner;
} __attribute__((preserve_access_index));
enum mei_cb_file_ops___g2_26 {
	MEI_FOP_DISCONNECT___g2_26 = 3,
	MEI_FOP_NOTIFY_START___g2_26 = 5,
	GEN_MISSING___g2_26 = 3,
};
struct buffer_data_read_page___g2_27 {
	void * data;
	unsigned long long order;
} __attribute__((preserve_access_index));
struct nft_data_desc___g2_28 {
	short flags;
	unsigned long long size: 6;
	unsigned char type;
	int gen_missing_28;
} __attribute__((preserve_access_index));
union xt_dscp_info___g2_29 {
	unsigned char dscp;
	unsigned long long invert: 8;
} __attribute__((preserve_access_index));
struct iommu_device___g2_30 {
	void * ops;
	void * fwnode;
	int * singleton_group;
} __attribute__((preserve_access_index));
struct xt_ct_target_info___g2_31 {
	void * zone;
	int exp_events;
	long helper;
	void * ct_events;
	int gen_missing_31;
} __attribute__((preserve_access_index));
union nf_conncount_list___g2_32 {
	int last_gc;
	int gen_missing_32;
} __attribute__((preserve_access_index));
union page___g2_33 {
	int gen_missing_33;
} __attribute__((preserve_access_index));
struct iommu_dma_options___g2_34 {
	long fq_timeout;
	long qt;
	int gen_missing_34;
} __attribute__((preserve_access_index));
struct icmp6_err___g2_35 {
	signed char err;
	unsigned long long fatal: 8;
	int gen_missing_35;
} __attribute__((preserve_access_index));
struct trace_event_raw_ext4__es_shrink_enter___g2_36 {
	struct trace_entry ent;
	void * dev;
	char __data[1];
} __attribute__((preserve_access_index));
struct tty_port_operations___g2_37 {
	long shutdown;
	int gen_missing_37;
} __attribute__((preserve_access_index));
struct padata_shell___g2_38 {
	struct list_head list;
	int * pd;
	void * opd;
	void * pinst;
} __attribute__((preserve_access_index));
union request_key_auth___g2_39 {
	long dest_keyring;
	int gen_missing_39;
} __attribute__((preserve_access_index));
enum wb_reason___g2_40 {
	WB_REASON_LAPTOP_TIMER___g2_40 = 4,
	WB_REASON_SYNC___g2_40 = 2,
	GEN_MISSING___g2_40 = 3,
};
struct clk_ops___g2_41 {
	void * save_context;
	int * get_duty_cycle;
	void * is_prepared;
	void * set_rate;
} __attribute__((preserve_access_index));
union napi_alloc_cache___g2_42 {
	int skb_cache[64];
	struct page_frag_cache page;
	void * skb_count;
} __attribute__((preserve_access_index));
struct xfrmk_spdinfo___g2_43 {
	int outcnt;
	unsigned long long fwdscnt: 8;
	unsigned long long inscnt;
	unsigned long long spdhmcnt: 8;
} __attribute__((preserve_access_index));
struct rb_augment_callbacks___g2_44 {
	int * rotate;
	int gen_missing_44;
} __attribute__((preserve_access_index));
struct minmax_sample___g2_45 {
	void * v;
} __attribute__((preserve_access_index));
struct slab_attribute___g2_46 {
	struct attribute attr;
} __attribute__((preserve_access_index));
enum hwtstamp_provider_qualifier___g2_47 {
	HWTSTAMP_PROVIDER_QUALIFIER_PRECISE___g2_47 = 0,
	HWTSTAMP_PROVIDER_QUALIFIER_CNT___g2_47 = 2,
	GEN_MISSING___g2_47 = 3,
};
enum x86_legacy_i8042_state___g2_48 {
	X86_LEGACY_I8042_EXPECTED_PRESENT___g2_48 = 2,
	X86_LEGACY_I8042_PLATFORM_ABSENT___g2_48 = 0,
	GEN_MISSING___g2_48 = 3,
};
union compat_sysinfo___g2_49 {
	char loads[2];
	void * procs;
	long sharedram;
	unsigned char pad;
	int gen_missing_49;
} __attribute__((preserve_access_index));
struct trace_event_raw_xfs_ail_push_class___g2_50 {
	_Bool flags;
	short dev;
	char __data[1];
	unsigned long long lsn;
} __attribute__((preserve_access_index));
struct acpi_resource___g2_51 {
	union acpi_resource_data data;
	short length;
	int gen_missing_51;
} __attribute__((preserve_access_index));
enum numa_vmaskip_reason___g2_52 {
	NUMAB_SKIP_SCAN_DELAY___g2_52 = 3,
	NUMAB_SKIP_SEQ_COMPLETED___g2_52 = 7,
	GEN_MISSING___g2_52 = 3,
};
enum sys_off_mode___g2_53 {
	SYS_OFF_MODE_RESTART___g2_53 = 3,
	SYS_OFF_MODE_POWER_OFF___g2_53 = 2,
	GEN_MISSING___g2_53 = 3,
};
enum proc_hidepid___g2_54 {
	HIDEPID_INVISIBLE___g2_54 = 2,
	HIDEPID_NOT_PTRACEABLE___g2_54 = 5,
	GEN_MISSING___g2_54 = 3,
};
struct posix_acl_hdr___g2_55 {
	struct refcount_struct a_refcount;
} __attribute__((preserve_access_index));
struct ecdh___g2_56 {
	int key_size;
	void * key;
	int gen_missing_56;
} __attribute__((preserve_access_index));
struct uffdio_copy___g2_57 {
	unsigned long long src;
	unsigned char len;
	long long copy: 8;
	int gen_missing_57;
} __attribute__((preserve_access_index));
union bpf_core_spec___g2_58 {
	char raw_spec[65];
	_Bool bit_offset;
	char spec[63];
	short raw_len;
} __attribute__((preserve_access_index));
struct guest_walkerEPT___g2_59 {
	long table_gfn;
	char pte_writable[5];
} __attribute__((preserve_access_index));
long out[530];
SEC("kprobe/do_exit")
int gen(void *p)
{
	out[0] = bpf_core_enum_value_exists(enum x86_pf_error_code___g2_0, X86_PF_WRITE___g2_0);
	out[1] = bpf_core_enum_value(enum x86_pf_error_code___g2_0, X86_PF_WRITE___g2_0);
	out[2] = bpf_core_enum_value_exists(enum x86_pf_error_code___g2_0, X86_PF_RMP___g2_0);
	out[3] = bpf_core_enum_value(enum x86_pf_error_code___g2_0, X86_PF_RMP___g2_0);
	out[4] = bpf_core_enum_value_exists(enum x86_pf_error_code___g2_0, GEN_MISSING___g2_0);
	out[5] = bpf_core_enum_value(enum x86_pf_error_code___g2_0, GEN_MISSING___g2_0);
	out[6] = __builtin_preserve_field_info(((struct sctp_hostname_param___g2_1 *)p)->param_hdr, 2);
	out[7] = __builtin_preserve_field_info(((struct sctp_hostname_param___g2_1 *)p)->param_hdr, 4);
	out[8] = __builtin_preserve_field_info(((struct sctp_hostname_param___g2_1 *)p)->param_hdr, 3);
	out[9] = __builtin_preserve_field_info(((struct sctp_hostname_param___g2_1 *)p)->hostname, 2);
	out[10] = __builtin_preserve_field_info(((struct sctp_hostname_param___g2_1 *)p)->hostname, 1);
	out[11] = __builtin_preserve_field_info(((struct sctp_hostname_param___g2_1 *)p)->hostname, 0);
	out[12] = bpf_core_type_exists(struct sctp_hostname_param___g2_1);
	out[13] = __builtin_preserve_field_info(((struct rtattr___g2_2 *)p)->rta_len, 3);
	out[14] = __builtin_preserve_field_info(((struct rtattr___g2_2 *)p)->rta_len, 5);
	out[15] = __builtin_preserve_field_info(((struct rtattr___g2_2 *)p)->rta_len, 2);
	out[16] = __builtin_preserve_field_info(((struct rtattr___g2_2 *)p)->rta_type, 4);
	out[17] = __builtin_preserve_field_info(((struct rtattr___g2_2 *)p)->rta_type, 2);
	out[18] = __builtin_preserve_field_info(((struct rtattr___g2_2 *)p)->rta_type, 5);
	out[19] = bpf_core_type_size(struct rtattr___g2_2);
	out[20] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->buffer, 1);
	out[21] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->buffer, 2);
	out[22] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->buffer, 0);
	out[23] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->ctx, 3);
	out[24] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->ctx, 1);
	out[25] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->ctx, 2);
	out[26] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->local_copy, 2);
	out[27] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->local_copy, 0);
	out[28] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->local_copy, 1);
	out[29] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->lock, 3);
	out[30] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->lock, 2);
	out[31] = __builtin_preserve_field_info(((struct zcomp_strm___g2_3 *)p)->lock, 4);
	out[32] = bpf_core_type_id_kernel(struct zcomp_strm___g2_3);
	out[33] = bpf_core_enum_value_exists(enum nfqnl_attr_type___g2_4, NFQA_UID___g2_4);
	out[34] = bpf_core_enum_value(enum nfqnl_attr_type___g2_4, NFQA_UID___g2_4);
	out[35] = bpf_core_enum_value_exists(enum nfqnl_attr_type___g2_4, NFQA_L2HDR___g2_4);
	out[36] = bpf_core_enum_value(enum nfqnl_attr_type___g2_4, NFQA_L2HDR___g2_4);
	out[37] = bpf_core_enum_value_exists(enum nfqnl_attr_type___g2_4, GEN_MISSING___g2_4);
	out[38] = bpf_core_enum_value(enum nfqnl_attr_type___g2_4, GEN_MISSING___g2_4);
	out[39] = __builtin_preserve_field_info(((struct fscrypt_direct_key___g2_5 *)p)->dk_descriptor, 0);
	out[40] = __builtin_preserve_field_info(((struct fscrypt_direct_key___g2_5 *)p)->dk_descriptor, 2);
	out[41] = __builtin_preserve_field_info(((struct fscrypt_direct_key___g2_5 *)p)->dk_descriptor, 1);
	out[42] = __builtin_preserve_field_info(((struct fscrypt_direct_key___g2_5 *)p)->dk_key, 4);
	out[43] = __builtin_preserve_field_info(((struct fscrypt_direct_key___g2_5 *)p)->dk_key, 1);
	out[44] = __builtin_preserve_field_info(((struct fscrypt_direct_key___g2_5 *)p)->dk_key, 0);
	out[45] = __builtin_preserve_field_info(((struct fscrypt_direct_key___g2_5 *)p)->dk_sb, 2);
	out[46] = __builtin_preserve_field_info(((struct fscrypt_direct_key___g2_5 *)p)->dk_sb, 0);
	out[47] = __builtin_preserve_field_info(((struct fscrypt_direct_key___g2_5 *)p)->dk_sb, 1);
	out[48] = bpf_core_type_exists(struct fscrypt_direct_key___g2_5);
	out[49] = bpf_core_enum_value_exists(enum stack_type___g2_6, STACK_TYPE_SOFTIRQ___g2_6);
	out[50] = bpf_core_enum_value(enum stack_type___g2_6, STACK_TYPE_SOFTIRQ___g2_6);
	out[51] = bpf_core_enum_value_exists(enum stack_type___g2_6, STACK_TYPE_EXCEPTION___g2_6);
	out[52] = bpf_core_enum_value(enum stack_type___g2_6, STACK_TYPE_EXCEPTION___g2_6);
	out[53] = bpf_core_enum_value_exists(enum stack_type___g2_6, GEN_MISSING___g2_6);
	out[54] = bpf_core_enum_value(enum stack_type___g2_6, GEN_MISSING___g2_6);
	out[55] = __builtin_preserve_field_info(((struct trace_event_raw_filemap_set_wb_err___g2_7 *)p)->ent, 0);
	out[56] = __builtin_preserve_field_info(((struct trace_event_raw_filemap_set_wb_err___g2_7 *)p)->ent, 2);
	out[57] = __builtin_preserve_field_info(((struct trace_event_raw_filemap_set_wb_err___g2_7 *)p)->ent, 1);
	out[58] = __builtin_preserve_field_info(((struct trace_event_raw_filemap_set_wb_err___g2_7 *)p)->gen_missing_7, 2);
	out[59] = __builtin_preserve_field_info(((struct trace_event_raw_filemap_set_wb_err___g2_7 *)p)->gen_missing_7, 1);
	out[60] = __builtin_preserve_field_info(((struct trace_event_raw_filemap_set_wb_err___g2_7 *)p)->gen_missing_7, 4);
	out[61] = bpf_core_type_id_kernel(struct trace_event_raw_filemap_set_wb_err___g2_7);
	out[62] = __builtin_preserve_field_info(((struct pv_lazy_ops___g2_8 *)p)->enter, 1);
	out[63] = __builtin_preserve_field_info(((struct pv_lazy_ops___g2_8 *)p)->enter, 0);
	out[64] = __builtin_preserve_field_info(((struct pv_lazy_ops___g2_8 *)p)->enter, 2);
	out[65] = __builtin_preserve_field_info(((struct pv_lazy_ops___g2_8 *)p)->gen_missing_8, 2);
	out[66] = __builtin_preserve_field_info(((struct pv_lazy_ops___g2_8 *)p)->gen_missing_8, 3);
	out[67] = __builtin_preserve_field_info(((struct pv_lazy_ops___g2_8 *)p)->gen_missing_8, 0);
	out[68] = bpf_core_type_size(struct pv_lazy_ops___g2_8);
	out[69] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->get_count, 2);
	out[70] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->get_count, 1);
	out[71] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->get_count, 0);
	out[72] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->offset_max, 4);
	out[73] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->offset_max, 2);
	out[74] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->offset_max, 1);
	out[75] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->fetch_ignore_if_zero_rip, 2);
	out[76] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->fetch_ignore_if_zero_rip, 5);
	out[77] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->fetch_ignore_if_zero_rip, 4);
	out[78] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->config_mask, 2);
	out[79] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->config_mask, 1);
	out[80] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->config_mask, 0);
	out[81] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->gen_missing_9, 5);
	out[82] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->gen_missing_9, 4);
	out[83] = __builtin_preserve_field_info(((struct perf_ibs___g2_9 *)p)->gen_missing_9, 1);
	out[84] = bpf_core_type_id_kernel(struct perf_ibs___g2_9);
	out[85] = __builtin_preserve_field_info(((union __kfifo___g2_10 *)p)->in, 3);
	out[86] = __builtin_preserve_field_info(((union __kfifo___g2_10 *)p)->in, 0);
	out[87] = __builtin_preserve_field_info(((union __kfifo___g2_10 *)p)->in, 2);
	out[88] = __builtin_preserve_field_info(((union __kfifo___g2_10 *)p)->esize, 0);
	out[89] = __builtin_preserve_field_info(((union __kfifo___g2_10 *)p)->esize, 2);
	out[90] = __builtin_preserve_field_info(((union __kfifo___g2_10 *)p)->esize, 1);
	out[91] = __builtin_preserve_field_info(((union __kfifo___g2_10 *)p)->gen_missing_10, 2);
	out[92] = __builtin_preserve_field_info(((union __kfifo___g2_10 *)p)->gen_missing_10, 3);
	out[93] = __builtin_preserve_field_info(((union __kfifo___g2_10 *)p)->gen_missing_10, 5);
	out[94] = bpf_core_type_id_kernel(union __kfifo___g2_10);
	out[95] = __builtin_preserve_field_info(((union btf_enum___g2_11 *)p)->name_off, 0);
	out[96] = __builtin_preserve_field_info(((union btf_enum___g2_11 *)p)->name_off, 4);
	out[97] = __builtin_preserve_field_info(((union btf_enum___g2_11 *)p)->name_off, 3);
	out[98] = __builtin_preserve_field_info(((union btf_enum___g2_11 *)p)->val, 3);
	out[99] = __builtin_preserve_field_info(((union btf_enum___g2_11 *)p)->val, 2);
	out[100] = __builtin_preserve_field_info(((union btf_enum___g2_11 *)p)->val, 5);
	out[101] = __builtin_preserve_field_info(((union btf_enum___g2_11 *)p)->gen_missing_11, 1);
	out[102] = __builtin_preserve_field_info(((union btf_enum___g2_11 *)p)->gen_missing_11, 5);
	out[103] = __builtin_preserve_field_info(((union btf_enum___g2_11 *)p)->gen_missing_11, 3);
	out[104] = bpf_core_type_size(union btf_enum___g2_11);
	out[105] = __builtin_preserve_field_info(((struct kvm_vcpu___g2_12 *)p)->mode, 2);
	out[106] = __builtin_preserve_field_info(((struct kvm_vcpu___g2_12 *)p)->mode, 5);
	out[107] = __builtin_preserve_field_info(((struct kvm_vcpu___g2_12 *)p)->mode, 0);
	out[108] = __builtin_preserve_field_info(((struct kvm_vcpu___g2_12 *)p)->arch, 2);
	out[109] = __builtin_preserve_field_info(((struct kvm_vcpu___g2_12 *)p)->arch, 1);
	out[110] = __builtin_preserve_field_info(((struct kvm_vcpu___g2_12 *)p)->arch, 0);
	out[111] = __builtin_preserve_field_info(((struct kvm_vcpu___g2_12 *)p)->gen_missing_12, 0);
	out[112] = __builtin_preserve_field_info(((struct kvm_vcpu___g2_12 *)p)->gen_missing_12, 2);
	out[113] = __builtin_preserve_field_info(((struct kvm_vcpu___g2_12 *)p)->gen_missing_12, 1);
	out[114] = bpf_core_type_id_kernel(struct kvm_vcpu___g2_12);
	out[115] = bpf_core_enum_value_exists(enum vc_ctl_state___g2_13, ESesc___g2_13);
	out[116] = bpf_core_enum_value(enum vc_ctl_state___g2_13, ESesc___g2_13);
	out[117] = bpf_core_enum_value_exists(enum vc_ctl_state___g2_13, ESANSI_first___g2_13);
	out[118] = bpf_core_enum_value(enum vc_ctl_state___g2_13, ESANSI_first___g2_13);
	out[119] = bpf_core_enum_value_exists(enum vc_ctl_state___g2_13, GEN_MISSING___g2_13);
	out[120] = bpf_core_enum_value(enum vc_ctl_state___g2_13, GEN_MISSING___g2_13);
	out[122] = __builtin_preserve_field_info(((union opcode___g2_14 *)p)->pad, 1);
	out[123] = __builtin_preserve_field_info(((union opcode___g2_14 *)p)->pad, 0);
	out[124] = __builtin_preserve_field_info(((union opcode___g2_14 *)p)->gen_missing_14, 4);
	out[125] = __builtin_preserve_field_info(((union opcode___g2_14 *)p)->gen_missing_14, 2);
	out[126] = __builtin_preserve_field_info(((union opcode___g2_14 *)p)->gen_missing_14, 3);
	out[127] = bpf_core_type_id_kernel(union opcode___g2_14);
	out[128] = __builtin_preserve_field_info(((struct user_msghdr___g2_15 *)p)->msg_iov, 1);
	out[129] = __builtin_preserve_field_info(((struct user_msghdr___g2_15 *)p)->msg_iov, 2);
	out[130] = __builtin_preserve_field_info(((struct user_msghdr___g2_15 *)p)->msg_iov, 0);
	out[131] = __builtin_preserve_field_info(((struct user_msghdr___g2_15 *)p)->gen_missing_15, 5);
	out[132] = __builtin_preserve_field_info(((struct user_msghdr___g2_15 *)p)->gen_missing_15, 0);
	out[133] = __builtin_preserve_field_info(((struct user_msghdr___g2_15 *)p)->gen_missing_15, 4);
	out[134] = bpf_core_type_id_kernel(struct user_msghdr___g2_15);
	out[135] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->error, 1);
	out[136] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->error, 5);
	out[137] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->error, 3);
	out[138] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->signal, 4);
	out[139] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->signal, 2);
	out[140] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->signal, 3);
	out[141] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->sp, 2);
	out[142] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->sp, 0);
	out[143] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->sp, 1);
	out[144] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->task, 0);
	out[145] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->task, 2);
	out[146] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->task, 1);
	out[147] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->gen_missing_16, 4);
	out[148] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->gen_missing_16, 1);
	out[149] = __builtin_preserve_field_info(((struct unwind_state___g2_16 *)p)->gen_missing_16, 3);
	out[150] = bpf_core_type_exists(struct unwind_state___g2_16);
	out[151] = __builtin_preserve_field_info(((union xps_dev_maps___g2_17 *)p)->attr_map, 0);
	out[152] = __builtin_preserve_field_info(((union xps_dev_maps___g2_17 *)p)->attr_map, 2);
	out[153] = __builtin_preserve_field_info(((union xps_dev_maps___g2_17 *)p)->attr_map, 1);
	out[154] = __builtin_preserve_field_info(((union xps_dev_maps___g2_17 *)p)->rcu, 2);
	out[155] = __builtin_preserve_field_info(((union xps_dev_maps___g2_17 *)p)->rcu, 1);
	out[156] = __builtin_preserve_field_info(((union xps_dev_maps___g2_17 *)p)->rcu, 0);
	out[157] = __builtin_preserve_field_info(((union xps_dev_maps___g2_17 *)p)->nr_ids, 0);
	out[158] = __builtin_preserve_field_info(((union xps_dev_maps___g2_17 *)p)->nr_ids, 1);
	out[159] = __builtin_preserve_field_info(((union xps_dev_maps___g2_17 *)p)->nr_ids, 2);
	out[160] = bpf_core_type_size(union xps_dev_maps___g2_17);
	out[161] = bpf_core_enum_value_exists(enum btrfs_compare_tree_result___g2_18, BTRFS_COMPARE_TREE_DELETED___g2_18);
	out[162] = bpf_core_enum_value(enum btrfs_compare_tree_result___g2_18, BTRFS_COMPARE_TREE_DELETED___g2_18);
	out[163] = bpf_core_enum_value_exists(enum btrfs_compare_tree_result___g2_18, BTRFS_COMPARE_TREE_SAME___g2_18);
	out[164] = bpf_core_enum_value(enum btrfs_compare_tree_result___g2_18, BTRFS_COMPARE_TREE_SAME___g2_18);
	out[165] = bpf_core_enum_value_exists(enum btrfs_compare_tree_result___g2_18, GEN_MISSING___g2_18);
	out[166] = bpf_core_enum_value(enum btrfs_compare_tree_result___g2_18, GEN_MISSING___g2_18);
	out[167] = __builtin_preserve_field_info(((struct virtio_admin_cmd_legacy_wr_data___g2_19 *)p)->reserved[0], 1);
	out[168] = __builtin_preserve_field_info(((struct virtio_admin_cmd_legacy_wr_data___g2_19 *)p)->reserved[0], 2);
	out[169] = __builtin_preserve_field_info(((struct virtio_admin_cmd_legacy_wr_data___g2_19 *)p)->reserved[0], 0);
	out[170] = __builtin_preserve_field_info(((struct virtio_admin_cmd_legacy_wr_data___g2_19 *)p)->offset, 2);
	out[171] = __builtin_preserve_field_info(((struct virtio_admin_cmd_legacy_wr_data___g2_19 *)p)->offset, 0);
	out[172] = __builtin_preserve_field_info(((struct virtio_admin_cmd_legacy_wr_data___g2_19 *)p)->offset, 1);
	out[173] = bpf_core_type_id_kernel(struct virtio_admin_cmd_legacy_wr_data___g2_19);
	out[174] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->buffer_id, 2);
	out[175] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->buffer_id, 0);
	out[176] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->buffer_id, 1);
	out[177] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->vaddr, 2);
	out[178] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->vaddr, 0);
	out[179] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->vaddr, 1);
	out[180] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->daddr, 4);
	out[181] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->daddr, 1);
	out[182] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->daddr, 0);
	out[183] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->size, 4);
	out[184] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->size, 3);
	out[185] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->size, 5);
	out[186] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->gen_missing_20, 2);
	out[187] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->gen_missing_20, 4);
	out[188] = __builtin_preserve_field_info(((struct mei_dma_data___g2_20 *)p)->gen_missing_20, 1);
	out[189] = bpf_core_type_size(struct mei_dma_data___g2_20);
	out[190] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->info2, 5);
	out[191] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->info2, 1);
	out[192] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->info2, 0);
	out[193] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->ent, 0);
	out[194] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->ent, 1);
	out[195] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->ent, 2);
	out[196] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->info1, 3);
	out[197] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->info1, 2);
	out[198] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->info1, 1);
	out[200] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->exit_reason, 2);
	out[201] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_vmgexit_exit___g2_21 *)p)->exit_reason, 3);
	out[202] = bpf_core_type_exists(struct trace_event_raw_kvm_vmgexit_exit___g2_21);
	out[203] = __builtin_preserve_field_info(((struct netlbl_unlhsh_tbl___g2_22 *)p)->tbl, 1);
	out[204] = __builtin_preserve_field_info(((struct netlbl_unlhsh_tbl___g2_22 *)p)->tbl, 2);
	out[205] = __builtin_preserve_field_info(((struct netlbl_unlhsh_tbl___g2_22 *)p)->tbl, 0);
	out[206] = __builtin_preserve_field_info(((struct netlbl_unlhsh_tbl___g2_22 *)p)->size, 5);
	out[207] = __builtin_preserve_field_info(((struct netlbl_unlhsh_tbl___g2_22 *)p)->size, 2);
	out[208] = __builtin_preserve_field_info(((struct netlbl_unlhsh_tbl___g2_22 *)p)->size, 3);
	out[209] = __builtin_preserve_field_info(((struct netlbl_unlhsh_tbl___g2_22 *)p)->gen_missing_22, 4);
	out[210] = __builtin_preserve_field_info(((struct netlbl_unlhsh_tbl___g2_22 *)p)->gen_missing_22, 0);
	out[211] = __builtin_preserve_field_info(((struct netlbl_unlhsh_tbl___g2_22 *)p)->gen_missing_22, 1);
	out[212] = bpf_core_type_size(struct netlbl_unlhsh_tbl___g2_22);
	out[213] = __builtin_preserve_field_info(((struct bpf_insn_cbs___g2_23 *)p)->cb_imm, 2);
	out[214] = __builtin_preserve_field_info(((struct bpf_insn_cbs___g2_23 *)p)->cb_imm, 0);
	out[215] = __builtin_preserve_field_info(((struct bpf_insn_cbs___g2_23 *)p)->cb_imm, 1);
	out[216] = bpf_core_type_exists(struct bpf_insn_cbs___g2_23);
	out[217] = bpf_core_enum_value_exists(enum show_regs_mode___g2_24, SHOW_REGS_ALL___g2_24);
	out[218] = bpf_core_enum_value(enum show_regs_mode___g2_24, SHOW_REGS_ALL___g2_24);
	out[219] = bpf_core_enum_value_exists(enum show_regs_mode___g2_24, SHOW_REGS_USER___g2_24);
	out[220] = bpf_core_enum_value(enum show_regs_mode___g2_24, SHOW_REGS_USER___g2_24);
	out[221] = bpf_core_enum_value_exists(enum show_regs_mode___g2_24, GEN_MISSING___g2_24);
	out[222] = bpf_core_enum_value(enum show_regs_mode___g2_24, GEN_MISSING___g2_24);
	out[223] = __builtin_preserve_field_info(((struct x86_init_oem___g2_25 *)p)->arch_setup, 2);
	out[224] = __builtin_preserve_field_info(((struct x86_init_oem___g2_25 *)p)->arch_setup, 1);
	out[225] = __builtin_preserve_field_info(((struct x86_init_oem___g2_25 *)p)->arch_setup, 0);
	out[226] = __builtin_preserve_field_info(((struct x86_init_oem___g2_25 *)p)->banner, 1);
	out[227] = __builtin_preserve_field_info(((struct x86_init_oem___g2_25 *)p)->banner, 2);
	out[228] = __builtin_preserve_field_info(((struct x86_init_oem___g2_25 *)p)->banner, 0);
	out[229] = bpf_core_type_exists(struct x86_init_oem___g2_25);
	out[230] = bpf_core_enum_value_exists(enum mei_cb_file_ops___g2_26, MEI_FOP_DISCONNECT___g2_26);
	out[231] = bpf_core_enum_value(enum mei_cb_file_ops___g2_26, MEI_FOP_DISCONNECT___g2_26);
	out[232] = bpf_core_enum_value_exists(enum mei_cb_file_ops___g2_26, MEI_FOP_NOTIFY_START___g2_26);
	out[233] = bpf_core_enum_value(enum mei_cb_file_ops___g2_26, MEI_FOP_NOTIFY_START___g2_26);
	out[234] = bpf_core_enum_value_exists(enum mei_cb_file_ops___g2_26, GEN_MISSING___g2_26);
	out[235] = bpf_core_enum_value(enum mei_cb_file_ops___g2_26, GEN_MISSING___g2_26);
	out[236] = __builtin_preserve_field_info(((struct buffer_data_read_page___g2_27 *)p)->data, 1);
	out[237] = __builtin_preserve_field_info(((struct buffer_data_read_page___g2_27 *)p)->data, 2);
	out[238] = __builtin_preserve_field_info(((struct buffer_data_read_page___g2_27 *)p)->data, 0);
	out[239] = __builtin_preserve_field_info(((struct buffer_data_read_page___g2_27 *)p)->order, 4);
	out[240] = __builtin_preserve_field_info(((struct buffer_data_read_page___g2_27 *)p)->order, 5);
	out[241] = __builtin_preserve_field_info(((struct buffer_data_read_page___g2_27 *)p)->order, 0);
	out[242] = bpf_core_type_size(struct buffer_data_read_page___g2_27);
	out[243] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->flags, 5);
	out[244] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->flags, 3);
	out[245] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->flags, 0);
	out[246] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->size, 4);
	out[247] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->size, 2);
	out[248] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->size, 1);
	out[249] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->type, 4);
	out[250] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->type, 3);
	out[251] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->type, 2);
	out[252] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->gen_missing_28, 3);
	out[253] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->gen_missing_28, 1);
	out[254] = __builtin_preserve_field_info(((struct nft_data_desc___g2_28 *)p)->gen_missing_28, 2);
	out[255] = bpf_core_type_size(struct nft_data_desc___g2_28);
	out[256] = __builtin_preserve_field_info(((union xt_dscp_info___g2_29 *)p)->dscp, 5);
	out[257] = __builtin_preserve_field_info(((union xt_dscp_info___g2_29 *)p)->dscp, 4);
	out[258] = __builtin_preserve_field_info(((union xt_dscp_info___g2_29 *)p)->dscp, 0);
	out[259] = __builtin_preserve_field_info(((union xt_dscp_info___g2_29 *)p)->invert, 2);
	out[260] = __builtin_preserve_field_info(((union xt_dscp_info___g2_29 *)p)->invert, 5);
	out[261] = __builtin_preserve_field_info(((union xt_dscp_info___g2_29 *)p)->invert, 0);
	out[262] = bpf_core_type_exists(union xt_dscp_info___g2_29);
	out[263] = __builtin_preserve_field_info(((struct iommu_device___g2_30 *)p)->ops, 1);
	out[264] = __builtin_preserve_field_info(((struct iommu_device___g2_30 *)p)->ops, 0);
	out[265] = __builtin_preserve_field_info(((struct iommu_device___g2_30 *)p)->ops, 2);
	out[266] = __builtin_preserve_field_info(((struct iommu_device___g2_30 *)p)->fwnode, 1);
	out[267] = __builtin_preserve_field_info(((struct iommu_device___g2_30 *)p)->fwnode, 2);
	out[268] = __builtin_preserve_field_info(((struct iommu_device___g2_30 *)p)->fwnode, 0);
	out[269] = __builtin_preserve_field_info(((struct iommu_device___g2_30 *)p)->singleton_group, 2);
	out[270] = __builtin_preserve_field_info(((struct iommu_device___g2_30 *)p)->singleton_group, 1);
	out[271] = __builtin_preserve_field_info(((struct iommu_device___g2_30 *)p)->singleton_group, 0);
	out[272] = bpf_core_type_id_kernel(struct iommu_device___g2_30);
	out[273] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->zone, 1);
	out[274] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->zone, 2);
	out[275] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->zone, 0);
	out[276] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->exp_events, 2);
	out[277] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->exp_events, 0);
	out[278] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->exp_events, 5);
	out[279] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->helper, 1);
	out[280] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->helper, 5);
	out[281] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->helper, 0);
	out[282] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->ct_events, 0);
	out[283] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->ct_events, 1);
	out[284] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->ct_events, 2);
	out[285] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->gen_missing_31, 2);
	out[286] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->gen_missing_31, 3);
	out[287] = __builtin_preserve_field_info(((struct xt_ct_target_info___g2_31 *)p)->gen_missing_31, 0);
	out[288] = bpf_core_type_size(struct xt_ct_target_info___g2_31);
	out[289] = __builtin_preserve_field_info(((union nf_conncount_list___g2_32 *)p)->last_gc, 0);
	out[290] = __builtin_preserve_field_info(((union nf_conncount_list___g2_32 *)p)->last_gc, 4);
	out[291] = __builtin_preserve_field_info(((union nf_conncount_list___g2_32 *)p)->last_gc, 2);
	out[292] = __builtin_preserve_field_info(((union nf_conncount_list___g2_32 *)p)->gen_missing_32, 5);
	out[293] = __builtin_preserve_field_info(((union nf_conncount_list___g2_32 *)p)->gen_missing_32, 4);
	out[294] = __builtin_preserve_field_info(((union nf_conncount_list___g2_32 *)p)->gen_missing_32, 1);
	out[295] = bpf_core_type_exists(union nf_conncount_list___g2_32);
	out[296] = __builtin_preserve_field_info(((union page___g2_33 *)p)->gen_missing_33, 0);
	out[297] = __builtin_preserve_field_info(((union page___g2_33 *)p)->gen_missing_33, 4);
	out[298] = __builtin_preserve_field_info(((union page___g2_33 *)p)->gen_missing_33, 1);
	out[299] = bpf_core_type_id_kernel(union page___g2_33);
	out[300] = __builtin_preserve_field_info(((struct iommu_dma_options___g2_34 *)p)->fq_timeout, 3);
	out[301] = __builtin_preserve_field_info(((struct iommu_dma_options___g2_34 *)p)->fq_timeout, 1);
	out[302] = __builtin_preserve_field_info(((struct iommu_dma_options___g2_34 *)p)->fq_timeout, 5);
	out[303] = __builtin_preserve_field_info(((struct iommu_dma_options___g2_34 *)p)->qt, 1);
	out[304] = __builtin_preserve_field_info(((struct iommu_dma_options___g2_34 *)p)->qt, 3);
	out[305] = __builtin_preserve_field_info(((struct iommu_dma_options___g2_34 *)p)->qt, 2);
	out[306] = __builtin_preserve_field_info(((struct iommu_dma_options___g2_34 *)p)->gen_missing_34, 2);
	out[307] = __builtin_preserve_field_info(((struct iommu_dma_options___g2_34 *)p)->gen_missing_34, 0);
	out[308] = __builtin_preserve_field_info(((struct iommu_dma_options___g2_34 *)p)->gen_missing_34, 4);
	out[309] = bpf_core_type_size(struct iommu_dma_options___g2_34);
	out[310] = __builtin_preserve_field_info(((struct icmp6_err___g2_35 *)p)->err, 4);
	out[311] = __builtin_preserve_field_info(((struct icmp6_err___g2_35 *)p)->err, 0);
	out[312] = __builtin_preserve_field_info(((struct icmp6_err___g2_35 *)p)->err, 1);
	out[313] = __builtin_preserve_field_info(((struct icmp6_err___g2_35 *)p)->fatal, 5);
	out[314] = __builtin_preserve_field_info(((struct icmp6_err___g2_35 *)p)->fatal, 0);
	out[315] = __builtin_preserve_field_info(((struct icmp6_err___g2_35 *)p)->fatal, 2);
	out[316] = __builtin_preserve_field_info(((struct icmp6_err___g2_35 *)p)->gen_missing_35, 5);
	out[317] = __builtin_preserve_field_info(((struct icmp6_err___g2_35 *)p)->gen_missing_35, 3);
	out[318] = __builtin_preserve_field_info(((struct icmp6_err___g2_35 *)p)->gen_missing_35, 0);
	out[319] = bpf_core_type_id_kernel(struct icmp6_err___g2_35);
	out[320] = __builtin_preserve_field_info(((struct trace_event_raw_ext4__es_shrink_enter___g2_36 *)p)->ent, 1);
	out[321] = __builtin_preserve_field_info(((struct trace_event_raw_ext4__es_shrink_enter___g2_36 *)p)->ent, 2);
	out[322] = __builtin_preserve_field_info(((struct trace_event_raw_ext4__es_shrink_enter___g2_36 *)p)->ent, 0);
	out[323] = __builtin_preserve_field_info(((struct trace_event_raw_ext4__es_shrink_enter___g2_36 *)p)->dev, 0);
	out[324] = __builtin_preserve_field_info(((struct trace_event_raw_ext4__es_shrink_enter___g2_36 *)p)->dev, 1);
	out[325] = __builtin_preserve_field_info(((struct trace_event_raw_ext4__es_shrink_enter___g2_36 *)p)->dev, 2);
	out[326] = __builtin_preserve_field_info(((struct trace_event_raw_ext4__es_shrink_enter___g2_36 *)p)->__data, 2);
	out[327] = __builtin_preserve_field_info(((struct trace_event_raw_ext4__es_shrink_enter___g2_36 *)p)->__data, 0);
	out[328] = __builtin_preserve_field_info(((struct trace_event_raw_ext4__es_shrink_enter___g2_36 *)p)->__data, 1);
	out[329] = bpf_core_type_size(struct trace_event_raw_ext4__es_shrink_enter___g2_36);
	out[330] = __builtin_preserve_field_info(((struct tty_port_operations___g2_37 *)p)->shutdown, 3);
	out[331] = __builtin_preserve_field_info(((struct tty_port_operations___g2_37 *)p)->shutdown, 2);
	out[332] = __builtin_preserve_field_info(((struct tty_port_operations___g2_37 *)p)->shutdown, 4);
	out[333] = __builtin_preserve_field_info(((struct tty_port_operations___g2_37 *)p)->gen_missing_37, 4);
	out[334] = __builtin_preserve_field_info(((struct tty_port_operations___g2_37 *)p)->gen_missing_37, 3);
	out[335] = __builtin_preserve_field_info(((struct tty_port_operations___g2_37 *)p)->gen_missing_37, 1);
	out[336] = bpf_core_type_size(struct tty_port_operations___g2_37);
	out[337] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->list, 2);
	out[338] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->list, 1);
	out[339] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->list, 0);
	out[340] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->pd, 0);
	out[341] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->pd, 2);
	out[342] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->pd, 1);
	out[343] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->opd, 2);
	out[344] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->opd, 1);
	out[345] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->opd, 0);
	out[346] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->pinst, 2);
	out[347] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->pinst, 0);
	out[348] = __builtin_preserve_field_info(((struct padata_shell___g2_38 *)p)->pinst, 1);
	out[349] = bpf_core_type_exists(struct padata_shell___g2_38);
	out[350] = __builtin_preserve_field_info(((union request_key_auth___g2_39 *)p)->dest_keyring, 4);
	out[351] = __builtin_preserve_field_info(((union request_key_auth___g2_39 *)p)->dest_keyring, 2);
	out[352] = __builtin_preserve_field_info(((union request_key_auth___g2_39 *)p)->dest_keyring, 5);
	out[353] = __builtin_preserve_field_info(((union request_key_auth___g2_39 *)p)->gen_missing_39, 3);
	out[354] = __builtin_preserve_field_info(((union request_key_auth___g2_39 *)p)->gen_missing_39, 0);
	out[355] = __builtin_preserve_field_info(((union request_key_auth___g2_39 *)p)->gen_missing_39, 5);
	out[356] = bpf_core_type_size(union request_key_auth___g2_39);
	out[357] = bpf_core_enum_value_exists(enum wb_reason___g2_40, WB_REASON_LAPTOP_TIMER___g2_40);
	out[358] = bpf_core_enum_value(enum wb_reason___g2_40, WB_REASON_LAPTOP_TIMER___g2_40);
	out[359] = bpf_core_enum_value_exists(enum wb_reason___g2_40, WB_REASON_SYNC___g2_40);
	out[360] = bpf_core_enum_value(enum wb_reason___g2_40, WB_REASON_SYNC___g2_40);
	out[361] = bpf_core_enum_value_exists(enum wb_reason___g2_40, GEN_MISSING___g2_40);
	out[362] = bpf_core_enum_value(enum wb_reason___g2_40, GEN_MISSING___g2_40);
	out[363] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->save_context, 0);
	out[364] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->save_context, 2);
	out[365] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->save_context, 1);
	out[366] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->get_duty_cycle, 2);
	out[367] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->get_duty_cycle, 1);
	out[368] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->get_duty_cycle, 0);
	out[369] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->is_prepared, 0);
	out[370] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->is_prepared, 2);
	out[371] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->is_prepared, 1);
	out[372] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->set_rate, 1);
	out[373] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->set_rate, 0);
	out[374] = __builtin_preserve_field_info(((struct clk_ops___g2_41 *)p)->set_rate, 2);
	out[375] = bpf_core_type_id_kernel(struct clk_ops___g2_41);
	out[376] = __builtin_preserve_field_info(((union napi_alloc_cache___g2_42 *)p)->skb_cache[0], 0);
	out[377] = __builtin_preserve_field_info(((union napi_alloc_cache___g2_42 *)p)->skb_cache[0], 2);
	out[378] = __builtin_preserve_field_info(((union napi_alloc_cache___g2_42 *)p)->skb_cache[0], 1);
	out[379] = __builtin_preserve_field_info(((union napi_alloc_cache___g2_42 *)p)->page, 2);
	out[380] = __builtin_preserve_field_info(((union napi_alloc_cache___g2_42 *)p)->page, 1);
	out[381] = __builtin_preserve_field_info(((union napi_alloc_cache___g2_42 *)p)->page, 0);
	out[382] = __builtin_preserve_field_info(((union napi_alloc_cache___g2_42 *)p)->skb_count, 0);
	out[383] = __builtin_preserve_field_info(((union napi_alloc_cache___g2_42 *)p)->skb_count, 1);
	out[384] = __builtin_preserve_field_info(((union napi_alloc_cache___g2_42 *)p)->skb_count, 2);
	out[385] = bpf_core_type_size(union napi_alloc_cache___g2_42);
	out[386] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->outcnt, 4);
	out[387] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->outcnt, 0);
	out[388] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->outcnt, 1);
	out[389] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->fwdscnt, 3);
	out[390] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->fwdscnt, 1);
	out[391] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->fwdscnt, 0);
	out[392] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->inscnt, 2);
	out[393] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->inscnt, 4);
	out[394] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->inscnt, 5);
	out[395] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->spdhmcnt, 3);
	out[396] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->spdhmcnt, 0);
	out[397] = __builtin_preserve_field_info(((struct xfrmk_spdinfo___g2_43 *)p)->spdhmcnt, 2);
	out[398] = bpf_core_type_size(struct xfrmk_spdinfo___g2_43);
	out[399] = __builtin_preserve_field_info(((struct rb_augment_callbacks___g2_44 *)p)->rotate, 2);
	out[400] = __builtin_preserve_field_info(((struct rb_augment_callbacks___g2_44 *)p)->rotate, 1);
	out[401] = __builtin_preserve_field_info(((struct rb_augment_callbacks___g2_44 *)p)->rotate, 0);
	out[402] = __builtin_preserve_field_info(((struct rb_augment_callbacks___g2_44 *)p)->gen_missing_44, 2);
	out[403] = __builtin_preserve_field_info(((struct rb_augment_callbacks___g2_44 *)p)->gen_missing_44, 4);
	out[404] = __builtin_preserve_field_info(((struct rb_augment_callbacks___g2_44 *)p)->gen_missing_44, 1);
	out[405] = bpf_core_type_exists(struct rb_augment_callbacks___g2_44);
	out[406] = __builtin_preserve_field_info(((struct minmax_sample___g2_45 *)p)->v, 2);
	out[407] = __builtin_preserve_field_info(((struct minmax_sample___g2_45 *)p)->v, 0);
	out[408] = __builtin_preserve_field_info(((struct minmax_sample___g2_45 *)p)->v, 1);
	out[409] = bpf_core_type_size(struct minmax_sample___g2_45);
	out[410] = __builtin_preserve_field_info(((struct slab_attribute___g2_46 *)p)->attr, 1);
	out[411] = __builtin_preserve_field_info(((struct slab_attribute___g2_46 *)p)->attr, 0);
	out[412] = __builtin_preserve_field_info(((struct slab_attribute___g2_46 *)p)->attr, 2);
	out[413] = bpf_core_type_exists(struct slab_attribute___g2_46);
	out[414] = bpf_core_enum_value_exists(enum hwtstamp_provider_qualifier___g2_47, HWTSTAMP_PROVIDER_QUALIFIER_PRECISE___g2_47);
	out[415] = bpf_core_enum_value(enum hwtstamp_provider_qualifier___g2_47, HWTSTAMP_PROVIDER_QUALIFIER_PRECISE___g2_47);
	out[416] = bpf_core_enum_value_exists(enum hwtstamp_provider_qualifier___g2_47, HWTSTAMP_PROVIDER_QUALIFIER_CNT___g2_47);
	out[417] = bpf_core_enum_value(enum hwtstamp_provider_qualifier___g2_47, HWTSTAMP_PROVIDER_QUALIFIER_CNT___g2_47);
	out[418] = bpf_core_enum_value_exists(enum hwtstamp_provider_qualifier___g2_47, GEN_MISSING___g2_47);
	out[419] = bpf_core_enum_value(enum hwtstamp_provider_qualifier___g2_47, GEN_MISSING___g2_47);
	out[420] = bpf_core_enum_value_exists(enum x86_legacy_i8042_state___g2_48, X86_LEGACY_I8042_EXPECTED_PRESENT___g2_48);
	out[421] = bpf_core_enum_value(enum x86_legacy_i8042_state___g2_48, X86_LEGACY_I8042_EXPECTED_PRESENT___g2_48);
	out[422] = bpf_core_enum_value_exists(enum x86_legacy_i8042_state___g2_48, X86_LEGACY_I8042_PLATFORM_ABSENT___g2_48);
	out[423] = bpf_core_enum_value(enum x86_legacy_i8042_state___g2_48, X86_LEGACY_I8042_PLATFORM_ABSENT___g2_48);
	out[424] = bpf_core_enum_value_exists(enum x86_legacy_i8042_state___g2_48, GEN_MISSING___g2_48);
	out[425] = bpf_core_enum_value(enum x86_legacy_i8042_state___g2_48, GEN_MISSING___g2_48);
	out[426] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->loads, 2);
	out[427] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->loads, 0);
	out[428] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->loads, 1);
	out[429] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->procs, 1);
	out[430] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->procs, 2);
	out[431] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->procs, 0);
	out[432] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->sharedram, 3);
	out[433] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->sharedram, 4);
	out[434] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->sharedram, 1);
	out[435] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->pad, 2);
	out[436] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->pad, 1);
	out[437] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->pad, 0);
	out[438] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->gen_missing_49, 2);
	out[439] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->gen_missing_49, 1);
	out[440] = __builtin_preserve_field_info(((union compat_sysinfo___g2_49 *)p)->gen_missing_49, 4);
	out[441] = bpf_core_type_id_kernel(union compat_sysinfo___g2_49);
	out[442] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->flags, 2);
	out[443] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->flags, 5);
	out[444] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->flags, 1);
	out[445] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->dev, 3);
	out[446] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->dev, 5);
	out[447] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->dev, 2);
	out[448] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->__data[0], 2);
	out[449] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->__data[0], 1);
	out[450] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->__data[0], 0);
	out[451] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->lsn, 4);
	out[452] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->lsn, 5);
	out[453] = __builtin_preserve_field_info(((struct trace_event_raw_xfs_ail_push_class___g2_50 *)p)->lsn, 1);
	out[454] = bpf_core_type_size(struct trace_event_raw_xfs_ail_push_class___g2_50);
	out[455] = __builtin_preserve_field_info(((struct acpi_resource___g2_51 *)p)->data, 2);
	out[456] = __builtin_preserve_field_info(((struct acpi_resource___g2_51 *)p)->data, 1);
	out[457] = __builtin_preserve_field_info(((struct acpi_resource___g2_51 *)p)->data, 0);
	out[458] = __builtin_preserve_field_info(((struct acpi_resource___g2_51 *)p)->length, 4);
	out[459] = __builtin_preserve_field_info(((struct acpi_resource___g2_51 *)p)->length, 2);
	out[460] = __builtin_preserve_field_info(((struct acpi_resource___g2_51 *)p)->length, 5);
	out[461] = __builtin_preserve_field_info(((struct acpi_resource___g2_51 *)p)->gen_missing_51, 1);
	out[462] = __builtin_preserve_field_info(((struct acpi_resource___g2_51 *)p)->gen_missing_51, 5);
	out[463] = __builtin_preserve_field_info(((struct acpi_resource___g2_51 *)p)->gen_missing_51, 4);
	out[464] = bpf_core_type_id_kernel(struct acpi_resource___g2_51);
	out[465] = bpf_core_enum_value_exists(enum numa_vmaskip_reason___g2_52, NUMAB_SKIP_SCAN_DELAY___g2_52);
	out[466] = bpf_core_enum_value(enum numa_vmaskip_reason___g2_52, NUMAB_SKIP_SCAN_DELAY___g2_52);
	out[467] = bpf_core_enum_value_exists(enum numa_vmaskip_reason___g2_52, NUMAB_SKIP_SEQ_COMPLETED___g2_52);
	out[468] = bpf_core_enum_value(enum numa_vmaskip_reason___g2_52, NUMAB_SKIP_SEQ_COMPLETED___g2_52);
	out[469] = bpf_core_enum_value_exists(enum numa_vmaskip_reason___g2_52, GEN_MISSING___g2_52);
	out[470] = bpf_core_enum_value(enum numa_vmaskip_reason___g2_52, GEN_MISSING___g2_52);
	out[471] = bpf_core_enum_value_exists(enum sys_off_mode___g2_53, SYS_OFF_MODE_RESTART___g2_53);
	out[472] = bpf_core_enum_value(enum sys_off_mode___g2_53, SYS_OFF_MODE_RESTART___g2_53);
	out[473] = bpf_core_enum_value_exists(enum sys_off_mode___g2_53, SYS_OFF_MODE_POWER_OFF___g2_53);
	out[474] = bpf_core_enum_value(enum sys_off_mode___g2_53, SYS_OFF_MODE_POWER_OFF___g2_53);
	out[475] = bpf_core_enum_value_exists(enum sys_off_mode___g2_53, GEN_MISSING___g2_53);
	out[476] = bpf_core_enum_value(enum sys_off_mode___g2_53, GEN_MISSING___g2_53);
	out[477] = bpf_core_enum_value_exists(enum proc_hidepid___g2_54, HIDEPID_INVISIBLE___g2_54);
	out[478] = bpf_core_enum_value(enum proc_hidepid___g2_54, HIDEPID_INVISIBLE___g2_54);
	out[479] = bpf_core_enum_value_exists(enum proc_hidepid___g2_54, HIDEPID_NOT_PTRACEABLE___g2_54);
	out[480] = bpf_core_enum_value(enum proc_hidepid___g2_54, HIDEPID_NOT_PTRACEABLE___g2_54);
	out[481] = bpf_core_enum_value_exists(enum proc_hidepid___g2_54, GEN_MISSING___g2_54);
	out[482] = bpf_core_enum_value(enum proc_hidepid___g2_54, GEN_MISSING___g2_54);
	out[483] = __builtin_preserve_field_info(((struct posix_acl_hdr___g2_55 *)p)->a_refcount, 1);
	out[484] = __builtin_preserve_field_info(((struct posix_acl_hdr___g2_55 *)p)->a_refcount, 2);
	out[485] = __builtin_preserve_field_info(((struct posix_acl_hdr___g2_55 *)p)->a_refcount, 0);
	out[486] = bpf_core_type_exists(struct posix_acl_hdr___g2_55);
	out[487] = __builtin_preserve_field_info(((struct ecdh___g2_56 *)p)->key_size, 1);
	out[488] = __builtin_preserve_field_info(((struct ecdh___g2_56 *)p)->key_size, 0);
	out[489] = __builtin_preserve_field_info(((struct ecdh___g2_56 *)p)->key_size, 4);
	out[490] = __builtin_preserve_field_info(((struct ecdh___g2_56 *)p)->key, 1);
	out[491] = __builtin_preserve_field_info(((struct ecdh___g2_56 *)p)->key, 2);
	out[492] = __builtin_preserve_field_info(((struct ecdh___g2_56 *)p)->key, 0);
	out[493] = __builtin_preserve_field_info(((struct ecdh___g2_56 *)p)->gen_missing_56, 5);
	out[494] = __builtin_preserve_field_info(((struct ecdh___g2_56 *)p)->gen_missing_56, 4);
	out[495] = __builtin_preserve_field_info(((struct ecdh___g2_56 *)p)->gen_missing_56, 0);
	out[496] = bpf_core_type_size(struct ecdh___g2_56);
	out[497] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->src, 2);
	out[498] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->src, 1);
	out[499] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->src, 4);
	out[500] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->len, 4);
	out[501] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->len, 5);
	out[502] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->len, 1);
	out[503] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->copy, 1);
	out[504] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->copy, 4);
	out[505] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->copy, 3);
	out[506] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->gen_missing_57, 1);
	out[507] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->gen_missing_57, 3);
	out[508] = __builtin_preserve_field_info(((struct uffdio_copy___g2_57 *)p)->gen_missing_57, 2);
	out[509] = bpf_core_type_id_kernel(struct uffdio_copy___g2_57);
	out[510] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->raw_spec, 0);
	out[511] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->raw_spec, 2);
	out[512] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->raw_spec, 1);
	out[513] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->bit_offset, 3);
	out[514] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->bit_offset, 4);
	out[515] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->bit_offset, 0);
	out[516] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->spec, 0);
	out[517] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->spec, 1);
	out[518] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->spec, 2);
	out[519] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->raw_len, 2);
	out[520] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->raw_len, 0);
	out[521] = __builtin_preserve_field_info(((union bpf_core_spec___g2_58 *)p)->raw_len, 5);
	out[522] = bpf_core_type_size(union bpf_core_spec___g2_58);
	out[523] = __builtin_preserve_field_info(((struct guest_walkerEPT___g2_59 *)p)->table_gfn, 0);
	out[524] = __builtin_preserve_field_info(((struct guest_walkerEPT___g2_59 *)p)->table_gfn, 4);
	out[525] = __builtin_preserve_field_info(((struct guest_walkerEPT___g2_59 *)p)->table_gfn, 2);
	out[526] = __builtin_preserve_field_info(((struct guest_walkerEPT___g2_59 *)p)->pte_writable[0], 1);
	out[527] = __builtin_preserve_field_info(((struct guest_walkerEPT___g2_59 *)p)->pte_writable[0], 0);
	out[528] = __builtin_preserve_field_info(((struct guest_walkerEPT___g2_59 *)p)->pte_writable[0], 2);
	out[529] = bpf_core_type_exists(struct guest_walkerEPT___g2_59);
	return 0;
}
