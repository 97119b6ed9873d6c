/* bpf(2): the attr, the command switch, loading a program, privilege and the sysctls (Linux's
 * kernel/bpf/syscall.c; the map commands are in map_syscall.c, fds and ids in objs.c). */
#include "kernel/events/perf_event.h"
#include "kernel/bpf/bpf.h"
#include "kernel/bpf/btf.h"
#include "kernel/bpf/core.h"
#include "kernel/bpf/maps.h"
#include "kernel/bpf/syscall.h"
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

bool bpf_capable(void)
{
	return capable_root();
}

/* ---- the attr: Linux's rules for a struct that grows ---- */

bool bpf_attr_tail_nonzero(const union bpf_attr *attr, size_t used)
{
	const u8 *p = (const u8 *)attr;

	for (size_t i = used; i < sizeof(*attr); i++)
		if (p[i])
			return true;
	return false;
}

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

void *memdup_user(const void __user *p, size_t n)
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

/* ---- programs ---- */

/* Linux's license_is_gpl_compatible(): the module licenses taken as GPL. */
static bool license_is_gpl_compatible(const char *license)
{
	static const char *const gpl[] = {
		"GPL",		"GPL v2",	"GPL and additional rights",
		"Dual BSD/GPL", "Dual MIT/GPL", "Dual MPL/GPL"
	};

	for (size_t i = 0; i < ARRAY_SIZE(gpl); i++)
		if (!strcmp(license, gpl[i]))
			return true;
	return false;
}

static int bpf_prog_load(union bpf_attr *attr)
{
	struct bpf_verifier_log log = { .level = attr->log_level, .size = attr->log_size };
	struct btf *btf = NULL;
	struct bpf_prog *prog;
	char license[128] = "";
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
	/* a NULL license reads as none (Linux: EFAULT), which our older callers rely on */
	if (attr->license &&
	    strncpy_from_user(license, u64_to_user_ptr(attr->license), sizeof(license) - 1) < 0)
		return -EFAULT;
	/* Linux's check_btf_info(): function and line info come with the BTF they point into, which
	 * the program then holds (its info's btf_id) */
	if (attr->func_info_cnt || attr->line_info_cnt) {
		btf = btf_get_by_fd(attr->prog_btf_fd);
		if (IS_ERR(btf))
			return PTR_ERR(btf);
	}
	prog = bpf_prog_alloc(attr->insn_cnt);
	err = -ENOMEM;
	if (!prog)
		goto put_btf;
	prog->gpl_compatible = license_is_gpl_compatible(license);
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
	prog->btf = btf;
	bpf_prog_alloc_id(prog);
	fd = bpf_anon_fd(&bpf_prog_fops, prog, O_RDWR);
	if (fd < 0)
		bpf_prog_put(prog);
	return fd;
free_prog:
	bpf_prog_free(prog);
put_btf:
	if (btf)
		btf_put(btf);
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
	fd = bpf_anon_fd(&bpf_link_fops, link, O_RDWR);
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
	case BPF_PROG_GET_NEXT_ID:
	case BPF_MAP_GET_NEXT_ID:
	case BPF_BTF_GET_NEXT_ID:
		return bpf_obj_get_next_id(&attr, uattr, cmd);
	case BPF_PROG_GET_FD_BY_ID:
		return bpf_prog_get_fd_by_id(&attr);
	case BPF_MAP_GET_FD_BY_ID:
		return bpf_map_get_fd_by_id(&attr);
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
