/* Programs and maps as objects: the anonymous files that hold them, their references, and the
 * ids every loaded one has while it lives (Linux's kernel/bpf/syscall.c: bpf_map_new_fd(),
 * bpf_prog_put(), prog_idr and map_idr). */
#include "kernel/bpf/bpf.h"
#include "kernel/bpf/core.h"
#include "kernel/bpf/syscall.h"
#include "kernel/fs/file.h"
#include "kernel/fs/poll.h"
#include "kernel/spinlock.h"

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
int bpf_anon_fd(const struct file_operations *fops, void *obj)
{
	struct file *f = alloc_file(fops, O_RDWR);
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

void bpf_map_alloc_id(struct bpf_map *map)
{
	map->id = __atomic_add_fetch(&next_map_id, 1, __ATOMIC_RELAXED);
}

void bpf_map_put(struct bpf_map *map)
{
	if (map && !__atomic_sub_fetch(&map->refcnt, 1, __ATOMIC_ACQ_REL))
		map->ops->map_free(map);
}

struct bpf_map *bpf_map_get(int ufd)
{
	struct file *f = ufd < 0 ? NULL : fget(ufd);
	struct bpf_map *map = ERR_PTR(-EINVAL);

	if (!f)
		return ERR_PTR(-EBADF);
	if (f->f_op == &bpf_map_fops) {
		map = f->private_data;
		bpf_map_inc(map); /* the caller's reference outlives the file's, which goes now */
	}
	fput(f);
	return map;
}

void bpf_prog_inc(struct bpf_prog *prog)
{
	__atomic_add_fetch(&prog->refcnt, 1, __ATOMIC_RELAXED);
}

static struct bpf_prog *loaded_progs;
static DEFINE_SPINLOCK(loaded_lock);

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
	return bpf_anon_fd(&bpf_prog_fops, prog);
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
