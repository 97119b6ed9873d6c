/* bpf(2): the commands, map and program fds, privilege (Linux's kernel/bpf/syscall.c). */
#include "kernel/events/perf_event.h"
#include "kernel/bpf/bpf.h"
#include "kernel/bpf/btf.h"
#include "kernel/bpf/core.h"
#include "kernel/bpf/maps.h"
#include "kernel/bpf/trampoline.h"
#include "kernel/cred.h"
#include "kernel/fs/file.h"
#include "kernel/fs/poll.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/string.h"

/* Linux 6.1 with CONFIG_BPF_UNPRIV_DEFAULT_OFF=y (Debian's): 2, off for the unprivileged and
 * settable back to 0 only by a reboot; 1 is off for good. */
unsigned long sysctl_unprivileged_bpf_disabled = 2;
unsigned long bpf_jit_enable = 1;
static u32 next_prog_id, next_map_id;

bool bpf_capable(void)
{
	return capable_root();
}

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
int anon_fd(const struct file_operations *fops, void *obj)
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

static void prog_list_add(struct bpf_prog *prog)
{
	unsigned long irq = spin_lock_irqsave(&loaded_lock);

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
	return anon_fd(&bpf_prog_fops, prog);
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

/* ---- the attr: Linux's rules for a struct that grows ---- */

/* Bytes of attr past what a command reads must be zero (Linux's CHECK_ATTR): -EINVAL. */
static bool attr_tail_nonzero(const union bpf_attr *attr, size_t used)
{
	const u8 *p = (const u8 *)attr;

	for (size_t i = used; i < sizeof(*attr); i++)
		if (p[i])
			return true;
	return false;
}
#define CHECK_ATTR(attr, last) attr_tail_nonzero(attr, offsetofend(union bpf_attr, last))
#define offsetofend(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))

/* A size larger than ours is accepted only if the bytes we do not know are zero (E2BIG). */
static int copy_attr(union bpf_attr *attr, const void __user *uattr, unsigned int size)
{
	u8 b;

	memset(attr, 0, sizeof(*attr));
	if (size > 4096) /* Linux: PAGE_SIZE */
		return -E2BIG;
	for (unsigned int i = sizeof(*attr); i < size; i++) {
		if (copy_from_user(&b, (const u8 __user *)uattr + i, 1))
			return -EFAULT;
		if (b)
			return -E2BIG;
	}
	if (copy_from_user(attr, uattr, MIN(size, (unsigned int)sizeof(*attr))))
		return -EFAULT;
	return 0;
}

static void *memdup_user(const void __user *p, size_t n)
{
	void *k = kmalloc(n ? n : 1);

	if (!k)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(k, p, n)) {
		kfree(k);
		return ERR_PTR(-EFAULT);
	}
	return k;
}

static const void __user *u64_to_user_ptr(u64 v)
{
	return (const void __user *)(unsigned long)v;
}

/* ---- maps ---- */

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

static int map_create(union bpf_attr *attr)
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
	map->id = __atomic_add_fetch(&next_map_id, 1, __ATOMIC_RELAXED);
	if (attr->btf_value_type_id) {
		map->btf_id = btf_id;
		map->btf_key_type_id = attr->btf_key_type_id;
		map->btf_value_type_id = attr->btf_value_type_id;
	}
	memcpy(map->name, attr->map_name, BPF_OBJ_NAME_LEN);
	fd = anon_fd(&bpf_map_fops, map);
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

