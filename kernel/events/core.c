/* perf_event_open(2): the attr checked as Linux checks it, the event made and hooked, and its fd.
 *
 *   perf_event_open(&attr, pid, cpu, group_fd, flags)
 *     perf_copy_attr()         the size handshake: E2BIG with our size written back
 *     perf_event_permission()  perf_event_paranoid against what the attr asks for
 *     perf_event_alloc()       the event; perf_init_event() hands it to its PMU:
 *                                software  -> kernel/events/sw_event.c (lists the hooks walk)
 *                                tracepoint, kprobe, uprobe -> kernel/trace/trace_event_perf.c
 *     an fd whose read(), ioctl() and mmap() are perf_fops
 *
 * Linux: kernel/events/core.c (perf_copy_attr(), perf_event_open(), perf_read(), perf_ioctl()).
 */
#include "kernel/events/perf_event.h"
#include "kernel/cred.h"
#include "kernel/fs/file.h"
#include "kernel/fs/poll.h"
#include "kernel/fs/tracefs.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/tracepoint.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

/*
 * Linux's default, 2: a user may count and sample its own tasks in user space only. 1 adds the
 * kernel, 0 CPU-wide events, -1 raw tracepoint records; Debian's 3 refuses a user everything.
 */
int sysctl_perf_event_paranoid = 2;
#define PERF_MAX_SAMPLE_RATE 100000 /* Linux's perf_event_max_sample_rate before it adapts */

static DEFINE_MUTEX(perf_mutex); /* the hook lists and every event's state changes */
static u64 perf_next_id = 1;

/* --- the attr ------------------------------------------------------------------------------ */

/* Linux's copy_struct_from_user(): a longer attr is accepted only if its tail is all zeros. */
static int perf_copy_attr(struct perf_event_attr __user *uattr, struct perf_event_attr *attr)
{
	u32 size;
	u8 tail[64];

	memset(attr, 0, sizeof(*attr));
	if (get_user(size, &uattr->size))
		return -EFAULT;
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > PAGE_SIZE)
		goto err_size;
	for (u32 off = sizeof(*attr); off < size; off += sizeof(tail)) {
		u32 n = MIN(sizeof(tail), size - off);
		if (copy_from_user(tail, (const u8 __user *)uattr + off, n))
			return -EFAULT;
		for (u32 i = 0; i < n; i++)
			if (tail[i])
				goto err_size;
	}
	if (copy_from_user(attr, uattr, MIN(size, sizeof(*attr))))
		return -EFAULT;
	attr->size = size;
	if (attr->__reserved_1 || attr->__reserved_2 || attr->__reserved_3)
		return -EINVAL;
	if (attr->sample_type & ~(PERF_SAMPLE_MAX - 1))
		return -EINVAL;
	if (attr->read_format & ~(PERF_FORMAT_MAX - 1))
		return -EINVAL;
	return 0;
err_size:
	put_user((u32)sizeof(*attr), &uattr->size);
	return -E2BIG;
}

static bool perfmon_capable(void)
{
	return capable_root();
}

/* Linux's perf_allow_kernel(), perf_allow_cpu(), perf_allow_tracepoint() and Debian's level 3. */
static int perf_event_permission(const struct perf_event_attr *attr, int pid)
{
	int paranoid = READ_ONCE(sysctl_perf_event_paranoid);

	if (perfmon_capable())
		return 0;
	if (paranoid > 2)
		return -EACCES;
	if (!attr->exclude_kernel && paranoid > 1)
		return -EACCES;
	if (pid == -1 && paranoid > 0)
		return -EACCES;
	if (attr->type == PERF_TYPE_TRACEPOINT && (attr->sample_type & PERF_SAMPLE_RAW) &&
	    paranoid > -1)
		return -EPERM;
	return 0;
}

/* Linux's ptrace_may_access(PTRACE_MODE_READ_REALCREDS): another user's task is not ours to watch. */
static bool perf_may_watch(const struct task *t)
{
	const struct task *me = current;

	if (!t || perfmon_capable() || t == me)
		return true;
	return t->uid == me->uid && t->euid == me->uid && t->suid == me->uid;
}

/* --- the event ------------------------------------------------------------------------------ */

