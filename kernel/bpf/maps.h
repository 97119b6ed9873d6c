/* The map types and what bpf(2) and the helpers share about them. */
#ifndef KERNEL_BPF_MAPS_H
#define KERNEL_BPF_MAPS_H

#include "kernel/bpf/bpf.h"

extern const struct bpf_map_ops array_map_ops, percpu_array_map_ops;
extern const struct bpf_map_ops htab_map_ops, htab_percpu_map_ops;
extern const struct bpf_map_ops perf_event_array_map_ops, ringbuf_map_ops, stack_trace_map_ops;
extern const struct bpf_map_ops prog_array_map_ops;

/* kernel/bpf/syscall.c's table: the ops of a map type we have, or NULL. */
const struct bpf_map_ops *bpf_map_ops_of(u32 map_type);
/* Per-CPU values exist for every CPU that may ever run (Linux's num_possible_cpus()). */
int bpf_num_possible_cpus(void);
/* bpf(2)'s view of an element: every CPU's copy for per-CPU maps. */
int bpf_map_copy_value(struct bpf_map *map, void *key, void *value);
int bpf_map_update_value(struct bpf_map *map, void *key, void *value, u64 flags);
/* The map value a verified direct load (BPF_PSEUDO_MAP_VALUE) points at, for array maps. */
void *bpf_array_value_addr(struct bpf_map *map, u32 off);

/* Every index of an array map in turn (array, perf event and prog arrays alike). */
int array_map_get_next_key(struct bpf_map *map, void *key, void *next_key);

/* PERF_EVENT_ARRAY: the perf event file in slot index, or NULL (kernel/bpf/arraymap.c). */
struct file *bpf_perf_event_array_file(struct bpf_map *map, u32 index);

#endif