static int map_elem_cmd(int cmd, union bpf_attr *attr)
{
	struct bpf_map *map;
	void *key = NULL, *value = NULL;
	u32 vsize;
	int err;

	if (CHECK_ATTR(attr, flags))
		return -EINVAL;
	map = bpf_map_get(attr->map_fd);
	if (IS_ERR(map))
		return PTR_ERR(map);
	vsize = map_value_size_user(map);
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

/* ---- programs ---- */

static int bpf_prog_load(union bpf_attr *attr)
{
	struct bpf_verifier_log log = { .level = attr->log_level, .size = attr->log_size };
	struct bpf_prog *prog;
	int err, fd;
	u32 max = bpf_capable() ? BPF_COMPLEXITY_LIMIT_INSNS : BPF_MAXINSNS;

	if (CHECK_ATTR(attr, core_relo_rec_size))
		return -EINVAL;
	if (!bpf_verifier_ops_of(attr->prog_type))
		return -EINVAL;
	if (!bpf_capable()) /* tracing programs need CAP_PERFMON and CAP_BPF on Linux */
		return -EPERM;
	if (attr->prog_flags || attr->prog_name[BPF_OBJ_NAME_LEN - 1])
		return -EINVAL;
	/* Linux: a log needs a buffer and a size of at least 128, a level of at most 7 */
	if ((attr->log_buf || attr->log_size || attr->log_level) &&
	    (!attr->log_buf || attr->log_size < 128 || !attr->log_level || attr->log_level > 7 ||
	     attr->log_size > (~0U >> 2)))
		return -EINVAL;
	if (!attr->insn_cnt || attr->insn_cnt > max)
		return -E2BIG;
	/* Linux's check_btf_info(): function and line info come with the BTF they point into */
	if (attr->func_info_cnt || attr->line_info_cnt) {
		struct btf *btf = btf_get_by_fd(attr->prog_btf_fd);
		if (IS_ERR(btf))
			return PTR_ERR(btf);
		btf_put(btf);
	}
	prog = bpf_prog_alloc(attr->insn_cnt);
	if (!prog)
		return -ENOMEM;
	err = -EFAULT;
	if (copy_from_user(prog->insnsi, u64_to_user_ptr(attr->insns),
			   attr->insn_cnt * sizeof(struct bpf_insn)))
		goto free_prog;
	prog->type = attr->prog_type;
	prog->expected_attach_type = attr->expected_attach_type;
	prog->refcnt = 1;
	prog->uid = current->uid;
	prog->load_time = ktime_get_ns();
	memcpy(prog->name, attr->prog_name, BPF_OBJ_NAME_LEN);
	if (log.level) {
		log.size = MIN(log.size, 1U << 20); /* a kernel copy, handed back at the end */
		log.buf = kzalloc(log.size);
		err = -ENOMEM;
		if (!log.buf)
			goto free_prog;
	}
	err = prog->type == BPF_PROG_TYPE_TRACING ? bpf_check_attach_target(prog, attr, &log) : 0;
	err = err ?: bpf_check(prog, &log, bpf_capable());
	if (log.level && copy_to_user((void __user *)u64_to_user_ptr(attr->log_buf), log.buf,
				      MIN(log.len + 1, log.size)))
		err = err ? err : -EFAULT;
	if (!err && log.truncated)
		err = -ENOSPC;
	kfree(log.buf);
	if (err)
		goto free_prog;
	prog->bpf_func = __bpf_prog_run;
	if (bpf_jit_enable)
		bpf_int_jit_compile(prog);
	/* Linux's bpf_check_tail_call(): the prog arrays it uses take its type and runtime */
	err = -EINVAL;
	for (u32 i = 0; i < prog->used_map_cnt; i++)
		if (!bpf_prog_map_compatible(prog->used_maps[i], prog))
			goto free_prog;
	prog->id = __atomic_add_fetch(&next_prog_id, 1, __ATOMIC_RELAXED);
	prog_list_add(prog);
	fd = anon_fd(&bpf_prog_fops, prog);
	if (fd < 0)
		bpf_prog_put(prog);
	return fd;
free_prog:
	bpf_prog_free(prog);
	return err;
}

/* ---- BPF_RAW_TRACEPOINT_OPEN: a program on a tracepoint's arguments, held by a link fd ---- */

static void bpf_raw_tp_release(struct file *f)
{
	struct bpf_raw_tp_link *link = f->private_data;

	if (!link)
		return;
	bpf_raw_tp_unregister(link);
	bpf_prog_put(link->prog);
	kfree(link);
	f->private_data = NULL;
}

static const struct file_operations bpf_link_fops = { .release = bpf_raw_tp_release, .mode = 0600 };

/* prog (its reference taken over) on the tracepoint name: a link fd, or -errno. */
int bpf_raw_tp_link_open(struct bpf_prog *prog, const char *name)
{
	struct bpf_raw_tp_link *link = kzalloc(sizeof(*link));
	int err = -ENOMEM, fd;

	if (!link)
		goto put_prog;
	link->prog = prog;
	err = bpf_raw_tp_register(link, name);
	if (err)
		goto free_link;
	fd = anon_fd(&bpf_link_fops, link);
	if (fd >= 0)
		return fd;
	bpf_raw_tp_unregister(link);
	err = fd;
free_link:
	kfree(link);
put_prog:
	bpf_prog_put(prog);
	return err;
}

static int raw_tracepoint_open(union bpf_attr *attr)
{
	struct bpf_prog *prog;
	char name[128];
	long n;

	if (CHECK_ATTR(attr, raw_tracepoint.prog_fd))
		return -EINVAL;
	if (!attr->raw_tracepoint.name) /* libbpf's fentry, fexit and tp_btf attach */
		return bpf_tracing_raw_tp_open(attr->raw_tracepoint.prog_fd);
	n = strncpy_from_user(name, u64_to_user_ptr(attr->raw_tracepoint.name), sizeof(name));
	if (n < 0)
		return n;
	if (n == sizeof(name))
		return -E2BIG;
	prog = bpf_prog_get_type(attr->raw_tracepoint.prog_fd, BPF_PROG_TYPE_RAW_TRACEPOINT);
	if (IS_ERR(prog))
		return PTR_ERR(prog);
	return bpf_raw_tp_link_open(prog, name);
}

/* Linux's bpf_obj_get_next_id() for BTF: the next id written back in attr->next_id. */
static int btf_get_next_id(const union bpf_attr *attr, union bpf_attr __user *uattr)
{
	u32 next;

	if (CHECK_ATTR(attr, next_id) || attr->start_id >= 0x7fffffff)
		return -EINVAL;
	if (!bpf_capable())
		return -EPERM;
	if (!(next = btf_next_id_after(attr->start_id)))
		return -ENOENT;
	return put_user(next, &uattr->next_id) ? -EFAULT : 0;
}

SYSCALL_DEFINE3(bpf, int, cmd, union bpf_attr __user *, uattr, unsigned int, size)
{
	union bpf_attr attr;
	int err;

	if (sysctl_unprivileged_bpf_disabled && !bpf_capable())
		return -EPERM;
	err = copy_attr(&attr, uattr, size);
	if (err)
		return err;
	switch (cmd) {
	case BPF_MAP_CREATE:
		return map_create(&attr);
	case BPF_MAP_LOOKUP_ELEM:
	case BPF_MAP_UPDATE_ELEM:
	case BPF_MAP_DELETE_ELEM:
	case BPF_MAP_GET_NEXT_KEY:
		return map_elem_cmd(cmd, &attr);
	case BPF_PROG_LOAD:
		return bpf_prog_load(&attr);
	case BPF_OBJ_GET_INFO_BY_FD:
		if (CHECK_ATTR(&attr, info.info))
			return -EINVAL;
		return bpf_obj_get_info_by_fd(&attr, uattr);
	case BPF_RAW_TRACEPOINT_OPEN:
		return raw_tracepoint_open(&attr);
	case BPF_BTF_LOAD:
		if (CHECK_ATTR(&attr, btf_log_level))
			return -EINVAL;
		return bpf_capable() ? btf_new_fd(&attr) : -EPERM;
	case BPF_BTF_GET_FD_BY_ID:
		if (CHECK_ATTR(&attr, btf_id))
			return -EINVAL;
		return bpf_capable() ? btf_get_fd_by_id(attr.btf_id) : -EPERM;
	case BPF_BTF_GET_NEXT_ID:
		return btf_get_next_id(&attr, uattr);
	case BPF_LINK_CREATE: /* perf events' links: kernel/events/bpf_perf.c */
		if (bpf_tracing_attach_type(attr.link_create.attach_type))
			return bpf_tracing_link_create(&attr);
		return bpf_perf_link_attach(&attr);
	default: /* what we do not have reads to libbpf's probes as a kernel without it */
		return -EINVAL;
	}
}

/* Linux's bpf_unpriv_handler(): 1 is for good (only a reboot clears it); 0 and 2 switch freely. */
static unsigned long unpriv_get(void *data)
{
	return READ_ONCE(sysctl_unprivileged_bpf_disabled);
}

static int unpriv_set(void *data, unsigned long v)
{
	if (READ_ONCE(sysctl_unprivileged_bpf_disabled) == 1 && v != 1)
		return -EPERM;
	WRITE_ONCE(sysctl_unprivileged_bpf_disabled, v);
	return 0;
}

static const struct tracefs_ulong unpriv_sysctl = { .max = 2,
						    .get = unpriv_get,
						    .set = unpriv_set };
static const struct tracefs_ulong jit_sysctl = { .value = &bpf_jit_enable, .max = 2 };
static const struct tracefs_file bpf_files[] = {
	TRACEFS_ULONG("/proc/sys/kernel/unprivileged_bpf_disabled", &unpriv_sysctl),
	TRACEFS_ULONG("/proc/sys/net/core/bpf_jit_enable", &jit_sysctl),
};

void bpf_init(void)
{
	if (tracefs_create_files(NULL, bpf_files, ARRAY_SIZE(bpf_files)))
		pr_err("bpf: cannot make the sysctl files\n");
	btf_vmlinux_init();
}