bool perf_event_matches(const struct perf_event *e)
{
	const struct task *t = current;

	if (READ_ONCE(e->state) != PERF_EVENT_STATE_ACTIVE)
		return false;
	if (e->cpu >= 0 && e->cpu != smp_processor_id())
		return false;
	return e->pid < 0 || (t && t->pid == e->pid);
}

void perf_event_count(struct perf_event *e, u64 nr, struct perf_sample_data *d)
{
	__atomic_add_fetch(&e->count, nr, __ATOMIC_RELAXED);
	if (!e->sample_period)
		return;
	if (e->period_left > nr) {
		e->period_left -= nr;
		return;
	}
	d->period = e->sample_period;
	e->period_left = e->sample_period;
	perf_output_sample(e, d);
}

void perf_event_get(struct perf_event *e)
{
	__atomic_add_fetch(&e->refcount, 1, __ATOMIC_ACQ_REL);
}

void perf_event_put(struct perf_event *e)
{
	if (__atomic_sub_fetch(&e->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	irq_work_sync(&e->pending_irq); /* a last sample's wake-up may still be queued */
	if (e->rb)
		perf_buffer_put(e->rb);
	kfree(e);
}

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* The PMU's part: software events join a hook list, the others a trace event. */
static int perf_init_event(struct perf_event *e)
{
	switch (e->attr.type) {
	case PERF_TYPE_SOFTWARE:
		if (e->attr.config >= PERF_COUNT_SW_MAX)
			return -ENOENT;
		perf_sw_add(e);
		return 0;
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_KPROBE:
	case PERF_TYPE_UPROBE:
		return perf_trace_init(e);
	default:
		return -ENOENT; /* no such PMU: hardware counters do not exist under TCG */
	}
}

static void perf_event_unhook(struct perf_event *e)
{
	if (e->attr.type == PERF_TYPE_SOFTWARE)
		perf_sw_del(e);
	else
		perf_trace_destroy(e);
}

static void perf_event_enable_one(struct perf_event *e)
{
	if (e->state == PERF_EVENT_STATE_ACTIVE)
		return;
	e->tstamp = ktime_get_ns();
	e->period_left = e->sample_period;
	WRITE_ONCE(e->state, PERF_EVENT_STATE_ACTIVE);
	if (is_clock(&e->attr))
		perf_sw_clock_start(e);
}

static void perf_event_disable_one(struct perf_event *e)
{
	if (e->state != PERF_EVENT_STATE_ACTIVE)
		return;
	if (is_clock(&e->attr))
		perf_sw_clock_stop(e);
	WRITE_ONCE(e->state, PERF_EVENT_STATE_OFF);
	e->total_time_enabled += ktime_get_ns() - e->tstamp;
}

/* The event, or with PERF_IOC_FLAG_GROUP its whole group, as Linux's perf_event_for_each(). */
static void perf_for_each(struct perf_event *e, bool group, void (*fn)(struct perf_event *e))
{
	struct perf_event *leader = group ? e->group_leader : e;

	fn(leader);
	if (group || leader == e->group_leader)
		for (struct perf_event *s = leader->sibling_next; s; s = s->sibling_next)
			if (group || s->attr.disabled == leader->attr.disabled)
				fn(s);
}

static void perf_event_reset(struct perf_event *e)
{
	if (is_clock(&e->attr))
		perf_sw_clock_stop(e);
	WRITE_ONCE(e->count, 0);
	e->period_left = e->sample_period;
	if (is_clock(&e->attr) && e->state == PERF_EVENT_STATE_ACTIVE)
		perf_sw_clock_start(e);
}

static u64 perf_event_read_value(struct perf_event *e, u64 *enabled)
{
	u64 now = ktime_get_ns();

	*enabled = e->total_time_enabled;
	if (e->state == PERF_EVENT_STATE_ACTIVE) {
		*enabled += now - e->tstamp;
		if (is_clock(&e->attr)) { /* the time since the clock last stopped counts too */
			perf_sw_clock_stop(e);
			perf_sw_clock_start(e);
		}
	}
	return READ_ONCE(e->count);
}

/* --- the fd --------------------------------------------------------------------------------- */

/* A member's part of the read: its value, then [id], [lost]. */
static size_t perf_read_member(struct perf_event *e, u64 fmt, u64 *v)
{
	size_t n = 0;
	u64 enabled;

	v[n++] = perf_event_read_value(e, &enabled);
	if (fmt & PERF_FORMAT_ID)
		v[n++] = e->id;
	if (fmt & PERF_FORMAT_LOST)
		v[n++] = e->lost;
	return n;
}

/* Linux's read_format layout: value, [enabled], [running], [id], [lost]; or with
 * PERF_FORMAT_GROUP: nr, [enabled], [running], then the member's part for each member. */
static ssize_t perf_read(struct file *f, char __user *buf, size_t count, s64 *pos)
{
	struct perf_event *e = f->private_data, *m;
	u64 fmt = e->attr.read_format, v[3 + 3 * 32], enabled, nr = 0;
	size_t n = 0;

	mutex_lock(&perf_mutex);
	if (fmt & PERF_FORMAT_GROUP) {
		e = e->group_leader;
		v[n++] = 0;
		perf_event_read_value(e, &enabled);
	} else {
		v[n++] = perf_event_read_value(e, &enabled);
	}
	if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
		v[n++] = enabled;
	if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
		v[n++] = enabled; /* never multiplexed: running is enabled */
	if (fmt & PERF_FORMAT_GROUP) {
		for (m = e; m && nr < 32; m = m->sibling_next, nr++)
			n += perf_read_member(m, fmt, v + n);
		v[0] = nr;
	} else {
		if (fmt & PERF_FORMAT_ID)
			v[n++] = e->id;
		if (fmt & PERF_FORMAT_LOST)
			v[n++] = e->lost;
	}
	mutex_unlock(&perf_mutex);
	if (count < n * sizeof(u64))
		return -ENOSPC;
	return copy_to_user(buf, v, n * sizeof(u64)) ? -EFAULT : (ssize_t)(n * sizeof(u64));
}

static long perf_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct perf_event *e = f->private_data;
	long ret = 0;
	u64 v;

	mutex_lock(&perf_mutex);
	switch (cmd) {
	case PERF_EVENT_IOC_ENABLE:
		perf_for_each(e, arg & PERF_IOC_FLAG_GROUP, perf_event_enable_one);
		break;
	case PERF_EVENT_IOC_DISABLE:
		perf_for_each(e, arg & PERF_IOC_FLAG_GROUP, perf_event_disable_one);
		break;
	case PERF_EVENT_IOC_RESET:
		perf_for_each(e, arg & PERF_IOC_FLAG_GROUP, perf_event_reset);
		break;
	case PERF_EVENT_IOC_ID:
		ret = put_user(e->id, (u64 __user *)arg) ? -EFAULT : 0;
		break;
	case PERF_EVENT_IOC_PERIOD:
		if (get_user(v, (u64 __user *)arg))
			ret = -EFAULT;
		else if (!e->sample_period || !v || (v & (1ULL << 63)))
			ret = -EINVAL;
		else
			e->sample_period = e->period_left = v;
		break;
	case PERF_EVENT_IOC_SET_FILTER:
		ret = perf_trace_set_filter(e, (const char __user *)arg);
		break;
	case PERF_EVENT_IOC_SET_BPF:
		ret = perf_event_set_bpf_prog(e, (int)arg);
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&perf_mutex);
	return ret;
}

static int perf_fop_mmap(struct file *f, struct vm_area_struct *vma, unsigned long off)
{
	int err;

	if (off || !(vma->vm_flags & VM_SHARED))
		return -EINVAL; /* Linux's perf_mmap(): the ring is shared with the kernel or nothing */
	mutex_lock(&perf_mutex);
	err = perf_mmap(f, f->private_data, vma->vm_start, vma->vm_end - vma->vm_start);
	mutex_unlock(&perf_mutex);
	return err;
}

/* Linux's perf_poll(): an event without a ring has nothing to wait for (EPOLLHUP); with one, it
 * is readable while records wait unread (Linux: once a wake-up was posted). Its queue is woken at
 * wakeup_events samples or the watermark (perf_output_sample()). */
static unsigned int perf_poll(struct file *f, poll_table *pt)
{
	struct perf_event *e = f->private_data;
	struct perf_buffer *rb;

	poll_wait(f, &e->waitq, pt);
	rb = READ_ONCE(e->rb);
	if (!rb)
		return EPOLLHUP;
	return perf_buffer_has_data(rb) ? EPOLLIN | EPOLLRDNORM : 0;
}

/* The last close: off every hook, then once no CPU can be inside one, gone. */
static void perf_release(struct file *f)
{
	struct perf_event *e = f->private_data, **pp;

	f->private_data = NULL; /* fput() frees private_data: ours goes by its refcount */
	mutex_lock(&perf_mutex);
	perf_event_disable_one(e);
	perf_event_unhook(e);
	if (e->group_leader != e) {
		for (pp = &e->group_leader->sibling_next; *pp && *pp != e;
		     pp = &(*pp)->sibling_next)
			;
		if (*pp)
			*pp = e->sibling_next;
		perf_event_put(e->group_leader);
	} else {
		/* The members stay open as events of their own, as Linux leaves them. */
		for (struct perf_event *s = e->sibling_next, *n; s; s = n) {
			n = s->sibling_next;
			s->group_leader = s;
			s->sibling_next = NULL;
			perf_event_put(e);
		}
	}
	mutex_unlock(&perf_mutex);
	tracepoint_synchronize_unregister();
	perf_event_free_bpf_prog(e);
	perf_event_put(e);
}

static const struct file_operations perf_fops = {
	.read = perf_read,
	.ioctl = perf_ioctl,
	.mmap = perf_fop_mmap,
	.poll = perf_poll,
	.release = perf_release,
	.mode = 0100600, /* Linux's anon inode: [perf_event] */
};

struct perf_event *perf_event_get_file(struct file *f)
{
	return f && f->f_op == &perf_fops ? f->private_data : NULL;
}

/* --- perf_event_open ------------------------------------------------------------------------ */

/* Linux's perf_pending_irq(): a sample asked for a wake-up; interrupts are on again. */
static void perf_pending_irq(struct irq_work *work)
{
	wake_up(&container_of(work, struct perf_event, pending_irq)->waitq);
}

static int perf_event_alloc(const struct perf_event_attr *attr, int pid, int cpu,
			    struct perf_event *leader, struct perf_event **out)
{
	struct perf_event *e = kzalloc(sizeof(*e));
	int err;

	if (!e)
		return -ENOMEM;
	e->attr = *attr;
	e->pid = pid;
	e->cpu = cpu;
	e->refcount = 1;
	spin_lock_init(&e->waitq.lock);
	init_irq_work(&e->pending_irq, perf_pending_irq);
	e->state = PERF_EVENT_STATE_OFF;
	e->group_leader = leader ? leader : e;
	if (attr->sample_period) {
		e->sample_period = attr->sample_period;
		if (attr->freq) /* clocks count ns; any other event fires on every hit */
			e->sample_period = is_clock(attr) ? NSEC_PER_SEC / attr->sample_freq : 1;
	}
	mutex_lock(&perf_mutex);
	err = perf_init_event(e);
	if (err) {
		mutex_unlock(&perf_mutex);
		kfree(e);
		return err;
	}
	e->id = perf_next_id++;
	if (leader) {
		perf_event_get(leader);
		e->sibling_next = leader->sibling_next;
		leader->sibling_next = e;
	}
	/* A member starts with its leader unless it asked to stay off. */
	if (!attr->disabled && (!leader || leader->state == PERF_EVENT_STATE_ACTIVE))
		perf_event_enable_one(e);
	mutex_unlock(&perf_mutex);
	*out = e;
	return 0;
}

static int perf_check_attr(const struct perf_event_attr *attr, int pid, int cpu,
			   unsigned long flags)
{
	if (flags & ~(PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | PERF_FLAG_PID_CGROUP |
		      PERF_FLAG_FD_CLOEXEC))
		return -EINVAL;
	if (flags & (PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_OUTPUT))
		return -EINVAL; /* no cgroups, no shared output rings here */
	if (attr->freq) {
		if (!attr->sample_freq || attr->sample_freq > PERF_MAX_SAMPLE_RATE)
			return -EINVAL;
	} else if (attr->sample_period & (1ULL << 63)) {
		return -EINVAL;
	}
	if (attr->sample_type & ~(u64)PERF_SAMPLE_SUPPORTED)
		return -EINVAL;
	if (attr->inherit || attr->enable_on_exec || attr->sigtrap || attr->aux_output ||
	    attr->use_clockid || attr->write_backward)
		return -EINVAL; /* said so in docs/24-perf-events.md: not built */
	/* a CPU the machine cannot have is EINVAL; one it has but not online, ENODEV */
	if (pid < -1 || cpu < -1 || (pid == -1 && cpu == -1) || cpu >= nr_cpus_possible ||
	    cpu >= NR_CPUS)
		return -EINVAL;
	if (cpu >= 0 && !cpu_online(cpu))
		return -ENODEV;
	if (pid > 0 && !find_task(pid))
		return -ESRCH;
	return 0;
}

SYSCALL_DEFINE5(perf_event_open, struct perf_event_attr __user *, attr_uptr, pid_t, pid, int, cpu,
		int, group_fd, unsigned long, flags)
{
	struct perf_event_attr attr;
	struct perf_event *leader = NULL, *e;
	struct file *f, *gf = NULL;
	int err, fd;

	if ((err = perf_copy_attr(attr_uptr, &attr)))
		return err;
	if ((err = perf_check_attr(&attr, pid, cpu, flags)))
		return err;
	if (pid == 0)
		pid = current->pid;
	if ((err = perf_event_permission(&attr, pid)))
		return err;
	if (pid > 0 && !perf_may_watch(find_task(pid)))
		return -EACCES;
	if (group_fd != -1) {
		/* The leader's file is held until the new event has joined its group. */
		if (!(gf = group_fd >= 0 ? fget(group_fd) : NULL))
			return -EBADF;
		err = -EBADF; /* Linux's perf_fget_light(): not a perf event */
		if (!(leader = perf_event_get_file(gf)))
			goto out_group;
		/* A group counts together: on the same task and CPU, under a leader that leads. */
		err = -EINVAL;
		if (leader->group_leader != leader || leader->pid != pid || leader->cpu != cpu)
			goto out_group;
	}
	err = -ENOMEM;
	if (!(f = alloc_file(&perf_fops, O_RDWR)))
		goto out_group;
	if ((err = perf_event_alloc(&attr, pid, cpu, leader, &e))) {
		kfree(f);
		goto out_group;
	}
	f->private_data = e;
	fd = fd_install_from(f, 0, flags & PERF_FLAG_FD_CLOEXEC);
	fput(f); /* the table holds it now, or nothing does and it goes */
	err = fd;
out_group:
	if (gf)
		fput(gf);
	return err;
}

/* --- /proc/sys/kernel/perf_event_paranoid ---------------------------------------------------- */

static int paranoid_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%d\n", READ_ONCE(sysctl_perf_event_paranoid));
	return 0;
}

