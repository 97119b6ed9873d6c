/* The map types bpf(2) can make, and an element as bpf(2) moves it (every CPU's copy for per-CPU
 * maps): what syscall.c and the benches share about maps. */
#include "kernel/bpf/maps.h"
#include "kernel/smp.h"
#include "lib/string.h"

const struct bpf_map_ops *bpf_map_ops_of(u32 map_type)
{
	switch (map_type) {
	case BPF_MAP_TYPE_HASH:
		return &htab_map_ops;
	case BPF_MAP_TYPE_ARRAY:
		return &array_map_ops;
	case BPF_MAP_TYPE_PROG_ARRAY:
		return &prog_array_map_ops;
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY:
		return &perf_event_array_map_ops;
	case BPF_MAP_TYPE_PERCPU_HASH:
		return &htab_percpu_map_ops;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return &percpu_array_map_ops;
	case BPF_MAP_TYPE_STACK_TRACE:
		return &stack_trace_map_ops;
	case BPF_MAP_TYPE_RINGBUF:
		return &ringbuf_map_ops;
	default:
		return NULL;
	}
}

int bpf_num_possible_cpus(void)
{
	return nr_cpus_possible;
}

int bpf_map_copy_value(struct bpf_map *map, void *key, void *value)
{
	void *p;

	if (map->ops->map_copy_value)
		return map->ops->map_copy_value(map, key, value);
	p = map->ops->map_lookup_elem(map, key);
	if (!p)
		return -ENOENT;
	memcpy(value, p, map->value_size);
	return 0;
}

int bpf_map_update_value(struct bpf_map *map, void *key, void *value, u64 flags)
{
	if (map->ops->map_update_percpu)
		return map->ops->map_update_percpu(map, key, value, flags);
	return map->ops->map_update_elem(map, key, value, flags);
}
