/* Programs and maps as objects: the anonymous files that hold them, their references, and the
 * ids every loaded one has while it lives (Linux's kernel/bpf/syscall.c: bpf_map_new_fd(),
 * bpf_prog_put(), prog_idr and map_idr). */
#include "kernel/bpf/bpf.h"
#include "kernel/bpf/btf.h"
#include "kernel/bpf/core.h"
#include "kernel/bpf/syscall.h"
#include "kernel/fs/file.h"
#include "kernel/fs/poll.h"
#include "kernel/spinlock.h"
#include "kernel/uaccess.h"

static u32 next_prog_id, next_map_id;

/* ---- fds: a map or a program behind an anonymous file, as Linux's anon_inode_getfd() ---- */

static void bpf_map_release(struct file *f)
{
	bpf_map_put(f->private_data);
	f->private_data = NULL;
}

static void bpf_prog_release(struct file *f)
{
	bpf_prog_put(f->private_data);
	f->private_data = NULL;
}

/* Linux's bpf_map_mmap() and bpf_map_poll(): what the map type has, or what Linux says without. */
static int bpf_map_mmap(struct file *f, struct vm_area_struct *vma, unsigned long off)
{
	struct bpf_map *map = f->private_data;

	return map->ops->map_mmap ? map->ops->map_mmap(map, vma, off) : -ENOTSUPP;
}

static unsigned int bpf_map_poll(struct file *f, poll_table *pt)
{
	struct bpf_map *map = f->private_data;

	return map->ops->map_poll ? map->ops->map_poll(map, f, pt) : EPOLLERR;
}

const struct file_operations bpf_map_fops = {
	.release = bpf_map_release,
	.mmap = bpf_map_mmap,
	.poll = bpf_map_poll,
	.mode = 0600,
};
const struct file_operations bpf_prog_fops = { .release = bpf_prog_release, .mode = 0600 };

/* A new fd (O_CLOEXEC, as Linux's) holding obj; the fd's file owns the reference given. */
int bpf_anon_fd(const struct file_operations *fops, void *obj, unsigned int flags)
{
	struct file *f = alloc_file(fops, flags);
	int fd;

	if (!f)
		return -ENOMEM;
	f->private_data = obj;
	fd = fd_install_from(f, 0, true);
	if (fd < 0)
		f->private_data = NULL; /* the caller still holds obj */
	fput(f);
	return fd;
}

void bpf_map_inc(struct bpf_map *map)
{
	__atomic_add_fetch(&map->refcnt, 1, __ATOMIC_RELAXED);
}

/*
 * Live objects by id, as Linux's prog_idr and map_idr: a list each, under its lock. An object is
 * listed from its first fd until its last reference goes; the count drops to 0 only under the
 * lock, with the object unlinked at once, so a lookup under the lock never takes a reference on
 * one going away. Ids only grow: one is never given twice.
 */
static struct bpf_map *loaded_maps;
static DEFINE_SPINLOCK(map_idr_lock);

void bpf_map_alloc_id(struct bpf_map *map)
{
	unsigned long irq = spin_lock_irqsave(&map_idr_lock);

	map->id = ++next_map_id;
	map->next_loaded = loaded_maps;
	loaded_maps = map;
	spin_unlock_irqrestore(&map_idr_lock, irq);
}

void bpf_map_put(struct bpf_map *map)
{
	unsigned long irq;

	if (!map)
		return;
	irq = spin_lock_irqsave(&map_idr_lock);
	if (__atomic_sub_fetch(&map->refcnt, 1, __ATOMIC_ACQ_REL)) {
		spin_unlock_irqrestore(&map_idr_lock, irq);
		return;
	}
	for (struct bpf_map **p = &loaded_maps; *p; p = &(*p)->next_loaded)
		if (*p == map) {
			*p = map->next_loaded;
			break;
		}
	spin_unlock_irqrestore(&map_idr_lock, irq);
	map->ops->map_free(map);
}

static struct bpf_map *bpf_map_by_id(u32 id)
{
	unsigned long irq = spin_lock_irqsave(&map_idr_lock);
	struct bpf_map *map = loaded_maps;

	while (map && map->id != id)
		map = map->next_loaded;
	if (map)
		bpf_map_inc(map);
	spin_unlock_irqrestore(&map_idr_lock, irq);
	return map;
}

static u32 bpf_map_next_id(u32 id)
{
	unsigned long irq = spin_lock_irqsave(&map_idr_lock);
	u32 next = 0;

	for (struct bpf_map *m = loaded_maps; m; m = m->next_loaded)
		if (m->id > id && (!next || m->id < next))
			next = m->id;
	spin_unlock_irqrestore(&map_idr_lock, irq);
	return next;
}

struct bpf_map *bpf_map_get_mode(int ufd, unsigned int *acc)
{
	struct file *f = ufd < 0 ? NULL : fget(ufd);
	struct bpf_map *map = ERR_PTR(-EINVAL);

	if (!f)
		return ERR_PTR(-EBADF);
	if (f->f_op == &bpf_map_fops) {
		map = f->private_data;
		bpf_map_inc(map); /* the caller's reference outlives the file's, which goes now */
		if (acc)
			*acc = f->f_flags & O_ACCMODE;
	}
	fput(f);
	return map;
}

struct bpf_map *bpf_map_get(int ufd)
{
	return bpf_map_get_mode(ufd, NULL);
}

void bpf_prog_inc(struct bpf_prog *prog)
{
	__atomic_add_fetch(&prog->refcnt, 1, __ATOMIC_RELAXED);
}

static struct bpf_prog *loaded_progs;
static DEFINE_SPINLOCK(loaded_lock); /* Linux's prog_idr_lock */