/* Any int, as Linux's proc_dointvec takes it; anything else changes nothing. */
static int paranoid_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char tmp[16];
	int v;

	if (len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = 0;
	if (len && tmp[len - 1] == '\n')
		tmp[len - 1] = 0;
	if (kstrtoint(tmp, 10, &v))
		return -EINVAL;
	WRITE_ONCE(sysctl_perf_event_paranoid, v);
	return 0;
}

/* The probe PMUs' sysfs files, where libbpf looks for the type to open and the retprobe bit. */
static int kprobe_type_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%d\n", PERF_TYPE_KPROBE);
	return 0;
}

static int uprobe_type_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%d\n", PERF_TYPE_UPROBE);
	return 0;
}

static int retprobe_format_show(struct seq_file *m, struct fnode *f)
{
	seq_puts(m, "config:0\n");
	return 0;
}

/* The uprobe PMU's USDT semaphore: a file offset in config's upper half, as Linux's. */
static int ref_ctr_offset_format_show(struct seq_file *m, struct fnode *f)
{
	seq_puts(m, "config:32-63\n");
	return 0;
}

#define PMU_DIR "/sys/bus/event_source/devices/"
static const struct tracefs_file perf_files[] = {
	TRACEFS_FILE("/proc/sys/kernel/perf_event_paranoid", paranoid_show, paranoid_write),
	TRACEFS_FILE(PMU_DIR "kprobe/type", kprobe_type_show, NULL),
	TRACEFS_FILE(PMU_DIR "kprobe/format/retprobe", retprobe_format_show, NULL),
	TRACEFS_FILE(PMU_DIR "uprobe/type", uprobe_type_show, NULL),
	TRACEFS_FILE(PMU_DIR "uprobe/format/retprobe", retprobe_format_show, NULL),
	TRACEFS_FILE(PMU_DIR "uprobe/format/ref_ctr_offset", ref_ctr_offset_format_show, NULL),
};

void perf_event_init(void)
{
	tracefs_create_files(NULL, perf_files, ARRAY_SIZE(perf_files));
}
