/* Helpers any program type may call: map access, time, the current task and CPU (Linux's
 * kernel/bpf/helpers.c). Each is called with the five argument registers, as the JIT calls it. */
#include "kernel/bpf/helpers.h"
#include "kernel/bpf/maps.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/time.h"
#include "lib/string.h"

#define HELPER(name) u64 bpf_##name(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
#define PTR(x) ((void *)(unsigned long)(x))

HELPER(map_lookup_elem)
{
	struct bpf_map *map = PTR(r1);
	return (u64)(unsigned long)map->ops->map_lookup_elem(map, PTR(r2));
}

HELPER(map_update_elem)
{
	struct bpf_map *map = PTR(r1);
	return map->ops->map_update_elem(map, PTR(r2), PTR(r3), r4);
}

HELPER(map_delete_elem)
{
	struct bpf_map *map = PTR(r1);
	return map->ops->map_delete_elem(map, PTR(r2));
}

HELPER(ktime_get_ns)
{
	return ktime_get_ns();
}

HELPER(get_smp_processor_id)
{
	return smp_processor_id();
}

HELPER(get_current_pid_tgid)
{
	struct task *t = current;
	return t ? ((u64)(u32)t->tgid << 32) | (u32)t->pid : 0;
}

HELPER(get_current_uid_gid)
{
	struct task *t = current;
	return t ? ((u64)t->gid << 32) | t->uid : 0;
}

HELPER(get_current_comm)
{
	struct task *t = current;
	char *buf = PTR(r1);
	u32 size = r2;

	/* the verifier proved size > 0; the name is cut to fit and always ends in a NUL */
	memset(buf, 0, size);
	if (t)
		strscpy(buf, t->comm, MIN((u32)TASK_COMM_LEN, size));
	return 0;
}

const struct bpf_func_proto bpf_map_lookup_elem_proto = {
	.func = bpf_map_lookup_elem,
	.ret_type = RET_PTR_TO_MAP_VALUE_OR_NULL,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY },
};

const struct bpf_func_proto bpf_map_update_elem_proto = {
	.func = bpf_map_update_elem,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING },
};

const struct bpf_func_proto bpf_map_delete_elem_proto = {
	.func = bpf_map_delete_elem,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY },
};

const struct bpf_func_proto bpf_ktime_get_ns_proto = {
	.func = bpf_ktime_get_ns,
	.ret_type = RET_INTEGER,
};

const struct bpf_func_proto bpf_get_smp_processor_id_proto = {
	.func = bpf_get_smp_processor_id,
	.ret_type = RET_INTEGER,
};

const struct bpf_func_proto bpf_get_current_pid_tgid_proto = {
	.func = bpf_get_current_pid_tgid,
	.ret_type = RET_INTEGER,
};

const struct bpf_func_proto bpf_get_current_uid_gid_proto = {
	.func = bpf_get_current_uid_gid,
	.ret_type = RET_INTEGER,
};

const struct bpf_func_proto bpf_get_current_comm_proto = {
	.func = bpf_get_current_comm,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE },
};

/* Linux's bpf_base_func_proto(): what every program type may call. */
const struct bpf_func_proto *bpf_base_func_proto(enum bpf_func_id id)
{
	switch (id) {
	case BPF_FUNC_map_lookup_elem:
		return &bpf_map_lookup_elem_proto;
	case BPF_FUNC_map_update_elem:
		return &bpf_map_update_elem_proto;
	case BPF_FUNC_map_delete_elem:
		return &bpf_map_delete_elem_proto;
	case BPF_FUNC_ktime_get_ns:
		return &bpf_ktime_get_ns_proto;
	case BPF_FUNC_get_smp_processor_id:
		return &bpf_get_smp_processor_id_proto;
	case BPF_FUNC_ringbuf_output:
		return &bpf_ringbuf_output_proto;
	case BPF_FUNC_ringbuf_reserve:
		return &bpf_ringbuf_reserve_proto;
	case BPF_FUNC_ringbuf_submit:
		return &bpf_ringbuf_submit_proto;
	case BPF_FUNC_ringbuf_discard:
		return &bpf_ringbuf_discard_proto;
	case BPF_FUNC_ringbuf_query:
		return &bpf_ringbuf_query_proto;
	case BPF_FUNC_tail_call:
		return &bpf_tail_call_proto;
	default:
		return NULL;
	}
}
