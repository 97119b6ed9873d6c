/* BPF_MAP_TYPE_ARRAY and PERCPU_ARRAY: fixed slots indexed by a u32 key (kernel/bpf/arraymap.c). */
#include "kernel/bpf/maps.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "lib/string.h"

/*
 *   struct bpf_array | value 0 | value 1 | ...             ARRAY: elem_size = value_size rounded to 8
 *   struct bpf_array | v0 cpu0 | v0 cpu1 | ... | v1 cpu0   PERCPU_ARRAY: NR_CPUS copies per index
 */
struct bpf_array {
	struct bpf_map map;
	u32 elem_size;
	bool percpu;
	u8 value[] __aligned(8);
};

static int array_map_alloc_check(union bpf_attr *attr)
{
	if (attr->key_size != 4 || !attr->value_size || !attr->max_entries ||
	    attr->map_flags &
		    ~(BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
		return -EINVAL;
	if (attr->value_size > (1U << 20)) /* Linux: KMALLOC_MAX_SIZE for one element */
		return -E2BIG;
	return 0;
}

static struct bpf_map *array_map_alloc(union bpf_attr *attr)
{
	bool percpu = attr->map_type == BPF_MAP_TYPE_PERCPU_ARRAY;
	u32 elem = ALIGN(attr->value_size, 8);
	u64 n = (u64)attr->max_entries * (percpu ? NR_CPUS : 1);
	struct bpf_array *a;

	if (n * elem > (64ULL << 20)) /* more than this kernel's memory can sensibly hold */
		return ERR_PTR(-ENOMEM);
	a = kzalloc(sizeof(*a) + n * elem);
	if (!a)
		return ERR_PTR(-ENOMEM);
	a->elem_size = elem;
	a->percpu = percpu;
	return &a->map;
}

static void array_map_free(struct bpf_map *map)
{
	kfree(container_of(map, struct bpf_array, map));
}

static void *array_elem(struct bpf_array *a, u32 index, int cpu)
{
	u64 slot = a->percpu ? (u64)index * NR_CPUS + cpu : index;
	return a->value + slot * a->elem_size;
}

static void *array_map_lookup_elem(struct bpf_map *map, void *key)
{
	struct bpf_array *a = container_of(map, struct bpf_array, map);
	u32 index = *(u32 *)key;

	if (index >= map->max_entries)
		return NULL;
	return array_elem(a, index, a->percpu ? smp_processor_id() : 0);
}

void *bpf_array_value_addr(struct bpf_map *map, u32 off)
{
	return container_of(map, struct bpf_array, map)->value + off;
}

static long array_map_update_elem(struct bpf_map *map, void *key, void *value, u64 flags)
{
	void *p;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (*(u32 *)key >= map->max_entries)
		return -E2BIG;
	if (flags == BPF_NOEXIST) /* every element of an array always exists */
		return -EEXIST;
	p = array_map_lookup_elem(map, key);
	memcpy(p, value, map->value_size);
	return 0;
}

static long array_map_delete_elem(struct bpf_map *map, void *key)
{
	return -EINVAL;
}

int array_map_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	u32 index = key ? *(u32 *)key : ~0U;

	if (index >= map->max_entries) { /* no key, or one past the end: start again */
		*(u32 *)next_key = 0;
		return 0;
	}
	if (index == map->max_entries - 1)
		return -ENOENT;
	*(u32 *)next_key = index + 1;
	return 0;
}

/* bpf(2)'s per-CPU value: every possible CPU's copy of index, one after another, each rounded to
 * 8; out: from the map into buf, else from buf into the map. */
static void percpu_array_copy_cpus(struct bpf_array *a, u32 index, void *buf, bool out)
{
	for (int cpu = 0; cpu < bpf_num_possible_cpus(); cpu++) {
		u8 *user = (u8 *)buf + cpu * a->elem_size, *elem = array_elem(a, index, cpu);

		memcpy(out ? user : elem, out ? elem : user, a->map.value_size);
	}
}

static int percpu_array_copy(struct bpf_map *map, void *key, void *value)
{
	struct bpf_array *a = container_of(map, struct bpf_array, map);
	u32 index = *(u32 *)key;

	if (index >= map->max_entries)
		return -ENOENT;
	percpu_array_copy_cpus(a, index, value, true);
	return 0;
}

static int percpu_array_update(struct bpf_map *map, void *key, void *value, u64 flags)
{
	struct bpf_array *a = container_of(map, struct bpf_array, map);
	u32 index = *(u32 *)key;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	if (flags == BPF_NOEXIST)
		return -EEXIST;
	percpu_array_copy_cpus(a, index, value, false);
	return 0;
}

const struct bpf_map_ops array_map_ops = {
	.map_alloc_check = array_map_alloc_check,
	.map_alloc = array_map_alloc,
	.map_free = array_map_free,
	.map_lookup_elem = array_map_lookup_elem,
	.map_update_elem = array_map_update_elem,
	.map_delete_elem = array_map_delete_elem,
	.map_get_next_key = array_map_get_next_key,
};

const struct bpf_map_ops percpu_array_map_ops = {
	.map_alloc_check = array_map_alloc_check,
	.map_alloc = array_map_alloc,
	.map_free = array_map_free,
	.map_lookup_elem = array_map_lookup_elem,
	.map_update_elem = array_map_update_elem,
	.map_delete_elem = array_map_delete_elem,
	.map_get_next_key = array_map_get_next_key,
	.map_copy_value = percpu_array_copy,
	.map_update_percpu = percpu_array_update,
};

/*
 * BPF_MAP_TYPE_PERF_EVENT_ARRAY: a slot per CPU (or any index) holding an open perf event, which
 * bpf_perf_event_output() writes into. The slot holds a reference on the event's file.
 */
struct bpf_file_array {
	struct bpf_map map;
	struct file *files[];
};

static int fd_array_alloc_check(union bpf_attr *attr)
{
	if (attr->key_size != 4 || attr->value_size != 4 || !attr->max_entries || attr->map_flags)
		return -EINVAL;
	if (attr->max_entries > 4096)
		return -E2BIG;
	return 0;
}

static struct bpf_map *fd_array_alloc(union bpf_attr *attr)
{
	struct bpf_file_array *a = kzalloc(sizeof(*a) + attr->max_entries * sizeof(struct file *));

	return a ? &a->map : ERR_PTR(-ENOMEM);
}

static void fd_array_free(struct bpf_map *map)
{
	struct bpf_file_array *a = container_of(map, struct bpf_file_array, map);

	for (u32 i = 0; i < map->max_entries; i++)
		if (a->files[i])
			fput(a->files[i]);
	kfree(a);
}

struct file *bpf_perf_event_array_file(struct bpf_map *map, u32 index)
{
	struct bpf_file_array *a = container_of(map, struct bpf_file_array, map);

	return index < map->max_entries ? READ_ONCE(a->files[index]) : NULL;
}

/* From bpf(2) only: the value is the fd of a perf event of the caller's. */
static long fd_array_update(struct bpf_map *map, void *key, void *value, u64 flags)
{
	struct bpf_file_array *a = container_of(map, struct bpf_file_array, map);
	u32 index = *(u32 *)key;
	struct file *f, *old;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	if (flags == BPF_NOEXIST)
		return -EEXIST;
	f = fget(*(u32 *)value);
	if (!f)
		return -EBADF;
	if (!bpf_is_perf_event_file(f)) {
		fput(f);
		return -EINVAL;
	}
	/* fget()'s reference becomes the map's */
	old = __atomic_exchange_n(&a->files[index], f, __ATOMIC_ACQ_REL);
	if (old)
		fput(old);
	return 0;
}

static long fd_array_delete(struct bpf_map *map, void *key)
{
	struct bpf_file_array *a = container_of(map, struct bpf_file_array, map);
	u32 index = *(u32 *)key;
	struct file *old;

	if (index >= map->max_entries)
		return -E2BIG;
	old = __atomic_exchange_n(&a->files[index], NULL, __ATOMIC_ACQ_REL);
	if (!old)
		return -ENOENT;
	fput(old);
	return 0;
}

/* Linux answers a lookup of a perf event array from bpf(2) with -EOPNOTSUPP. */
static int fd_array_copy(struct bpf_map *map, void *key, void *value)
{
	return -EOPNOTSUPP;
}

const struct bpf_map_ops perf_event_array_map_ops = {
	.map_alloc_check = fd_array_alloc_check,
	.map_alloc = fd_array_alloc,
	.map_free = fd_array_free,
	.map_update_elem = fd_array_update,
	.map_delete_elem = fd_array_delete,
	.map_get_next_key = array_map_get_next_key,
	.map_copy_value = fd_array_copy,
};
