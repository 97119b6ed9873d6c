/* The helper protos the program types pick from (kernel/bpf/helpers.c, ringbuf.c, stackmap.c). */
#ifndef KERNEL_BPF_HELPERS_H
#define KERNEL_BPF_HELPERS_H

#include "kernel/bpf/core.h"

extern const struct bpf_func_proto bpf_map_lookup_elem_proto, bpf_map_update_elem_proto,
	bpf_map_delete_elem_proto, bpf_ktime_get_ns_proto, bpf_get_smp_processor_id_proto,
	bpf_get_current_pid_tgid_proto, bpf_get_current_uid_gid_proto, bpf_get_current_comm_proto,
	bpf_ringbuf_output_proto, bpf_ringbuf_reserve_proto, bpf_ringbuf_submit_proto,
	bpf_ringbuf_discard_proto, bpf_ringbuf_query_proto, bpf_get_stackid_proto,
	bpf_get_stackid_proto_tp, bpf_tail_call_proto;

const struct bpf_func_proto *bpf_base_func_proto(enum bpf_func_id id);

/* kernel/bpf/stackmap.c: the stack a program sees, from regs (NULL: the caller's own frames). */
u64 bpf_get_stackid_regs(const struct pt_regs *regs, struct bpf_map *map, u64 flags);

#endif
