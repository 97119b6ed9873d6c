/* The bpf(2) ABI as user space sees it: Linux's numbers and layouts (include/uapi/linux/bpf.h). */
#ifndef KERNEL_BPF_BPF_UAPI_H
#define KERNEL_BPF_BPF_UAPI_H

#include "lib/types.h"

/* Instruction classes (the low 3 bits of code). */
#define BPF_LD 0x00
#define BPF_LDX 0x01
#define BPF_ST 0x02
#define BPF_STX 0x03
#define BPF_ALU 0x04
#define BPF_JMP 0x05
#define BPF_JMP32 0x06
#define BPF_ALU64 0x07
#define BPF_CLASS(code) ((code)&0x07)

/* Loads and stores: size (bits 3-4) and mode (bits 5-7). */
#define BPF_W 0x00
#define BPF_H 0x08
#define BPF_B 0x10
#define BPF_DW 0x18
#define BPF_SIZE(code) ((code)&0x18)
#define BPF_IMM 0x00
#define BPF_ABS 0x20
#define BPF_IND 0x40
#define BPF_MEM 0x60
#define BPF_ATOMIC 0xc0
#define BPF_MODE(code) ((code)&0xe0)

/* ALU and jumps: operation (bits 4-7) and source (bit 3). */
#define BPF_K 0x00
#define BPF_X 0x08
#define BPF_SRC(code) ((code)&0x08)
#define BPF_OP(code) ((code)&0xf0)
#define BPF_ADD 0x00
#define BPF_SUB 0x10
#define BPF_MUL 0x20
#define BPF_DIV 0x30
#define BPF_OR 0x40
#define BPF_AND 0x50
#define BPF_LSH 0x60
#define BPF_RSH 0x70
#define BPF_NEG 0x80
#define BPF_MOD 0x90
#define BPF_XOR 0xa0
#define BPF_MOV 0xb0
#define BPF_ARSH 0xc0
#define BPF_END 0xd0
#define BPF_TO_LE 0x00
#define BPF_TO_BE 0x08
#define BPF_JA 0x00
#define BPF_JEQ 0x10
#define BPF_JGT 0x20
#define BPF_JGE 0x30
#define BPF_JSET 0x40
#define BPF_JNE 0x50
#define BPF_JSGT 0x60
#define BPF_JSGE 0x70
#define BPF_CALL 0x80
#define BPF_EXIT 0x90
#define BPF_JLT 0xa0
#define BPF_JLE 0xb0
#define BPF_JSLT 0xc0
#define BPF_JSLE 0xd0
#define BPF_FETCH 0x01 /* atomic: the old value comes back in src */
#define BPF_XCHG (0xe0 | BPF_FETCH)
#define BPF_CMPXCHG (0xf0 | BPF_FETCH)

#define MAX_BPF_REG 11 /* r0..r10 */
#define BPF_REG_FP 10
enum { BPF_REG_0, BPF_REG_1, BPF_REG_2, BPF_REG_3, BPF_REG_4, BPF_REG_5, BPF_REG_6 };
#define BPF_PSEUDO_MAP_FD 1
#define BPF_PSEUDO_MAP_VALUE 2
#define BPF_PSEUDO_CALL 1

struct bpf_insn {
	u8 code;
	u8 dst_reg : 4;
	u8 src_reg : 4;
	s16 off;
	s32 imm;
};

enum bpf_cmd {
	BPF_MAP_CREATE,
	BPF_MAP_LOOKUP_ELEM,
	BPF_MAP_UPDATE_ELEM,
	BPF_MAP_DELETE_ELEM,
	BPF_MAP_GET_NEXT_KEY,
	BPF_PROG_LOAD,
	BPF_PROG_GET_NEXT_ID = 11,
	BPF_MAP_GET_NEXT_ID = 12,
	BPF_PROG_GET_FD_BY_ID = 13,
	BPF_MAP_GET_FD_BY_ID = 14,
	BPF_OBJ_GET_INFO_BY_FD = 15,
	BPF_RAW_TRACEPOINT_OPEN = 17,
	BPF_BTF_LOAD = 18,
	BPF_BTF_GET_FD_BY_ID = 19,
	BPF_BTF_GET_NEXT_ID = 23,
	BPF_LINK_CREATE = 28,
};

