/* bpf(2)'s map commands: MAP_CREATE and the element commands, a value moved as user space sees it
 * (Linux's kernel/bpf/syscall.c: map_create(), map_lookup_elem() and their kin). */
#include "kernel/bpf/bpf.h"
#include "kernel/bpf/btf.h"
#include "kernel/bpf/core.h"
#include "kernel/bpf/maps.h"
#include "kernel/bpf/syscall.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/uaccess.h"
#include "lib/string.h"

/* Linux's map_check_btf(): the key and value types the map names in its BTF are the map's sizes
 * (a key type of 0 is for maps without keys, a value type must be there); *id: the BTF's. */
static int map_check_btf(const union bpf_attr *attr, u32 *id)
{
	struct btf *btf = btf_get_by_fd(attr->btf_fd);
	int err = -EINVAL;

	if (IS_ERR(btf))
		return PTR_ERR(btf);
	if (!attr->btf_value_type_id)
		goto out;
	if (attr->btf_key_type_id && btf_type_id_size(btf, attr->btf_key_type_id) != attr->key_size)
		goto out;
	if (btf_type_id_size(btf, attr->btf_value_type_id) != attr->value_size)
		goto out;
	*id = btf->id;
	err = 0;
out:
	btf_put(btf);
	return err;
}

int map_create(union bpf_attr *attr)
{
	const struct bpf_map_ops *ops;
	struct bpf_map *map;
	u32 btf_id = 0;
	int err, fd;

	if (CHECK_ATTR(attr, map_extra))
		return -EINVAL;
	ops = bpf_map_ops_of(attr->map_type);
	if (!ops)
		return -EINVAL;
	if (!bpf_capable()) /* the tracing maps need CAP_BPF, as on Linux */
		return -EPERM;
	if (attr->map_name[BPF_OBJ_NAME_LEN - 1] || attr->map_extra || attr->inner_map_fd ||
	    attr->btf_vmlinux_value_type_id)
		return -EINVAL;
	if (ops->map_alloc_check && (err = ops->map_alloc_check(attr)))
		return err;
	if ((attr->btf_key_type_id || attr->btf_value_type_id) &&
	    (err = map_check_btf(attr, &btf_id)))
		return err;
	map = ops->map_alloc(attr);
	if (IS_ERR(map))
		return PTR_ERR(map);
	map->ops = ops;
	map->map_type = attr->map_type;
	map->key_size = attr->key_size;
	map->value_size = attr->value_size;
	map->max_entries = attr->max_entries;
	map->map_flags = attr->map_flags;
	map->refcnt = 1;
	if (attr->btf_value_type_id) {
		map->btf_id = btf_id;
		map->btf_key_type_id = attr->btf_key_type_id;
		map->btf_value_type_id = attr->btf_value_type_id;
	}
	memcpy(map->name, attr->map_name, BPF_OBJ_NAME_LEN);
	bpf_map_alloc_id(map);
	fd = bpf_anon_fd(&bpf_map_fops, map, O_RDWR);
	if (fd < 0)
		bpf_map_put(map);
	return fd;
}

/* The same from kernel code whose attr is already in kernel memory (the benches). */
int bpf_map_create_kernel(union bpf_attr *attr)
{
	return map_create(attr);
}

/* The size of a value as bpf(2) moves it: one per possible CPU for per-CPU maps. */
static u32 map_value_size_user(const struct bpf_map *map)
{
	if (map->map_type == BPF_MAP_TYPE_PERCPU_ARRAY || map->map_type == BPF_MAP_TYPE_PERCPU_HASH)
		return ALIGN(map->value_size, 8) * bpf_num_possible_cpus();
	if (map->map_type == BPF_MAP_TYPE_STACK_TRACE)
		return map->value_size;
	return map->value_size;
}

int map_elem_cmd(int cmd, union bpf_attr *attr)
{
	struct bpf_map *map;
	void *key = NULL, *value = NULL;
	unsigned int acc = O_RDWR;
	bool writes = cmd == BPF_MAP_UPDATE_ELEM || cmd == BPF_MAP_DELETE_ELEM;
	u32 vsize;
	int err;

	if (CHECK_ATTR(attr, flags))
		return -EINVAL;
	map = bpf_map_get_mode(attr->map_fd, &acc);
	if (IS_ERR(map))
		return PTR_ERR(map);
	vsize = map_value_size_user(map);
	/* an fd from MAP_GET_FD_BY_ID with BPF_F_RDONLY or BPF_F_WRONLY: Linux's map_get_sys_perms() */
	err = -EPERM;
	if (acc == (writes ? O_RDONLY : O_WRONLY))
		goto out;
	err = -EINVAL;
	if (map->map_type == BPF_MAP_TYPE_RINGBUF)
		goto out; /* Linux: no element commands on a ring buffer */
	if (cmd != BPF_MAP_GET_NEXT_KEY || attr->key) {
		key = memdup_user(u64_to_user_ptr(attr->key), map->key_size);
		if (IS_ERR(key)) {
			err = PTR_ERR(key);
			key = NULL;
			goto out;
		}
	}
	value = kzalloc(MAX(vsize, map->key_size) + 1);
	err = -ENOMEM;
	if (!value)
		goto out;
	switch (cmd) {
	case BPF_MAP_LOOKUP_ELEM:
		err = attr->flags ? -EINVAL : bpf_map_copy_value(map, key, value);
		if (!err && copy_to_user((void __user *)u64_to_user_ptr(attr->value), value, vsize))
			err = -EFAULT;
		break;
	case BPF_MAP_UPDATE_ELEM:
		err = -EFAULT;
		if (copy_from_user(value, u64_to_user_ptr(attr->value), vsize))
			break;
		err = bpf_map_update_value(map, key, value, attr->flags);
		break;
	case BPF_MAP_DELETE_ELEM:
		err = map->ops->map_delete_elem ? map->ops->map_delete_elem(map, key) : -EINVAL;
		break;
	default: /* BPF_MAP_GET_NEXT_KEY */
		err = map->ops->map_get_next_key(map, key, value);
		if (!err && copy_to_user((void __user *)u64_to_user_ptr(attr->next_key), value,
					 map->key_size))
			err = -EFAULT;
		break;
	}
out:
	kfree(key);
	kfree(value);
	bpf_map_put(map);
	return err;
}
