/* BPF_OBJ_GET_INFO_BY_FD: what a program, map or BTF fd holds, in Linux's info structs, cut to
 * the caller's info_len (Linux's bpf_obj_get_info_by_fd() and its per-object halves). */
#include "kernel/bpf/btf.h"
#include "kernel/bpf/bpf.h"
#include "kernel/bpf/core.h"
#include "kernel/fs/file.h"
#include "kernel/uaccess.h"
#include "lib/string.h"

/*
 * What bpftool's `prog show` prints: the fields below, and the ids of the maps the program uses,
 * copied into the caller's map_ids array up to the nr_map_ids it gave (nr_map_ids comes back as
 * the real count, as Linux's bpf_prog_get_info_by_fd() does). The instruction dumps
 * (xlated_prog_insns, jited_prog_insns) are not built: their pointers come back 0, as Linux hands
 * them to a caller it does not let see raw kernel addresses.
 */
/* Linux 6.1's layout, which libbpf and bpftool were built against */
_Static_assert(sizeof(struct bpf_prog_info) == 232 && offsetof(struct bpf_prog_info, btf_id) == 128,
	       "struct bpf_prog_info");

static int prog_get_info(struct bpf_prog *prog, union bpf_attr *attr)
{
	struct bpf_prog_info info, in;
	u32 len = MIN(attr->info.info_len, (u32)sizeof(info));
	void __user *uinfo = (void __user *)(unsigned long)attr->info.info;
	u32 __user *uids;
	u32 n;

	memset(&in, 0, sizeof(in));
	if (copy_from_user(&in, uinfo, len))
		return -EFAULT;
	info = (struct bpf_prog_info){ .type = prog->type,
				       .id = prog->id,
				       .jited_prog_len = prog->jited ? prog->jited_len : 0,
				       .xlated_prog_len = prog->len * sizeof(struct bpf_insn),
				       .load_time = prog->load_time,
				       .created_by_uid = prog->uid,
				       .nr_map_ids = prog->used_map_cnt,
				       .map_ids = in.map_ids,
				       .gpl_compatible = prog->gpl_compatible,
				       .btf_id = prog->btf ? prog->btf->id : 0,
				       .verified_insns = prog->verified_insns,
				       .attach_btf_obj_id =
					       prog->attach_btf_id ? 1 : 0, /* vmlinux */
				       .attach_btf_id = prog->attach_btf_id };
	memcpy(info.tag, prog->tag, sizeof(info.tag));
	memcpy(info.name, prog->name, sizeof(info.name));
	uids = (u32 __user *)(unsigned long)in.map_ids;
	n = MIN(in.nr_map_ids, prog->used_map_cnt);
	for (u32 i = 0; i < n; i++)
		if (put_user(prog->used_maps[i]->id, &uids[i]))
			return -EFAULT;
	if (copy_to_user(uinfo, &info, len))
		return -EFAULT;
	return 0;
}

static int map_get_info(struct bpf_map *map, union bpf_attr *attr)
{
	struct bpf_map_info info;
	u32 len = MIN(attr->info.info_len, (u32)sizeof(info));
	void __user *uinfo = (void __user *)(unsigned long)attr->info.info;

	memset(&info, 0, sizeof(info));
	info.type = map->map_type;
	info.id = map->id;
	info.key_size = map->key_size;
	info.value_size = map->value_size;
	info.max_entries = map->max_entries;
	info.map_flags = map->map_flags;
	info.btf_id = map->btf_id;
	info.btf_key_type_id = map->btf_key_type_id;
	info.btf_value_type_id = map->btf_value_type_id;
	memcpy(info.name, map->name, sizeof(info.name));
	if (copy_to_user(uinfo, &info, len))
		return -EFAULT;
	return 0;
}

static int btf_get_info(struct btf *btf, union bpf_attr *attr, union bpf_attr __user *uattr)
{
	struct bpf_btf_info info;
	u32 len = MIN(attr->info.info_len, (u32)sizeof(info));
	void __user *uinfo = (void __user *)(unsigned long)attr->info.info;
	int err;

	memset(&info, 0, sizeof(info));
	if (copy_from_user(&info, uinfo, len))
		return -EFAULT;
	if ((err = btf_get_info_by_fd(btf, &info)) && err != -ENOSPC)
		return err;
	if (copy_to_user(uinfo, &info, len) || put_user(len, &uattr->info.info_len))
		return -EFAULT;
	return err; /* -ENOSPC: a name cut short, the rest handed back as Linux does */
}

int bpf_obj_get_info_by_fd(union bpf_attr *attr, union bpf_attr __user *uattr)
{
	struct btf *btf;
	struct file *f;
	int err;

	f = fget(attr->info.bpf_fd);
	if (!f)
		return -EBADF;
	if (!IS_ERR(btf = btf_get_by_fd(attr->info.bpf_fd))) {
		err = btf_get_info(btf, attr, uattr);
		btf_put(btf);
		goto out;
	}
	if (f->f_op == &bpf_prog_fops)
		err = prog_get_info(f->private_data, attr);
	else if (f->f_op == &bpf_map_fops)
		err = map_get_info(f->private_data, attr);
	else
		err = -EINVAL;
	if (!err) {
		u32 len = MIN(attr->info.info_len, f->f_op == &bpf_prog_fops
							   ? (u32)sizeof(struct bpf_prog_info)
							   : (u32)sizeof(struct bpf_map_info));
		if (put_user(len, &uattr->info.info_len))
			err = -EFAULT;
	}
out:
	fput(f);
	return err;
}
