/* BPF_BTF_LOAD: a BTF blob copied in, checked (btf_parse.c) and held behind an fd that maps and
 * programs name (Linux's kernel/bpf/btf.c, btf_new_fd()). */
#include "kernel/bpf/btf.h"
#include "kernel/bpf/btf_format.h"
#include "kernel/bpf/core.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/spinlock.h"
#include "kernel/uaccess.h"
#include "lib/string.h"

static u32 btf_next_id;
/* Live BTFs by id: one leaves the list when its last reference goes, before it is freed. */
static struct btf *btf_list;
static DEFINE_SPINLOCK(btf_list_lock);

void btf_put(struct btf *btf)
{
	unsigned long flags;

	if (btf && !__atomic_sub_fetch(&btf->refcnt, 1, __ATOMIC_ACQ_REL)) {
		flags = spin_lock_irqsave(&btf_list_lock);
		for (struct btf **pp = &btf_list; *pp; pp = &(*pp)->next)
			if (*pp == btf) {
				*pp = btf->next;
				break;
			}
		spin_unlock_irqrestore(&btf_list_lock, flags);
		kfree(btf->types);
		kfree(btf->data);
		kfree(btf);
	}
}

static void btf_release(struct file *f)
{
	btf_put(f->private_data);
	f->private_data = NULL;
}

static const struct file_operations btf_fops = { .release = btf_release, .mode = 0600 };

struct btf *btf_get_by_fd(int fd)
{
	struct file *f = fd < 0 ? NULL : fget(fd);
	struct btf *btf = ERR_PTR(-EINVAL);

	if (!f)
		return ERR_PTR(-EBADF);
	if (f->f_op == &btf_fops) {
		btf = f->private_data;
		__atomic_add_fetch(&btf->refcnt, 1, __ATOMIC_RELAXED);
	}
	fput(f);
	return btf;
}

static int btf_copy_log(struct bpf_verifier_log *log, u64 ubuf)
{
	void __user *to = (void __user *)(unsigned long)ubuf;

	if (log->level && copy_to_user(to, log->buf, MIN(log->len + 1, log->size)))
		return -EFAULT;
	return log->truncated ? -ENOSPC : 0;
}

void btf_publish(struct btf *btf)
{
	unsigned long flags = spin_lock_irqsave(&btf_list_lock);

	btf->id = ++btf_next_id;
	btf->next = btf_list;
	btf_list = btf;
	spin_unlock_irqrestore(&btf_list_lock, flags);
}

/* Linux's btf_get_fd_by_id(): a reference only on a BTF whose count is not already 0 (one going
 * away stays listed until btf_put() unlinks it). The fd is read-only and close-on-exec. */
int btf_get_fd_by_id(u32 id)
{
	unsigned long flags = spin_lock_irqsave(&btf_list_lock);
	struct btf *btf = btf_list;
	struct file *f;
	int fd;

	while (btf && btf->id != id)
		btf = btf->next;
	if (btf && !__atomic_load_n(&btf->refcnt, __ATOMIC_ACQUIRE))
		btf = NULL;
	if (btf)
		__atomic_add_fetch(&btf->refcnt, 1, __ATOMIC_ACQ_REL);
	spin_unlock_irqrestore(&btf_list_lock, flags);
	if (!btf)
		return -ENOENT;
	if (!(f = alloc_file(&btf_fops, O_RDONLY))) {
		btf_put(btf);
		return -ENOMEM;
	}
	f->private_data = btf;
	fd = fd_install_from(f, 0, true);
	fput(f); /* the table holds it now, or nothing does and btf_release() puts btf */
	return fd;
}

u32 btf_next_id_after(u32 id)
{
	unsigned long flags = spin_lock_irqsave(&btf_list_lock);
	u32 next = 0;

	for (struct btf *btf = btf_list; btf; btf = btf->next)
		if (btf->id > id && (!next || btf->id < next) &&
		    __atomic_load_n(&btf->refcnt, __ATOMIC_ACQUIRE))
			next = btf->id;
	spin_unlock_irqrestore(&btf_list_lock, flags);
	return next;
}

/* Linux's btf_new_fd(): the blob copied in, checked, and an fd holding it. */
int btf_new_fd(const union bpf_attr *attr)
{
	struct bpf_verifier_log log = { .level = attr->btf_log_level, .size = attr->btf_log_size };
	struct btf *btf;
	struct file *f;
	int err, fd;

	if (attr->btf_size > BTF_MAX_SIZE)
		return -E2BIG;
	if ((attr->btf_log_buf || attr->btf_log_size || attr->btf_log_level) &&
	    (!attr->btf_log_buf || attr->btf_log_size < 128 || !attr->btf_log_level ||
	     attr->btf_log_size > (~0U >> 2)))
		return -EINVAL;
	if (!(btf = kzalloc(sizeof(*btf))))
		return -ENOMEM;
	btf->refcnt = 1;
	btf->data_size = attr->btf_size;
	err = -ENOMEM;
	if (!(btf->data = kmalloc(attr->btf_size + 1)))
		goto out;
	log.size = MIN(log.size, 1U << 20); /* a kernel copy, handed back at the end */
	if (log.level && !(log.buf = kzalloc(log.size)))
		goto out;
	err = -EFAULT;
	if (copy_from_user(btf->data, (const void __user *)(unsigned long)attr->btf,
			   attr->btf_size))
		goto out;
	err = btf_parse(btf, &log);
	if (log.level) {
		int lerr = btf_copy_log(&log, attr->btf_log_buf);
		err = err ?: lerr;
	}
	if (err)
		goto out;
	err = -ENOMEM;
	if (!(f = alloc_file(&btf_fops, O_RDWR)))
		goto out;
	btf_publish(btf);
	f->private_data = btf;
	fd = fd_install_from(f, 0, true);
	if (fd >= 0) { /* the fd's file owns btf now */
		fput(f);
		kfree(log.buf);
		return fd;
	}
	f->private_data = NULL;
	fput(f);
	err = fd;
out:
	kfree(log.buf);
	btf_put(btf);
	return err;
}

/* BPF_OBJ_GET_INFO_BY_FD of a BTF fd (Linux's btf_get_info_by_fd()): the id, the whole size, as
 * much of the blob as info->btf_size has room for, into info->btf, and the name ("vmlinux" for the
 * kernel's, "" for a loaded one) cut to info->name_len with -ENOSPC, the rest still filled in. */
int btf_get_info_by_fd(const struct btf *btf, struct bpf_btf_info *info)
{
	void __user *to = (void __user *)(unsigned long)info->btf;
	char __user *uname = (char __user *)(unsigned long)info->name;
	const char *name = btf->kernel_btf ? "vmlinux" : "";
	u32 uname_len = info->name_len, name_len = strlen(name);
	int err = 0;

	if (!uname && uname_len)
		return -EINVAL;
	if (to && copy_to_user(to, btf->data, MIN(info->btf_size, btf->data_size)))
		return -EFAULT;
	if (uname && uname_len >= name_len + 1) {
		if (copy_to_user(uname, name, name_len + 1))
			return -EFAULT;
	} else if (uname) {
		if (!uname_len || copy_to_user(uname, name, uname_len - 1) ||
		    put_user((char)0, uname + uname_len - 1))
			return uname_len ? -EFAULT : -EINVAL;
		err = -ENOSPC;
	}
	info->id = btf->id;
	info->btf_size = btf->data_size;
	info->name_len = name_len;
	info->kernel_btf = btf->kernel_btf;
	return err;
}