enum bpf_map_type {
	BPF_MAP_TYPE_UNSPEC,
	BPF_MAP_TYPE_HASH,
	BPF_MAP_TYPE_ARRAY,
	BPF_MAP_TYPE_PROG_ARRAY,
	BPF_MAP_TYPE_PERF_EVENT_ARRAY,
	BPF_MAP_TYPE_PERCPU_HASH,
	BPF_MAP_TYPE_PERCPU_ARRAY,
	BPF_MAP_TYPE_STACK_TRACE,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum bpf_prog_type {
	BPF_PROG_TYPE_UNSPEC,
	BPF_PROG_TYPE_SOCKET_FILTER,
	BPF_PROG_TYPE_KPROBE,
	BPF_PROG_TYPE_TRACEPOINT = 5,
	BPF_PROG_TYPE_PERF_EVENT = 7,
	BPF_PROG_TYPE_RAW_TRACEPOINT = 17,
	BPF_PROG_TYPE_TRACING = 26,
};

/* map_update_elem flags */
#define BPF_ANY 0
#define BPF_NOEXIST 1
#define BPF_EXIST 2
/* map_flags */
#define BPF_F_NO_PREALLOC (1U << 0)
#define BPF_F_RDONLY (1U << 3)
#define BPF_F_WRONLY (1U << 4)
#define BPF_F_RDONLY_PROG (1U << 7)
#define BPF_F_WRONLY_PROG (1U << 8)
/* bpf_get_stackid() flags */
#define BPF_F_SKIP_FIELD_MASK 0xffULL
#define BPF_F_USER_STACK (1ULL << 8)
#define BPF_F_FAST_STACK_CMP (1ULL << 9)
#define BPF_F_REUSE_STACKID (1ULL << 10)
/* bpf_perf_event_output() flags */
#define BPF_F_INDEX_MASK 0xffffffffULL
#define BPF_F_CURRENT_CPU BPF_F_INDEX_MASK
/* ringbuf */
#define BPF_RB_NO_WAKEUP (1ULL << 0)
#define BPF_RB_FORCE_WAKEUP (1ULL << 1)
#define BPF_RINGBUF_BUSY_BIT (1U << 31)
#define BPF_RINGBUF_DISCARD_BIT (1U << 30)
#define BPF_RINGBUF_HDR_SZ 8
/* bpf_ringbuf_query() flags */
#define BPF_RB_AVAIL_DATA 0
#define BPF_RB_RING_SIZE 1
#define BPF_RB_CONS_POS 2
#define BPF_RB_PROD_POS 3

#define BPF_OBJ_NAME_LEN 16U
#define BPF_TAG_SIZE 8

/* The argument of bpf(2): one struct per command, in a union; Linux's offsets (size 144 in 6.1). */
union bpf_attr {
	struct { /* BPF_MAP_CREATE */
		u32 map_type, key_size, value_size, max_entries, map_flags;
		u32 inner_map_fd, numa_node;
		char map_name[BPF_OBJ_NAME_LEN];
		u32 map_ifindex, btf_fd, btf_key_type_id, btf_value_type_id;
		u32 btf_vmlinux_value_type_id;
		u64 map_extra;
	};
	struct { /* BPF_MAP_*_ELEM, BPF_MAP_GET_NEXT_KEY */
		u32 map_fd;
		u64 __attribute__((aligned(8))) key;
		union {
			u64 __attribute__((aligned(8))) value;
			u64 __attribute__((aligned(8))) next_key;
		};
		u64 flags;
	};
	struct { /* BPF_PROG_LOAD */
		u32 prog_type, insn_cnt;
		u64 __attribute__((aligned(8))) insns;
		u64 __attribute__((aligned(8))) license;
		u32 log_level, log_size;
		u64 __attribute__((aligned(8))) log_buf;
		u32 kern_version, prog_flags;
		char prog_name[BPF_OBJ_NAME_LEN];
		u32 prog_ifindex, expected_attach_type, prog_btf_fd, func_info_rec_size;
		u64 __attribute__((aligned(8))) func_info;
		u32 func_info_cnt, line_info_rec_size;
		u64 __attribute__((aligned(8))) line_info;
		u32 line_info_cnt, attach_btf_id, attach_prog_fd, core_relo_cnt;
		u64 __attribute__((aligned(8))) fd_array;
		u64 __attribute__((aligned(8))) core_relos;
		u32 core_relo_rec_size;
	};
	struct { /* BPF_*_GET_*_ID */
		union {
			u32 start_id, prog_id, map_id, btf_id, link_id;
		};
		u32 next_id, open_flags;
	};
	struct { /* BPF_OBJ_GET_INFO_BY_FD */
		u32 bpf_fd, info_len;
		u64 __attribute__((aligned(8))) info;
	} info;
	struct { /* BPF_RAW_TRACEPOINT_OPEN */
		u64 name;
		u32 prog_fd;
	} raw_tracepoint;
	struct { /* BPF_BTF_LOAD */
		u64 __attribute__((aligned(8))) btf;
		u64 __attribute__((aligned(8))) btf_log_buf;
		u32 btf_size, btf_log_size, btf_log_level;
	};
	struct { /* BPF_LINK_CREATE */
		u32 prog_fd, target_fd, attach_type, flags;
		union {
			struct {
				u64 __attribute__((aligned(8))) bpf_cookie;
			} perf_event;
			u8 __pad[128 - 16];
		};
	} link_create;
} __attribute__((aligned(8)));

/* What BPF_OBJ_GET_INFO_BY_FD fills for a program (Linux's struct bpf_prog_info, 232 bytes). */
struct bpf_prog_info {
	u32 type, id;
	u8 tag[BPF_TAG_SIZE];
	u32 jited_prog_len, xlated_prog_len;
	u64 __attribute__((aligned(8))) jited_prog_insns;
	u64 __attribute__((aligned(8))) xlated_prog_insns;
	u64 load_time;
	u32 created_by_uid, nr_map_ids;
	u64 __attribute__((aligned(8))) map_ids;
	char name[BPF_OBJ_NAME_LEN];
	u32 ifindex, gpl_compatible : 1, : 31;
	u64 netns_dev, netns_ino;
	u32 nr_jited_ksyms, nr_jited_func_lens;
	u64 __attribute__((aligned(8))) jited_ksyms;
	u64 __attribute__((aligned(8))) jited_func_lens;
	u32 btf_id, func_info_rec_size;
	u8 __pad1[192 - 136]; /* func_info .. prog_tags: not filled here */
	u64 run_time_ns, run_cnt, recursion_misses;
	u32 verified_insns, attach_btf_obj_id, attach_btf_id;
} __attribute__((aligned(8)));

/* ... and for a map (struct bpf_map_info, 88 bytes). */
struct bpf_map_info {
	u32 type, id, key_size, value_size, max_entries, map_flags;
	char name[BPF_OBJ_NAME_LEN];
	u32 ifindex, btf_vmlinux_value_type_id;
	u64 netns_dev, netns_ino;
	u32 btf_id, btf_key_type_id, btf_value_type_id, __pad;
	u64 map_extra;
} __attribute__((aligned(8)));

/* ... and for a BTF object (struct bpf_btf_info, 32 bytes). */
struct bpf_btf_info {
	u64 __attribute__((aligned(8))) btf;
	u32 btf_size, id;
	u64 __attribute__((aligned(8))) name;
	u32 name_len, kernel_btf;
} __attribute__((aligned(8)));

/* Helper ids (Linux's __BPF_FUNC_MAPPER order): only the ones this kernel has. */
enum bpf_func_id {
	BPF_FUNC_unspec,
	BPF_FUNC_map_lookup_elem = 1,
	BPF_FUNC_map_update_elem = 2,
	BPF_FUNC_map_delete_elem = 3,
	BPF_FUNC_probe_read = 4,
	BPF_FUNC_ktime_get_ns = 5,
	BPF_FUNC_trace_printk = 6,
	BPF_FUNC_get_prandom_u32 = 7,
	BPF_FUNC_get_smp_processor_id = 8,
	BPF_FUNC_tail_call = 12,
	BPF_FUNC_get_current_pid_tgid = 14,
	BPF_FUNC_get_current_uid_gid = 15,
	BPF_FUNC_get_current_comm = 16,
	BPF_FUNC_perf_event_output = 25,
	BPF_FUNC_get_stackid = 27,
	BPF_FUNC_probe_read_str = 45,
	BPF_FUNC_probe_read_user = 112,
	BPF_FUNC_probe_read_kernel = 113,
	BPF_FUNC_probe_read_user_str = 114,
	BPF_FUNC_probe_read_kernel_str = 115,
	BPF_FUNC_ringbuf_output = 130,
	BPF_FUNC_ringbuf_reserve = 131,
	BPF_FUNC_ringbuf_submit = 132,
	BPF_FUNC_ringbuf_discard = 133,
	BPF_FUNC_ringbuf_query = 134,
	BPF_FUNC_get_func_ip = 173,
	__BPF_FUNC_MAX_ID = 212,
};

#endif
