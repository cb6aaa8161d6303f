// Generated CO-RE relocations for differential tests against libbpf and bpftool:
//   python3 gen.py --flavors 7 60 > flav2.bpf.c  (testdata/core/gen/gen.py; repair.py dropped the lines clang 14 rejects)
//   clang-14 -g -O2 -target bpf -D__TARGET_ARCH_x86 -c flav2.bpf.c -o flav2.bpf.o && llvm-strip -g flav2.bpf.o
// vmlinux.h is "bpftool btf dump file host-6.18.44.btf format c" (not committed).
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
char LICENSE[] SEC("license") = "GPL";
struct bpf_sanitize_info___g7_0 {
	int aux;
	int gen_missing_0;
} __attribute__((preserve_access_index));
struct acpi_object_list___g7_1 {
	unsigned long long count;
} __attribute__((preserve_access_index));
enum unwind_user_type_bits___g7_2 {
	UNWIND_USER_TYPE_FP_BIT___g7_2 = 0,
	NR_UNWIND_USER_TYPE_BITS___g7_2 = 1,
	GEN_MISSING___g7_2 = 3,
};
struct sctp_hmac_algo_param___g7_3 {
	struct sctp_paramhdr param_hdr;
	char hmac_ids[1];
} __attribute__((preserve_access_index));
struct vfree_deferred___g7_4 {
	struct llist_head list;
	int wq;
} __attribute__((preserve_access_index));
struct nft_rbtree_elem___g7_5 {
	struct nft_set_ext ext;
	int gen_missing_5;
} __attribute__((preserve_access_index));
struct trace_event_raw_kvm_unmap_hva_range___g7_6 {
	long __data;
	void * start;
	short end;
	int gen_missing_6;
} __attribute__((preserve_access_index));
enum cmis_cdb_fw_write_mechanism___g7_7 {
	CMIS_CDB_FW_WRITE_MECHANISM_EPL___g7_7 = 16,
	CMIS_CDB_FW_WRITE_MECHANISM_BOTH___g7_7 = 17,
	GEN_MISSING___g7_7 = 3,
};
struct hsu_dma_desc___g7_8 {
	struct virt_dma_desc vdesc;
	int direction;
} __attribute__((preserve_access_index));
struct crypto_attr_type___g7_9 {
	_Bool mask;
} __attribute__((preserve_access_index));
struct nf_conncount_tuple___g7_10 {
	struct nf_conntrack_tuple tuple;
	int gen_missing_10;
} __attribute__((preserve_access_index));
union compat_ebt_mark_m_info___g7_11 {
	unsigned char mark;
	short bitmask;
	long long invert: 11;
} __attribute__((preserve_access_index));
enum flow_block_binder_type___g7_12 {
	FLOW_BLOCK_BINDER_TYPE_CLSACT_EGRESS___g7_12 = 3,
	FLOW_BLOCK_BINDER_TYPE_CLSACT_INGRESS___g7_12 = 2,
	GEN_MISSING___g7_12 = 3,
};
enum flow_block_binder_type___g7_13 {
	FLOW_BLOCK_BINDER_TYPE_CLSACT_EGRESS___g7_13 = 3,
	FLOW_BLOCK_BINDER_TYPE_UNSPEC___g7_13 = 0,
	GEN_MISSING___g7_13 = 3,
};
struct btf_relocate___g7_14 {
	int * id_map;
	void * str_map;
	int gen_missing_14;
} __attribute__((preserve_access_index));
struct fwnode_operations___g7_15 {
	long property_read_int_array;
	void * property_present;
	long add_links;
	long graph_parse_endpoint;
} __attribute__((preserve_access_index));
enum btrfs_chunk_allocation_policy___g7_16 {
	BTRFS_CHUNK_ALLOC_REGULAR___g7_16 = 0,
	BTRFS_CHUNK_ALLOC_ZONED___g7_16 = 2,
	GEN_MISSING___g7_16 = 3,
};
struct RegistrationConfirm_callSignalAddress___g7_17 {
	long item;
	short count;
} __attribute__((preserve_access_index));
enum ipset_adt___g7_18 {
	IPSET_DEL___g7_18 = 2,
	IPSET_CREATE___g7_18 = 3,
	GEN_MISSING___g7_18 = 3,
};
struct dim___g7_19 {
	int state;
	void * tired;
} __attribute__((preserve_access_index));
struct public_key_signature___g7_20 {
	long digest;
	char auth_ids[4];
	long pkey_algo;
	void * encoding;
} __attribute__((preserve_access_index));
struct nft_ct_frag6_pernet___g7_21 {
	void * nf_frag_frags_hdr;
	int gen_missing_21;
} __attribute__((preserve_access_index));
enum nft_verdict_attributes___g7_22 {
	__NFTA_VERDICT_MAX___g7_22 = 5,
	NFTA_VERDICT_CODE___g7_22 = 1,
	GEN_MISSING___g7_22 = 3,
};
struct packet_diag_req___g7_23 {
	long pdiag_cookie;
	unsigned long long pdiag_show;
} __attribute__((preserve_access_index));
struct ovl_opt_set___g7_24 {
	signed char nfs_export;
	unsigned char metacopy;
} __attribute__((preserve_access_index));
enum con_flush_mode___g7_25 {
	CONSOLE_REPLAY_ALL___g7_25 = 1,
	CONSOLE_FLUSH_PENDING___g7_25 = 0,
	GEN_MISSING___g7_25 = 3,
};
union crypto_queue___g7_26 {
	struct list_head list;
	void * backlog;
	unsigned long long qlen;
} __attribute__((preserve_access_index));
enum udp_tunnel_nic_table_entry_flags___g7_27 {
	UDP_TUNNEL_NIC_ENTRY_OP_FAIL___g7_27 = 4,
	UDP_TUNNEL_NIC_ENTRY_DEL___g7_27 = 3,
	GEN_MISSING___g7_27 = 3,
};
enum nf_ct_ecache_state___g7_28 {
	NFCT_ECACHE_DESTROY_SENT___g7_28 = 1,
	NFCT_ECACHE_DESTROY_FAIL___g7_28 = 0,
	GEN_MISSING___g7_28 = 3,
};
struct dma_page___g7_29 {
	long vaddr;
} __attribute__((preserve_access_index));
struct tick_device___g7_30 {
	int mode;
	void * evtdev;
	int gen_missing_30;
} __attribute__((preserve_access_index));
struct trace_event_raw_mm_compaction_end___g7_31 {
	unsigned long long zone_end: 6;
} __attribute__((preserve_access_index));
enum acpi_cedt_type___g7_32 {
	ACPI_CEDT_TYPE_RDPAS___g7_32 = 4,
	ACPI_CEDT_TYPE_RESERVED___g7_32 = 4,
	GEN_MISSING___g7_32 = 3,
};
struct squashfs_lipc_inode___g7_33 {
	void * nlink;
	long long uid: 8;
	int gen_missing_33;
} __attribute__((preserve_access_index));
struct smp_ops___g7_34 {
	void * kick_ap_alive;
	long smp_send_reschedule;
	void * stop_other_cpus;
	int gen_missing_34;
} __attribute__((preserve_access_index));
union iova_fq_entry___g7_35 {
	unsigned long long pages;
	short iova_pfn;
	struct iommu_pages_list freelist;
} __attribute__((preserve_access_index));
union squashfs_dir_inode___g7_36 {
	void * uid;
	int gen_missing_36;
} __attribute__((preserve_access_index));
struct stp_proto___g7_37 {
	void * data;
} __attribute__((preserve_access_index));
struct trace_event_raw_dax_pmd_load_hole_class___g7_38 {
	int __data[1];
	signed char dev;
	long long address: 8;
	struct trace_entry ent;
} __attribute__((preserve_access_index));
struct btrfs_ioctl_search_args_v2___g7_39 {
	int key;
	long buf;
	unsigned long long buf_size: 11;
} __attribute__((preserve_access_index));
union acpi_resource_fixed_dma___g7_40 {
	void * request_lines;
	short channels;
	signed char width;
	int gen_missing_40;
} __attribute__((preserve_access_index));
union aml_resource_pin_function___g7_41 {
	void * vendor_offset;
	signed char resource_length;
	void * function_number;
	unsigned long long pin_table_offset;
	int gen_missing_41;
} __attribute__((preserve_access_index));
struct key_type___g7_42 {
	int * revoke;
	long match_free;
	struct list_head link;
	int * match_preparse;
	int gen_missing_42;
} __attribute__((preserve_access_index));
struct io_uring_restriction___g7_43 {
	int opcode;
	short resv;
	char resv2[2];
	int gen_missing_43;
} __attribute__((preserve_access_index));
struct nvp_ctrl_ent___g7_44 {
	long long cmd: 11;
	int gen_missing_44;
} __attribute__((preserve_access_index));
struct xfrm_user_acquire___g7_45 {
	unsigned long long seq: 6;
} __attribute__((preserve_access_index));
struct audit_names___g7_46 {
	struct audit_cap_data fcap;
	short fcap_ver;
	void * name;
	unsigned long long type;
	int gen_missing_46;
} __attribute__((preserve_access_index));
enum nft_redir_attributes___g7_47 {
	NFTA_REDIR_FLAGS___g7_47 = 3,
	NFTA_REDIR_UNSPEC___g7_47 = 0,
	GEN_MISSING___g7_47 = 3,
};
struct acpi_simple_repair_info___g7_48 {
	short package_index;
	int gen_missing_48;
} __attribute__((preserve_access_index));
struct user_arg_ptr___g7_49 {
	long is_compat;
} __attribute__((preserve_access_index));
struct vmpressure___g7_50 {
	int events_lock;
	long long scanned: 11;
} __attribute__((preserve_access_index));
struct dma_async_tx_descriptor___g7_51 {
	void * callback_result;
	int phys;
	_Bool flags;
	int gen_missing_51;
} __attribute__((preserve_access_index));
enum flow_dissector_key_id___g7_52 {
	FLOW_DISSECTOR_KEY_CT___g7_52 = 27,
	FLOW_DISSECTOR_KEY_ENC_IPV4_ADDRS___g7_52 = 15,
	GEN_MISSING___g7_52 = 3,
};
struct neighbour___g7_53 {
	long long arp_queue_len_bytes: 6;
	int gen_missing_53;
} __attribute__((preserve_access_index));
union kvm_x86_mce___g7_54 {
	_Bool status;
	short mcg_status;
} __attribute__((preserve_access_index));
struct crypto_cipher_spawn___g7_55 {
	struct crypto_spawn base;
	int gen_missing_55;
} __attribute__((preserve_access_index));
enum vm_instruction_error_number___g7_56 {
	VMXERR_VMCLEAR_VMXON_POINTER___g7_56 = 4,
	VMXERR_VMPTRLD_INVALID_ADDRESS___g7_56 = 9,
	GEN_MISSING___g7_56 = 3,
};
struct input_event___g7_57 {
	void * __usec;
	_Bool value;
	_Bool __sec;
	unsigned char code;
	int gen_missing_57;
} __attribute__((preserve_access_index));
enum skb_drop_reason_subsys___g7_58 {
	SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE___g7_58 = 1,
	SKB_DROP_REASON_SUBSYS_OPENVSWITCH___g7_58 = 3,
	GEN_MISSING___g7_58 = 3,
};
union netdev_hw_addr_list___g7_59 {
	struct list_head list;
	long count;
	struct rb_root tree;
} __attribute__((preserve_access_index));
long out[492];
SEC("kprobe/do_exit")
int gen(void *p)
{
	out[0] = __builtin_preserve_field_info(((struct bpf_sanitize_info___g7_0 *)p)->aux, 4);
	out[1] = __builtin_preserve_field_info(((struct bpf_sanitize_info___g7_0 *)p)->aux, 0);
	out[2] = __builtin_preserve_field_info(((struct bpf_sanitize_info___g7_0 *)p)->aux, 1);
	out[3] = __builtin_preserve_field_info(((struct bpf_sanitize_info___g7_0 *)p)->gen_missing_0, 0);
	out[4] = __builtin_preserve_field_info(((struct bpf_sanitize_info___g7_0 *)p)->gen_missing_0, 5);
	out[5] = __builtin_preserve_field_info(((struct bpf_sanitize_info___g7_0 *)p)->gen_missing_0, 3);
	out[6] = bpf_core_type_size(struct bpf_sanitize_info___g7_0);
	out[7] = __builtin_preserve_field_info(((struct acpi_object_list___g7_1 *)p)->count, 4);
	out[8] = __builtin_preserve_field_info(((struct acpi_object_list___g7_1 *)p)->count, 5);
	out[9] = __builtin_preserve_field_info(((struct acpi_object_list___g7_1 *)p)->count, 3);
	out[10] = bpf_core_type_exists(struct acpi_object_list___g7_1);
	out[11] = bpf_core_enum_value_exists(enum unwind_user_type_bits___g7_2, UNWIND_USER_TYPE_FP_BIT___g7_2);
	out[12] = bpf_core_enum_value(enum unwind_user_type_bits___g7_2, UNWIND_USER_TYPE_FP_BIT___g7_2);
	out[13] = bpf_core_enum_value_exists(enum unwind_user_type_bits___g7_2, NR_UNWIND_USER_TYPE_BITS___g7_2);
	out[14] = bpf_core_enum_value(enum unwind_user_type_bits___g7_2, NR_UNWIND_USER_TYPE_BITS___g7_2);
	out[15] = bpf_core_enum_value_exists(enum unwind_user_type_bits___g7_2, GEN_MISSING___g7_2);
	out[16] = bpf_core_enum_value(enum unwind_user_type_bits___g7_2, GEN_MISSING___g7_2);
	out[17] = __builtin_preserve_field_info(((struct sctp_hmac_algo_param___g7_3 *)p)->param_hdr, 1);
	out[18] = __builtin_preserve_field_info(((struct sctp_hmac_algo_param___g7_3 *)p)->param_hdr, 2);
	out[19] = __builtin_preserve_field_info(((struct sctp_hmac_algo_param___g7_3 *)p)->param_hdr, 0);
	out[20] = __builtin_preserve_field_info(((struct sctp_hmac_algo_param___g7_3 *)p)->hmac_ids, 1);
	out[21] = __builtin_preserve_field_info(((struct sctp_hmac_algo_param___g7_3 *)p)->hmac_ids, 2);
	out[22] = __builtin_preserve_field_info(((struct sctp_hmac_algo_param___g7_3 *)p)->hmac_ids, 0);
	out[23] = bpf_core_type_size(struct sctp_hmac_algo_param___g7_3);
	out[24] = __builtin_preserve_field_info(((struct vfree_deferred___g7_4 *)p)->list, 1);
	out[25] = __builtin_preserve_field_info(((struct vfree_deferred___g7_4 *)p)->list, 0);
	out[26] = __builtin_preserve_field_info(((struct vfree_deferred___g7_4 *)p)->list, 2);
	out[27] = __builtin_preserve_field_info(((struct vfree_deferred___g7_4 *)p)->wq, 4);
	out[28] = __builtin_preserve_field_info(((struct vfree_deferred___g7_4 *)p)->wq, 3);
	out[29] = __builtin_preserve_field_info(((struct vfree_deferred___g7_4 *)p)->wq, 1);
	out[30] = bpf_core_type_size(struct vfree_deferred___g7_4);
	out[31] = __builtin_preserve_field_info(((struct nft_rbtree_elem___g7_5 *)p)->ext, 1);
	out[32] = __builtin_preserve_field_info(((struct nft_rbtree_elem___g7_5 *)p)->ext, 2);
	out[33] = __builtin_preserve_field_info(((struct nft_rbtree_elem___g7_5 *)p)->ext, 0);
	out[34] = __builtin_preserve_field_info(((struct nft_rbtree_elem___g7_5 *)p)->gen_missing_5, 0);
	out[35] = __builtin_preserve_field_info(((struct nft_rbtree_elem___g7_5 *)p)->gen_missing_5, 2);
	out[36] = __builtin_preserve_field_info(((struct nft_rbtree_elem___g7_5 *)p)->gen_missing_5, 3);
	out[37] = bpf_core_type_id_kernel(struct nft_rbtree_elem___g7_5);
	out[38] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->__data, 2);
	out[39] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->__data, 1);
	out[40] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->__data, 4);
	out[41] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->start, 1);
	out[42] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->start, 2);
	out[43] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->start, 0);
	out[44] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->end, 0);
	out[45] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->end, 1);
	out[46] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->end, 3);
	out[47] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->gen_missing_6, 3);
	out[48] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->gen_missing_6, 4);
	out[49] = __builtin_preserve_field_info(((struct trace_event_raw_kvm_unmap_hva_range___g7_6 *)p)->gen_missing_6, 2);
	out[50] = bpf_core_type_exists(struct trace_event_raw_kvm_unmap_hva_range___g7_6);
	out[51] = bpf_core_enum_value_exists(enum cmis_cdb_fw_write_mechanism___g7_7, CMIS_CDB_FW_WRITE_MECHANISM_EPL___g7_7);
	out[52] = bpf_core_enum_value(enum cmis_cdb_fw_write_mechanism___g7_7, CMIS_CDB_FW_WRITE_MECHANISM_EPL___g7_7);
	out[53] = bpf_core_enum_value_exists(enum cmis_cdb_fw_write_mechanism___g7_7, CMIS_CDB_FW_WRITE_MECHANISM_BOTH___g7_7);
	out[54] = bpf_core_enum_value(enum cmis_cdb_fw_write_mechanism___g7_7, CMIS_CDB_FW_WRITE_MECHANISM_BOTH___g7_7);
	out[55] = bpf_core_enum_value_exists(enum cmis_cdb_fw_write_mechanism___g7_7, GEN_MISSING___g7_7);
	out[56] = bpf_core_enum_value(enum cmis_cdb_fw_write_mechanism___g7_7, GEN_MISSING___g7_7);
	out[57] = __builtin_preserve_field_info(((struct hsu_dma_desc___g7_8 *)p)->vdesc, 2);
	out[58] = __builtin_preserve_field_info(((struct hsu_dma_desc___g7_8 *)p)->vdesc, 0);
	out[59] = __builtin_preserve_field_info(((struct hsu_dma_desc___g7_8 *)p)->vdesc, 1);
	out[60] = __builtin_preserve_field_info(((struct hsu_dma_desc___g7_8 *)p)->direction, 2);
	out[61] = __builtin_preserve_field_info(((struct hsu_dma_desc___g7_8 *)p)->direction, 0);
	out[62] = __builtin_preserve_field_info(((struct hsu_dma_desc___g7_8 *)p)->direction, 1);
	out[63] = bpf_core_type_size(struct hsu_dma_desc___g7_8);
	out[64] = __builtin_preserve_field_info(((struct crypto_attr_type___g7_9 *)p)->mask, 4);
	out[65] = __builtin_preserve_field_info(((struct crypto_attr_type___g7_9 *)p)->mask, 3);
	out[66] = __builtin_preserve_field_info(((struct crypto_attr_type___g7_9 *)p)->mask, 5);
	out[67] = bpf_core_type_size(struct crypto_attr_type___g7_9);
	out[68] = __builtin_preserve_field_info(((struct nf_conncount_tuple___g7_10 *)p)->tuple, 0);
	out[69] = __builtin_preserve_field_info(((struct nf_conncount_tuple___g7_10 *)p)->tuple, 2);
	out[70] = __builtin_preserve_field_info(((struct nf_conncount_tuple___g7_10 *)p)->tuple, 1);
	out[71] = __builtin_preserve_field_info(((struct nf_conncount_tuple___g7_10 *)p)->gen_missing_10, 4);
	out[72] = __builtin_preserve_field_info(((struct nf_conncount_tuple___g7_10 *)p)->gen_missing_10, 0);
	out[73] = __builtin_preserve_field_info(((struct nf_conncount_tuple___g7_10 *)p)->gen_missing_10, 5);
	out[74] = bpf_core_type_exists(struct nf_conncount_tuple___g7_10);
	out[75] = __builtin_preserve_field_info(((union compat_ebt_mark_m_info___g7_11 *)p)->mark, 2);
	out[76] = __builtin_preserve_field_info(((union compat_ebt_mark_m_info___g7_11 *)p)->mark, 0);
	out[77] = __builtin_preserve_field_info(((union compat_ebt_mark_m_info___g7_11 *)p)->mark, 1);
	out[78] = __builtin_preserve_field_info(((union compat_ebt_mark_m_info___g7_11 *)p)->bitmask, 0);
	out[79] = __builtin_preserve_field_info(((union compat_ebt_mark_m_info___g7_11 *)p)->bitmask, 2);
	out[80] = __builtin_preserve_field_info(((union compat_ebt_mark_m_info___g7_11 *)p)->bitmask, 4);
	out[81] = __builtin_preserve_field_info(((union compat_ebt_mark_m_info___g7_11 *)p)->invert, 3);
	out[82] = __builtin_preserve_field_info(((union compat_ebt_mark_m_info___g7_11 *)p)->invert, 1);
	out[83] = __builtin_preserve_field_info(((union compat_ebt_mark_m_info___g7_11 *)p)->invert, 0);
	out[84] = bpf_core_type_exists(union compat_ebt_mark_m_info___g7_11);
	out[85] = bpf_core_enum_value_exists(enum flow_block_binder_type___g7_12, FLOW_BLOCK_BINDER_TYPE_CLSACT_EGRESS___g7_12);
	out[86] = bpf_core_enum_value(enum flow_block_binder_type___g7_12, FLOW_BLOCK_BINDER_TYPE_CLSACT_EGRESS___g7_12);
	out[87] = bpf_core_enum_value_exists(enum flow_block_binder_type___g7_12, FLOW_BLOCK_BINDER_TYPE_CLSACT_INGRESS___g7_12);
	out[88] = bpf_core_enum_value(enum flow_block_binder_type___g7_12, FLOW_BLOCK_BINDER_TYPE_CLSACT_INGRESS___g7_12);
	out[89] = bpf_core_enum_value_exists(enum flow_block_binder_type___g7_12, GEN_MISSING___g7_12);
	out[90] = bpf_core_enum_value(enum flow_block_binder_type___g7_12, GEN_MISSING___g7_12);
	out[91] = bpf_core_enum_value_exists(enum flow_block_binder_type___g7_13, FLOW_BLOCK_BINDER_TYPE_CLSACT_EGRESS___g7_13);
	out[92] = bpf_core_enum_value(enum flow_block_binder_type___g7_13, FLOW_BLOCK_BINDER_TYPE_CLSACT_EGRESS___g7_13);
	out[93] = bpf_core_enum_value_exists(enum flow_block_binder_type___g7_13, FLOW_BLOCK_BINDER_TYPE_UNSPEC___g7_13);
	out[94] = bpf_core_enum_value(enum flow_block_binder_type___g7_13, FLOW_BLOCK_BINDER_TYPE_UNSPEC___g7_13);
	out[95] = bpf_core_enum_value_exists(enum flow_block_binder_type___g7_13, GEN_MISSING___g7_13);
	out[96] = bpf_core_enum_value(enum flow_block_binder_type___g7_13, GEN_MISSING___g7_13);
	out[97] = __builtin_preserve_field_info(((struct btf_relocate___g7_14 *)p)->id_map, 0);
	out[98] = __builtin_preserve_field_info(((struct btf_relocate___g7_14 *)p)->id_map, 2);
	out[99] = __builtin_preserve_field_info(((struct btf_relocate___g7_14 *)p)->id_map, 1);
	out[100] = __builtin_preserve_field_info(((struct btf_relocate___g7_14 *)p)->str_map, 2);
	out[101] = __builtin_preserve_field_info(((struct btf_relocate___g7_14 *)p)->str_map, 0);
	out[102] = __builtin_preserve_field_info(((struct btf_relocate___g7_14 *)p)->str_map, 1);
	out[103] = __builtin_preserve_field_info(((struct btf_relocate___g7_14 *)p)->gen_missing_14, 4);
	out[104] = __builtin_preserve_field_info(((struct btf_relocate___g7_14 *)p)->gen_missing_14, 3);
	out[105] = __builtin_preserve_field_info(((struct btf_relocate___g7_14 *)p)->gen_missing_14, 2);
	out[106] = bpf_core_type_id_kernel(struct btf_relocate___g7_14);
	out[107] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->property_read_int_array, 2);
	out[108] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->property_read_int_array, 0);
	out[109] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->property_read_int_array, 1);
	out[110] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->property_present, 0);
	out[111] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->property_present, 2);
	out[112] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->property_present, 1);
	out[113] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->add_links, 1);
	out[114] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->add_links, 2);
	out[115] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->add_links, 5);
	out[116] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->graph_parse_endpoint, 3);
	out[117] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->graph_parse_endpoint, 4);
	out[118] = __builtin_preserve_field_info(((struct fwnode_operations___g7_15 *)p)->graph_parse_endpoint, 0);
	out[119] = bpf_core_type_size(struct fwnode_operations___g7_15);
	out[120] = bpf_core_enum_value_exists(enum btrfs_chunk_allocation_policy___g7_16, BTRFS_CHUNK_ALLOC_REGULAR___g7_16);
	out[121] = bpf_core_enum_value(enum btrfs_chunk_allocation_policy___g7_16, BTRFS_CHUNK_ALLOC_REGULAR___g7_16);
	out[122] = bpf_core_enum_value_exists(enum btrfs_chunk_allocation_policy___g7_16, BTRFS_CHUNK_ALLOC_ZONED___g7_16);
	out[123] = bpf_core_enum_value(enum btrfs_chunk_allocation_policy___g7_16, BTRFS_CHUNK_ALLOC_ZONED___g7_16);
	out[124] = bpf_core_enum_value_exists(enum btrfs_chunk_allocation_policy___g7_16, GEN_MISSING___g7_16);
	out[125] = bpf_core_enum_value(enum btrfs_chunk_allocation_policy___g7_16, GEN_MISSING___g7_16);
	out[126] = __builtin_preserve_field_info(((struct RegistrationConfirm_callSignalAddress___g7_17 *)p)->item, 0);
	out[127] = __builtin_preserve_field_info(((struct RegistrationConfirm_callSignalAddress___g7_17 *)p)->item, 1);
	out[128] = __builtin_preserve_field_info(((struct RegistrationConfirm_callSignalAddress___g7_17 *)p)->item, 4);
	out[129] = __builtin_preserve_field_info(((struct RegistrationConfirm_callSignalAddress___g7_17 *)p)->count, 1);
	out[130] = __builtin_preserve_field_info(((struct RegistrationConfirm_callSignalAddress___g7_17 *)p)->count, 0);
	out[131] = __builtin_preserve_field_info(((struct RegistrationConfirm_callSignalAddress___g7_17 *)p)->count, 5);
	out[132] = bpf_core_type_id_kernel(struct RegistrationConfirm_callSignalAddress___g7_17);
	out[133] = bpf_core_enum_value_exists(enum ipset_adt___g7_18, IPSET_DEL___g7_18);
	out[134] = bpf_core_enum_value(enum ipset_adt___g7_18, IPSET_DEL___g7_18);
	out[135] = bpf_core_enum_value_exists(enum ipset_adt___g7_18, IPSET_CREATE___g7_18);
	out[136] = bpf_core_enum_value(enum ipset_adt___g7_18, IPSET_CREATE___g7_18);
	out[137] = bpf_core_enum_value_exists(enum ipset_adt___g7_18, GEN_MISSING___g7_18);
	out[138] = bpf_core_enum_value(enum ipset_adt___g7_18, GEN_MISSING___g7_18);
	out[139] = __builtin_preserve_field_info(((struct dim___g7_19 *)p)->state, 1);
	out[140] = __builtin_preserve_field_info(((struct dim___g7_19 *)p)->state, 5);
	out[141] = __builtin_preserve_field_info(((struct dim___g7_19 *)p)->state, 0);
	out[142] = __builtin_preserve_field_info(((struct dim___g7_19 *)p)->tired, 1);
	out[143] = __builtin_preserve_field_info(((struct dim___g7_19 *)p)->tired, 0);
	out[144] = __builtin_preserve_field_info(((struct dim___g7_19 *)p)->tired, 2);
	out[145] = bpf_core_type_id_kernel(struct dim___g7_19);
	out[146] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->digest, 4);
	out[147] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->digest, 5);
	out[148] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->digest, 0);
	out[149] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->auth_ids[0], 1);
	out[150] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->auth_ids[0], 0);
	out[151] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->auth_ids[0], 2);
	out[152] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->pkey_algo, 1);
	out[153] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->pkey_algo, 5);
	out[154] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->pkey_algo, 4);
	out[155] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->encoding, 1);
	out[156] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->encoding, 0);
	out[157] = __builtin_preserve_field_info(((struct public_key_signature___g7_20 *)p)->encoding, 2);
	out[158] = bpf_core_type_size(struct public_key_signature___g7_20);
	out[159] = __builtin_preserve_field_info(((struct nft_ct_frag6_pernet___g7_21 *)p)->nf_frag_frags_hdr, 0);
	out[160] = __builtin_preserve_field_info(((struct nft_ct_frag6_pernet___g7_21 *)p)->nf_frag_frags_hdr, 1);
	out[161] = __builtin_preserve_field_info(((struct nft_ct_frag6_pernet___g7_21 *)p)->nf_frag_frags_hdr, 2);
	out[162] = __builtin_preserve_field_info(((struct nft_ct_frag6_pernet___g7_21 *)p)->gen_missing_21, 0);
	out[163] = __builtin_preserve_field_info(((struct nft_ct_frag6_pernet___g7_21 *)p)->gen_missing_21, 3);
	out[164] = __builtin_preserve_field_info(((struct nft_ct_frag6_pernet___g7_21 *)p)->gen_missing_21, 2);
	out[165] = bpf_core_type_id_kernel(struct nft_ct_frag6_pernet___g7_21);
	out[166] = bpf_core_enum_value_exists(enum nft_verdict_attributes___g7_22, __NFTA_VERDICT_MAX___g7_22);
	out[167] = bpf_core_enum_value(enum nft_verdict_attributes___g7_22, __NFTA_VERDICT_MAX___g7_22);
	out[168] = bpf_core_enum_value_exists(enum nft_verdict_attributes___g7_22, NFTA_VERDICT_CODE___g7_22);
	out[169] = bpf_core_enum_value(enum nft_verdict_attributes___g7_22, NFTA_VERDICT_CODE___g7_22);
	out[170] = bpf_core_enum_value_exists(enum nft_verdict_attributes___g7_22, GEN_MISSING___g7_22);
	out[171] = bpf_core_enum_value(enum nft_verdict_attributes___g7_22, GEN_MISSING___g7_22);
	out[172] = __builtin_preserve_field_info(((struct packet_diag_req___g7_23 *)p)->pdiag_cookie, 1);
	out[173] = __builtin_preserve_field_info(((struct packet_diag_req___g7_23 *)p)->pdiag_cookie, 3);
	out[174] = __builtin_preserve_field_info(((struct packet_diag_req___g7_23 *)p)->pdiag_cookie, 5);
	out[175] = __builtin_preserve_field_info(((struct packet_diag_req___g7_23 *)p)->pdiag_show, 3);
	out[176] = __builtin_preserve_field_info(((struct packet_diag_req___g7_23 *)p)->pdiag_show, 0);
	out[177] = __builtin_preserve_field_info(((struct packet_diag_req___g7_23 *)p)->pdiag_show, 5);
	out[178] = bpf_core_type_size(struct packet_diag_req___g7_23);
	out[179] = __builtin_preserve_field_info(((struct ovl_opt_set___g7_24 *)p)->nfs_export, 3);
	out[180] = __builtin_preserve_field_info(((struct ovl_opt_set___g7_24 *)p)->nfs_export, 1);
	out[181] = __builtin_preserve_field_info(((struct ovl_opt_set___g7_24 *)p)->nfs_export, 0);
	out[182] = __builtin_preserve_field_info(((struct ovl_opt_set___g7_24 *)p)->metacopy, 3);
	out[183] = __builtin_preserve_field_info(((struct ovl_opt_set___g7_24 *)p)->metacopy, 5);
	out[184] = __builtin_preserve_field_info(((struct ovl_opt_set___g7_24 *)p)->metacopy, 1);
	out[185] = bpf_core_type_id_kernel(struct ovl_opt_set___g7_24);
	out[186] = bpf_core_enum_value_exists(enum con_flush_mode___g7_25, CONSOLE_REPLAY_ALL___g7_25);
	out[187] = bpf_core_enum_value(enum con_flush_mode___g7_25, CONSOLE_REPLAY_ALL___g7_25);
	out[188] = bpf_core_enum_value_exists(enum con_flush_mode___g7_25, CONSOLE_FLUSH_PENDING___g7_25);
	out[189] = bpf_core_enum_value(enum con_flush_mode___g7_25, CONSOLE_FLUSH_PENDING___g7_25);
	out[190] = bpf_core_enum_value_exists(enum con_flush_mode___g7_25, GEN_MISSING___g7_25);
	out[191] = bpf_core_enum_value(enum con_flush_mode___g7_25, GEN_MISSING___g7_25);
	out[192] = __builtin_preserve_field_info(((union crypto_queue___g7_26 *)p)->list, 0);
	out[193] = __builtin_preserve_field_info(((union crypto_queue___g7_26 *)p)->list, 2);
	out[194] = __builtin_preserve_field_info(((union crypto_queue___g7_26 *)p)->list, 1);
	out[195] = __builtin_preserve_field_info(((union crypto_queue___g7_26 *)p)->backlog, 0);
	out[196] = __builtin_preserve_field_info(((union crypto_queue___g7_26 *)p)->backlog, 1);
	out[197] = __builtin_preserve_field_info(((union crypto_queue___g7_26 *)p)->backlog, 2);
	out[198] = __builtin_preserve_field_info(((union crypto_queue___g7_26 *)p)->qlen, 0);
	out[199] = __builtin_preserve_field_info(((union crypto_queue___g7_26 *)p)->qlen, 1);
	out[200] = __builtin_preserve_field_info(((union crypto_queue___g7_26 *)p)->qlen, 2);
	out[201] = bpf_core_type_exists(union crypto_queue___g7_26);
	out[202] = bpf_core_enum_value_exists(enum udp_tunnel_nic_table_entry_flags___g7_27, UDP_TUNNEL_NIC_ENTRY_OP_FAIL___g7_27);
	out[203] = bpf_core_enum_value(enum udp_tunnel_nic_table_entry_flags___g7_27, UDP_TUNNEL_NIC_ENTRY_OP_FAIL___g7_27);
	out[204] = bpf_core_enum_value_exists(enum udp_tunnel_nic_table_entry_flags___g7_27, UDP_TUNNEL_NIC_ENTRY_DEL___g7_27);
	out[205] = bpf_core_enum_value(enum udp_tunnel_nic_table_entry_flags___g7_27, UDP_TUNNEL_NIC_ENTRY_DEL___g7_27);
	out[206] = bpf_core_enum_value_exists(enum udp_tunnel_nic_table_entry_flags___g7_27, GEN_MISSING___g7_27);
	out[207] = bpf_core_enum_value(enum udp_tunnel_nic_table_entry_flags___g7_27, GEN_MISSING___g7_27);
	out[208] = bpf_core_enum_value_exists(enum nf_ct_ecache_state___g7_28, NFCT_ECACHE_DESTROY_SENT___g7_28);
	out[209] = bpf_core_enum_value(enum nf_ct_ecache_state___g7_28, NFCT_ECACHE_DESTROY_SENT___g7_28);
	out[210] = bpf_core_enum_value_exists(enum nf_ct_ecache_state___g7_28, NFCT_ECACHE_DESTROY_FAIL___g7_28);
	out[211] = bpf_core_enum_value(enum nf_ct_ecache_state___g7_28, NFCT_ECACHE_DESTROY_FAIL___g7_28);
	out[212] = bpf_core_enum_value_exists(enum nf_ct_ecache_state___g7_28, GEN_MISSING___g7_28);
	out[213] = bpf_core_enum_value(enum nf_ct_ecache_state___g7_28, GEN_MISSING___g7_28);
	out[214] = __builtin_preserve_field_info(((struct dma_page___g7_29 *)p)->vaddr, 2);
	out[215] = __builtin_preserve_field_info(((struct dma_page___g7_29 *)p)->vaddr, 0);
	out[216] = __builtin_preserve_field_info(((struct dma_page___g7_29 *)p)->vaddr, 1);
	out[217] = bpf_core_type_exists(struct dma_page___g7_29);
	out[218] = __builtin_preserve_field_info(((struct tick_device___g7_30 *)p)->mode, 0);
	out[219] = __builtin_preserve_field_info(((struct tick_device___g7_30 *)p)->mode, 1);
	out[220] = __builtin_preserve_field_info(((struct tick_device___g7_30 *)p)->mode, 2);
	out[221] = __builtin_preserve_field_info(((struct tick_device___g7_30 *)p)->evtdev, 0);
	out[222] = __builtin_preserve_field_info(((struct tick_device___g7_30 *)p)->evtdev, 2);
	out[223] = __builtin_preserve_field_info(((struct tick_device___g7_30 *)p)->evtdev, 1);
	out[224] = __builtin_preserve_field_info(((struct tick_device___g7_30 *)p)->gen_missing_30, 2);
	out[225] = __builtin_preserve_field_info(((struct tick_device___g7_30 *)p)->gen_missing_30, 5);
	out[226] = __builtin_preserve_field_info(((struct tick_device___g7_30 *)p)->gen_missing_30, 1);
	out[227] = bpf_core_type_size(struct tick_device___g7_30);
	out[228] = __builtin_preserve_field_info(((struct trace_event_raw_mm_compaction_end___g7_31 *)p)->zone_end, 1);
	out[229] = __builtin_preserve_field_info(((struct trace_event_raw_mm_compaction_end___g7_31 *)p)->zone_end, 3);
	out[230] = __builtin_preserve_field_info(((struct trace_event_raw_mm_compaction_end___g7_31 *)p)->zone_end, 0);
	out[231] = bpf_core_type_id_kernel(struct trace_event_raw_mm_compaction_end___g7_31);
	out[232] = bpf_core_enum_value_exists(enum acpi_cedt_type___g7_32, ACPI_CEDT_TYPE_RDPAS___g7_32);
	out[233] = bpf_core_enum_value(enum acpi_cedt_type___g7_32, ACPI_CEDT_TYPE_RDPAS___g7_32);
	out[234] = bpf_core_enum_value_exists(enum acpi_cedt_type___g7_32, ACPI_CEDT_TYPE_RESERVED___g7_32);
	out[235] = bpf_core_enum_value(enum acpi_cedt_type___g7_32, ACPI_CEDT_TYPE_RESERVED___g7_32);
	out[236] = bpf_core_enum_value_exists(enum acpi_cedt_type___g7_32, GEN_MISSING___g7_32);
	out[237] = bpf_core_enum_value(enum acpi_cedt_type___g7_32, GEN_MISSING___g7_32);
	out[238] = __builtin_preserve_field_info(((struct squashfs_lipc_inode___g7_33 *)p)->nlink, 0);
	out[239] = __builtin_preserve_field_info(((struct squashfs_lipc_inode___g7_33 *)p)->nlink, 1);
	out[240] = __builtin_preserve_field_info(((struct squashfs_lipc_inode___g7_33 *)p)->nlink, 2);
	out[241] = __builtin_preserve_field_info(((struct squashfs_lipc_inode___g7_33 *)p)->uid, 4);
	out[242] = __builtin_preserve_field_info(((struct squashfs_lipc_inode___g7_33 *)p)->uid, 1);
	out[243] = __builtin_preserve_field_info(((struct squashfs_lipc_inode___g7_33 *)p)->uid, 2);
	out[244] = __builtin_preserve_field_info(((struct squashfs_lipc_inode___g7_33 *)p)->gen_missing_33, 0);
	out[245] = __builtin_preserve_field_info(((struct squashfs_lipc_inode___g7_33 *)p)->gen_missing_33, 3);
	out[246] = __builtin_preserve_field_info(((struct squashfs_lipc_inode___g7_33 *)p)->gen_missing_33, 1);
	out[247] = bpf_core_type_exists(struct squashfs_lipc_inode___g7_33);
	out[248] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->kick_ap_alive, 1);
	out[249] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->kick_ap_alive, 2);
	out[250] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->kick_ap_alive, 0);
	out[251] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->smp_send_reschedule, 3);
	out[252] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->smp_send_reschedule, 2);
	out[253] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->smp_send_reschedule, 1);
	out[254] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->stop_other_cpus, 0);
	out[255] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->stop_other_cpus, 2);
	out[256] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->stop_other_cpus, 1);
	out[257] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->gen_missing_34, 2);
	out[258] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->gen_missing_34, 0);
	out[259] = __builtin_preserve_field_info(((struct smp_ops___g7_34 *)p)->gen_missing_34, 1);
	out[260] = bpf_core_type_size(struct smp_ops___g7_34);
	out[261] = __builtin_preserve_field_info(((union iova_fq_entry___g7_35 *)p)->pages, 5);
	out[262] = __builtin_preserve_field_info(((union iova_fq_entry___g7_35 *)p)->pages, 1);
	out[263] = __builtin_preserve_field_info(((union iova_fq_entry___g7_35 *)p)->pages, 0);
	out[264] = __builtin_preserve_field_info(((union iova_fq_entry___g7_35 *)p)->iova_pfn, 5);
	out[265] = __builtin_preserve_field_info(((union iova_fq_entry___g7_35 *)p)->iova_pfn, 4);
	out[266] = __builtin_preserve_field_info(((union iova_fq_entry___g7_35 *)p)->iova_pfn, 3);
	out[267] = __builtin_preserve_field_info(((union iova_fq_entry___g7_35 *)p)->freelist, 2);
	out[268] = __builtin_preserve_field_info(((union iova_fq_entry___g7_35 *)p)->freelist, 0);
	out[269] = __builtin_preserve_field_info(((union iova_fq_entry___g7_35 *)p)->freelist, 1);
	out[270] = bpf_core_type_id_kernel(union iova_fq_entry___g7_35);
	out[271] = __builtin_preserve_field_info(((union squashfs_dir_inode___g7_36 *)p)->uid, 1);
	out[272] = __builtin_preserve_field_info(((union squashfs_dir_inode___g7_36 *)p)->uid, 0);
	out[273] = __builtin_preserve_field_info(((union squashfs_dir_inode___g7_36 *)p)->uid, 2);
	out[274] = __builtin_preserve_field_info(((union squashfs_dir_inode___g7_36 *)p)->gen_missing_36, 5);
	out[275] = __builtin_preserve_field_info(((union squashfs_dir_inode___g7_36 *)p)->gen_missing_36, 4);
	out[276] = __builtin_preserve_field_info(((union squashfs_dir_inode___g7_36 *)p)->gen_missing_36, 1);
	out[277] = bpf_core_type_size(union squashfs_dir_inode___g7_36);
	out[278] = __builtin_preserve_field_info(((struct stp_proto___g7_37 *)p)->data, 1);
	out[279] = __builtin_preserve_field_info(((struct stp_proto___g7_37 *)p)->data, 2);
	out[280] = __builtin_preserve_field_info(((struct stp_proto___g7_37 *)p)->data, 0);
	out[281] = bpf_core_type_size(struct stp_proto___g7_37);
	out[282] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->__data, 2);
	out[283] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->__data, 4);
	out[284] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->__data, 1);
	out[285] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->dev, 0);
	out[286] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->dev, 3);
	out[287] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->dev, 5);
	out[288] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->address, 3);
	out[289] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->address, 2);
	out[290] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->address, 0);
	out[291] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->ent, 2);
	out[292] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->ent, 0);
	out[293] = __builtin_preserve_field_info(((struct trace_event_raw_dax_pmd_load_hole_class___g7_38 *)p)->ent, 1);
	out[294] = bpf_core_type_size(struct trace_event_raw_dax_pmd_load_hole_class___g7_38);
	out[295] = __builtin_preserve_field_info(((struct btrfs_ioctl_search_args_v2___g7_39 *)p)->key, 3);
	out[296] = __builtin_preserve_field_info(((struct btrfs_ioctl_search_args_v2___g7_39 *)p)->key, 2);
	out[297] = __builtin_preserve_field_info(((struct btrfs_ioctl_search_args_v2___g7_39 *)p)->key, 5);
	out[298] = __builtin_preserve_field_info(((struct btrfs_ioctl_search_args_v2___g7_39 *)p)->buf, 1);
	out[299] = __builtin_preserve_field_info(((struct btrfs_ioctl_search_args_v2___g7_39 *)p)->buf, 5);
	out[300] = __builtin_preserve_field_info(((struct btrfs_ioctl_search_args_v2___g7_39 *)p)->buf, 0);
	out[301] = __builtin_preserve_field_info(((struct btrfs_ioctl_search_args_v2___g7_39 *)p)->buf_size, 4);
	out[302] = __builtin_preserve_field_info(((struct btrfs_ioctl_search_args_v2___g7_39 *)p)->buf_size, 0);
	out[303] = __builtin_preserve_field_info(((struct btrfs_ioctl_search_args_v2___g7_39 *)p)->buf_size, 1);
	out[304] = bpf_core_type_id_kernel(struct btrfs_ioctl_search_args_v2___g7_39);
	out[305] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->request_lines, 1);
	out[306] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->request_lines, 2);
	out[307] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->request_lines, 0);
	out[308] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->channels, 0);
	out[309] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->channels, 2);
	out[310] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->channels, 5);
	out[311] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->width, 2);
	out[312] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->width, 5);
	out[313] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->width, 3);
	out[314] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->gen_missing_40, 0);
	out[315] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->gen_missing_40, 1);
	out[316] = __builtin_preserve_field_info(((union acpi_resource_fixed_dma___g7_40 *)p)->gen_missing_40, 5);
	out[317] = bpf_core_type_id_kernel(union acpi_resource_fixed_dma___g7_40);
	out[318] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->vendor_offset, 1);
	out[319] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->vendor_offset, 2);
	out[320] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->vendor_offset, 0);
	out[321] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->resource_length, 5);
	out[322] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->resource_length, 3);
	out[323] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->resource_length, 1);
	out[324] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->function_number, 2);
	out[325] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->function_number, 0);
	out[326] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->function_number, 1);
	out[327] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->pin_table_offset, 5);
	out[328] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->pin_table_offset, 3);
	out[329] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->pin_table_offset, 4);
	out[330] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->gen_missing_41, 4);
	out[331] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->gen_missing_41, 1);
	out[332] = __builtin_preserve_field_info(((union aml_resource_pin_function___g7_41 *)p)->gen_missing_41, 2);
	out[333] = bpf_core_type_size(union aml_resource_pin_function___g7_41);
	out[334] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->revoke, 2);
	out[335] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->revoke, 1);
	out[336] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->revoke, 0);
	out[337] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->match_free, 1);
	out[338] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->match_free, 5);
	out[339] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->match_free, 0);
	out[340] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->link, 0);
	out[341] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->link, 1);
	out[342] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->link, 2);
	out[343] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->match_preparse, 1);
	out[344] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->match_preparse, 2);
	out[345] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->match_preparse, 0);
	out[346] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->gen_missing_42, 3);
	out[347] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->gen_missing_42, 1);
	out[348] = __builtin_preserve_field_info(((struct key_type___g7_42 *)p)->gen_missing_42, 4);
	out[349] = bpf_core_type_exists(struct key_type___g7_42);
	out[350] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->opcode, 0);
	out[351] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->opcode, 3);
	out[352] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->opcode, 2);
	out[353] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->resv, 4);
	out[354] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->resv, 2);
	out[355] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->resv, 1);
	out[356] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->resv2[0], 2);
	out[357] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->resv2[0], 0);
	out[358] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->resv2[0], 1);
	out[359] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->gen_missing_43, 2);
	out[360] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->gen_missing_43, 1);
	out[361] = __builtin_preserve_field_info(((struct io_uring_restriction___g7_43 *)p)->gen_missing_43, 3);
	out[362] = bpf_core_type_size(struct io_uring_restriction___g7_43);
	out[363] = __builtin_preserve_field_info(((struct nvp_ctrl_ent___g7_44 *)p)->cmd, 3);
	out[364] = __builtin_preserve_field_info(((struct nvp_ctrl_ent___g7_44 *)p)->cmd, 4);
	out[365] = __builtin_preserve_field_info(((struct nvp_ctrl_ent___g7_44 *)p)->cmd, 5);
	out[366] = __builtin_preserve_field_info(((struct nvp_ctrl_ent___g7_44 *)p)->gen_missing_44, 3);
	out[367] = __builtin_preserve_field_info(((struct nvp_ctrl_ent___g7_44 *)p)->gen_missing_44, 1);
	out[368] = __builtin_preserve_field_info(((struct nvp_ctrl_ent___g7_44 *)p)->gen_missing_44, 0);
	out[369] = bpf_core_type_exists(struct nvp_ctrl_ent___g7_44);
	out[370] = __builtin_preserve_field_info(((struct xfrm_user_acquire___g7_45 *)p)->seq, 1);
	out[371] = __builtin_preserve_field_info(((struct xfrm_user_acquire___g7_45 *)p)->seq, 4);
	out[372] = __builtin_preserve_field_info(((struct xfrm_user_acquire___g7_45 *)p)->seq, 0);
	out[373] = bpf_core_type_id_kernel(struct xfrm_user_acquire___g7_45);
	out[374] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->fcap, 1);
	out[375] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->fcap, 2);
	out[376] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->fcap, 0);
	out[377] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->fcap_ver, 5);
	out[378] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->fcap_ver, 1);
	out[379] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->fcap_ver, 3);
	out[380] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->name, 2);
	out[381] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->name, 0);
	out[382] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->name, 1);
	out[383] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->type, 0);
	out[384] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->type, 3);
	out[385] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->type, 2);
	out[386] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->gen_missing_46, 0);
	out[387] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->gen_missing_46, 5);
	out[388] = __builtin_preserve_field_info(((struct audit_names___g7_46 *)p)->gen_missing_46, 1);
	out[389] = bpf_core_type_size(struct audit_names___g7_46);
	out[390] = bpf_core_enum_value_exists(enum nft_redir_attributes___g7_47, NFTA_REDIR_FLAGS___g7_47);
	out[391] = bpf_core_enum_value(enum nft_redir_attributes___g7_47, NFTA_REDIR_FLAGS___g7_47);
	out[392] = bpf_core_enum_value_exists(enum nft_redir_attributes___g7_47, NFTA_REDIR_UNSPEC___g7_47);
	out[393] = bpf_core_enum_value(enum nft_redir_attributes___g7_47, NFTA_REDIR_UNSPEC___g7_47);
	out[394] = bpf_core_enum_value_exists(enum nft_redir_attributes___g7_47, GEN_MISSING___g7_47);
	out[395] = bpf_core_enum_value(enum nft_redir_attributes___g7_47, GEN_MISSING___g7_47);
	out[396] = __builtin_preserve_field_info(((struct acpi_simple_repair_info___g7_48 *)p)->package_index, 2);
	out[397] = __builtin_preserve_field_info(((struct acpi_simple_repair_info___g7_48 *)p)->package_index, 4);
	out[398] = __builtin_preserve_field_info(((struct acpi_simple_repair_info___g7_48 *)p)->package_index, 0);
	out[399] = __builtin_preserve_field_info(((struct acpi_simple_repair_info___g7_48 *)p)->gen_missing_48, 1);
	out[400] = __builtin_preserve_field_info(((struct acpi_simple_repair_info___g7_48 *)p)->gen_missing_48, 3);
	out[401] = __builtin_preserve_field_info(((struct acpi_simple_repair_info___g7_48 *)p)->gen_missing_48, 5);
	out[402] = bpf_core_type_size(struct acpi_simple_repair_info___g7_48);
	out[403] = __builtin_preserve_field_info(((struct user_arg_ptr___g7_49 *)p)->is_compat, 5);
	out[404] = __builtin_preserve_field_info(((struct user_arg_ptr___g7_49 *)p)->is_compat, 0);
	out[405] = __builtin_preserve_field_info(((struct user_arg_ptr___g7_49 *)p)->is_compat, 1);
	out[406] = bpf_core_type_size(struct user_arg_ptr___g7_49);
	out[407] = __builtin_preserve_field_info(((struct vmpressure___g7_50 *)p)->events_lock, 0);
	out[408] = __builtin_preserve_field_info(((struct vmpressure___g7_50 *)p)->events_lock, 1);
	out[409] = __builtin_preserve_field_info(((struct vmpressure___g7_50 *)p)->events_lock, 2);
	out[410] = __builtin_preserve_field_info(((struct vmpressure___g7_50 *)p)->scanned, 1);
	out[411] = __builtin_preserve_field_info(((struct vmpressure___g7_50 *)p)->scanned, 5);
	out[412] = __builtin_preserve_field_info(((struct vmpressure___g7_50 *)p)->scanned, 3);
	out[413] = bpf_core_type_exists(struct vmpressure___g7_50);
	out[414] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->callback_result, 1);
	out[415] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->callback_result, 2);
	out[416] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->callback_result, 0);
	out[417] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->phys, 0);
	out[418] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->phys, 5);
	out[419] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->phys, 3);
	out[420] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->flags, 1);
	out[421] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->flags, 2);
	out[422] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->flags, 3);
	out[423] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->gen_missing_51, 1);
	out[424] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->gen_missing_51, 2);
	out[425] = __builtin_preserve_field_info(((struct dma_async_tx_descriptor___g7_51 *)p)->gen_missing_51, 4);
	out[426] = bpf_core_type_id_kernel(struct dma_async_tx_descriptor___g7_51);
	out[427] = bpf_core_enum_value_exists(enum flow_dissector_key_id___g7_52, FLOW_DISSECTOR_KEY_CT___g7_52);
	out[428] = bpf_core_enum_value(enum flow_dissector_key_id___g7_52, FLOW_DISSECTOR_KEY_CT___g7_52);
	out[429] = bpf_core_enum_value_exists(enum flow_dissector_key_id___g7_52, FLOW_DISSECTOR_KEY_ENC_IPV4_ADDRS___g7_52);
	out[430] = bpf_core_enum_value(enum flow_dissector_key_id___g7_52, FLOW_DISSECTOR_KEY_ENC_IPV4_ADDRS___g7_52);
	out[431] = bpf_core_enum_value_exists(enum flow_dissector_key_id___g7_52, GEN_MISSING___g7_52);
	out[432] = bpf_core_enum_value(enum flow_dissector_key_id___g7_52, GEN_MISSING___g7_52);
	out[433] = __builtin_preserve_field_info(((struct neighbour___g7_53 *)p)->arp_queue_len_bytes, 2);
	out[434] = __builtin_preserve_field_info(((struct neighbour___g7_53 *)p)->arp_queue_len_bytes, 4);
	out[435] = __builtin_preserve_field_info(((struct neighbour___g7_53 *)p)->arp_queue_len_bytes, 0);
	out[436] = __builtin_preserve_field_info(((struct neighbour___g7_53 *)p)->gen_missing_53, 2);
	out[437] = __builtin_preserve_field_info(((struct neighbour___g7_53 *)p)->gen_missing_53, 5);
	out[438] = __builtin_preserve_field_info(((struct neighbour___g7_53 *)p)->gen_missing_53, 4);
	out[439] = bpf_core_type_size(struct neighbour___g7_53);
	out[440] = __builtin_preserve_field_info(((union kvm_x86_mce___g7_54 *)p)->status, 1);
	out[441] = __builtin_preserve_field_info(((union kvm_x86_mce___g7_54 *)p)->status, 3);
	out[442] = __builtin_preserve_field_info(((union kvm_x86_mce___g7_54 *)p)->status, 5);
	out[443] = __builtin_preserve_field_info(((union kvm_x86_mce___g7_54 *)p)->mcg_status, 0);
	out[444] = __builtin_preserve_field_info(((union kvm_x86_mce___g7_54 *)p)->mcg_status, 2);
	out[445] = __builtin_preserve_field_info(((union kvm_x86_mce___g7_54 *)p)->mcg_status, 1);
	out[446] = bpf_core_type_id_kernel(union kvm_x86_mce___g7_54);
	out[447] = __builtin_preserve_field_info(((struct crypto_cipher_spawn___g7_55 *)p)->base, 1);
	out[448] = __builtin_preserve_field_info(((struct crypto_cipher_spawn___g7_55 *)p)->base, 0);
	out[449] = __builtin_preserve_field_info(((struct crypto_cipher_spawn___g7_55 *)p)->base, 2);
	out[450] = __builtin_preserve_field_info(((struct crypto_cipher_spawn___g7_55 *)p)->gen_missing_55, 3);
	out[451] = __builtin_preserve_field_info(((struct crypto_cipher_spawn___g7_55 *)p)->gen_missing_55, 4);
	out[452] = __builtin_preserve_field_info(((struct crypto_cipher_spawn___g7_55 *)p)->gen_missing_55, 2);
	out[453] = bpf_core_type_exists(struct crypto_cipher_spawn___g7_55);
	out[454] = bpf_core_enum_value_exists(enum vm_instruction_error_number___g7_56, VMXERR_VMCLEAR_VMXON_POINTER___g7_56);
	out[455] = bpf_core_enum_value(enum vm_instruction_error_number___g7_56, VMXERR_VMCLEAR_VMXON_POINTER___g7_56);
	out[456] = bpf_core_enum_value_exists(enum vm_instruction_error_number___g7_56, VMXERR_VMPTRLD_INVALID_ADDRESS___g7_56);
	out[457] = bpf_core_enum_value(enum vm_instruction_error_number___g7_56, VMXERR_VMPTRLD_INVALID_ADDRESS___g7_56);
	out[458] = bpf_core_enum_value_exists(enum vm_instruction_error_number___g7_56, GEN_MISSING___g7_56);
	out[459] = bpf_core_enum_value(enum vm_instruction_error_number___g7_56, GEN_MISSING___g7_56);
	out[460] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->__usec, 2);
	out[461] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->__usec, 1);
	out[462] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->__usec, 0);
	out[463] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->value, 3);
	out[464] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->value, 1);
	out[465] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->value, 4);
	out[466] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->__sec, 1);
	out[467] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->__sec, 5);
	out[468] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->__sec, 4);
	out[469] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->code, 2);
	out[470] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->code, 4);
	out[471] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->code, 1);
	out[472] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->gen_missing_57, 2);
	out[473] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->gen_missing_57, 0);
	out[474] = __builtin_preserve_field_info(((struct input_event___g7_57 *)p)->gen_missing_57, 3);
	out[475] = bpf_core_type_size(struct input_event___g7_57);
	out[476] = bpf_core_enum_value_exists(enum skb_drop_reason_subsys___g7_58, SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE___g7_58);
	out[477] = bpf_core_enum_value(enum skb_drop_reason_subsys___g7_58, SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE___g7_58);
	out[478] = bpf_core_enum_value_exists(enum skb_drop_reason_subsys___g7_58, SKB_DROP_REASON_SUBSYS_OPENVSWITCH___g7_58);
	out[479] = bpf_core_enum_value(enum skb_drop_reason_subsys___g7_58, SKB_DROP_REASON_SUBSYS_OPENVSWITCH___g7_58);
	out[480] = bpf_core_enum_value_exists(enum skb_drop_reason_subsys___g7_58, GEN_MISSING___g7_58);
	out[481] = bpf_core_enum_value(enum skb_drop_reason_subsys___g7_58, GEN_MISSING___g7_58);
	out[482] = __builtin_preserve_field_info(((union netdev_hw_addr_list___g7_59 *)p)->list, 0);
	out[483] = __builtin_preserve_field_info(((union netdev_hw_addr_list___g7_59 *)p)->list, 2);
	out[484] = __builtin_preserve_field_info(((union netdev_hw_addr_list___g7_59 *)p)->list, 1);
	out[485] = __builtin_preserve_field_info(((union netdev_hw_addr_list___g7_59 *)p)->count, 4);
	out[486] = __builtin_preserve_field_info(((union netdev_hw_addr_list___g7_59 *)p)->count, 1);
	out[487] = __builtin_preserve_field_info(((union netdev_hw_addr_list___g7_59 *)p)->count, 3);
	out[488] = __builtin_preserve_field_info(((union netdev_hw_addr_list___g7_59 *)p)->tree, 2);
	out[489] = __builtin_preserve_field_info(((union netdev_hw_addr_list___g7_59 *)p)->tree, 1);
	out[490] = __builtin_preserve_field_info(((union netdev_hw_addr_list___g7_59 *)p)->tree, 0);
	out[491] = bpf_core_type_exists(union netdev_hw_addr_list___g7_59);
	return 0;
}