void bpf_prog_alloc_id(struct bpf_prog *prog)
{
	unsigned long irq = spin_lock_irqsave(&loaded_lock);

	prog->id = ++next_prog_id;
	prog->next_loaded = loaded_progs;
	loaded_progs = prog;
	spin_unlock_irqrestore(&loaded_lock, irq);
}

/* The last reference: off the list first, so bpf_prog_by_id() never finds it going. */
void bpf_prog_put(struct bpf_prog *prog)
{
	unsigned long irq;

	if (!prog)
		return;
	irq = spin_lock_irqsave(&loaded_lock);
	if (__atomic_sub_fetch(&prog->refcnt, 1, __ATOMIC_ACQ_REL)) {
		spin_unlock_irqrestore(&loaded_lock, irq);
		return;
	}
	for (struct bpf_prog **p = &loaded_progs; *p; p = &(*p)->next_loaded)
		if (*p == prog) {
			*p = prog->next_loaded;
			break;
		}
	spin_unlock_irqrestore(&loaded_lock, irq);
	if (prog->btf)
		btf_put(prog->btf);
	bpf_prog_free(prog);
}

struct bpf_prog *bpf_prog_by_id(u32 id)
{
	unsigned long irq = spin_lock_irqsave(&loaded_lock);
	struct bpf_prog *prog = loaded_progs;

	while (prog && prog->id != id)
		prog = prog->next_loaded;
	if (prog)
		bpf_prog_inc(prog);
	spin_unlock_irqrestore(&loaded_lock, irq);
	return prog;
}

u32 bpf_prog_next_id(u32 id)
{
	unsigned long irq = spin_lock_irqsave(&loaded_lock);
	u32 next = 0;

	for (struct bpf_prog *p = loaded_progs; p; p = p->next_loaded)
		if (p->id > id && (!next || p->id < next))
			next = p->id;
	spin_unlock_irqrestore(&loaded_lock, irq);
	return next;
}

int bpf_prog_new_fd(struct bpf_prog *prog)
{
	return bpf_anon_fd(&bpf_prog_fops, prog, O_RDWR);
}

struct bpf_prog *bpf_prog_get(int ufd)
{
	struct file *f = ufd < 0 ? NULL : fget(ufd);
	struct bpf_prog *prog = ERR_PTR(-EBADF);

	if (!f)
		return prog;
	if (f->f_op == &bpf_prog_fops) {
		prog = f->private_data;
		bpf_prog_inc(prog);
	}
	fput(f);
	return prog;
}

struct bpf_prog *bpf_prog_get_type(int ufd, enum bpf_prog_type type)
{
	struct bpf_prog *prog = bpf_prog_get(ufd);

	if (!IS_ERR(prog) && prog->type != type) {
		bpf_prog_put(prog);
		return ERR_PTR(-EINVAL);
	}
	return prog;
}

/* ---- the id commands: what bpftool walks (Linux's bpf_obj_get_next_id() and kin) ---- */

/* BPF_{PROG,MAP,BTF}_GET_NEXT_ID: the first live id after start_id, in attr->next_id. */
int bpf_obj_get_next_id(const union bpf_attr *attr, union bpf_attr __user *uattr, int cmd)
{
	u32 next;

	if (CHECK_ATTR(attr, next_id) || attr->start_id >= 0x7fffffff)
		return -EINVAL;
	if (!bpf_capable()) /* Linux: CAP_SYS_ADMIN */
		return -EPERM;
	if (cmd == BPF_PROG_GET_NEXT_ID)
		next = bpf_prog_next_id(attr->start_id);
	else if (cmd == BPF_MAP_GET_NEXT_ID)
		next = bpf_map_next_id(attr->start_id);
	else
		next = btf_next_id_after(attr->start_id);
	if (!next)
		return -ENOENT;
	return put_user(next, &uattr->next_id) ? -EFAULT : 0;
}

/* BPF_PROG_GET_FD_BY_ID: a new fd on a live program (the attr ends at prog_id). */
int bpf_prog_get_fd_by_id(const union bpf_attr *attr)
{
	struct bpf_prog *prog;
	int fd;

	if (CHECK_ATTR(attr, prog_id))
		return -EINVAL;
	if (!bpf_capable())
		return -EPERM;
	prog = attr->prog_id ? bpf_prog_by_id(attr->prog_id) : NULL;
	if (!prog)
		return -ENOENT;
	fd = bpf_prog_new_fd(prog);
	if (fd < 0)
		bpf_prog_put(prog);
	return fd;
}

/* BPF_MAP_GET_FD_BY_ID: open_flags BPF_F_RDONLY or BPF_F_WRONLY make an fd that may only read
 * or only write the map's elements (Linux's bpf_get_file_flag()); both at once is EINVAL. */
int bpf_map_get_fd_by_id(const union bpf_attr *attr)
{
	unsigned int flags = O_RDWR;
	struct bpf_map *map;
	int fd;

	if (CHECK_ATTR(attr, open_flags) || (attr->open_flags & ~(BPF_F_RDONLY | BPF_F_WRONLY)))
		return -EINVAL;
	if (!bpf_capable())
		return -EPERM;
	if (attr->open_flags == (BPF_F_RDONLY | BPF_F_WRONLY))
		return -EINVAL;
	if (attr->open_flags & BPF_F_RDONLY)
		flags = O_RDONLY;
	else if (attr->open_flags & BPF_F_WRONLY)
		flags = O_WRONLY;
	map = attr->map_id ? bpf_map_by_id(attr->map_id) : NULL;
	if (!map)
		return -ENOENT;
	fd = bpf_anon_fd(&bpf_map_fops, map, flags);
	if (fd < 0)
		bpf_map_put(map);
	return fd;
}
