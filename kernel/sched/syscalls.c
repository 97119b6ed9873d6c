/* The scheduling system calls (Linux: kernel/sched/core.c): policy, priority, sched_attr, affinity.
 *
 *   sched_setscheduler(pid, policy, &param)   sched_setattr(pid, &attr, 0)     -> __sched_setscheduler()
 *   sched_setparam(pid, &param)               (policy kept: SETPARAM_POLICY)
 *   sched_getscheduler / getparam / getattr   sched_get_priority_max / min
 *   sched_rr_get_interval                     sched_getaffinity / setaffinity
 *
 * Every check comes before any change, in Linux's order, so bad input gets Linux's errno and
 * leaves the task as it was. The change itself is made under the task's run-queue lock: off the
 * queue, new class, back on, and its CPU asked to choose again.
 */
#include "kernel/sched/rq.h"
#include "kernel/cred.h"
#include "kernel/smp.h"
#include "kernel/syscalls.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define SETPARAM_POLICY (-1)
#define SCHED_FLAG_RESET_ON_FORK 0x01
#define SCHED_FLAG_RECLAIM 0x02
#define SCHED_FLAG_DL_OVERRUN 0x04
#define SCHED_FLAG_KEEP_POLICY 0x08
#define SCHED_FLAG_KEEP_PARAMS 0x10
#define SCHED_FLAG_UTIL_CLAMP 0x60
#define SCHED_FLAG_ALL 0x7f
#define SCHED_ATTR_SIZE_VER0 48

struct sched_param {
	int sched_priority;
};

/* Linux's struct sched_attr (VER1, 56 bytes): what sched_setattr() reads and getattr() writes. */
struct sched_attr {
	u32 size;
	u32 sched_policy;
	u64 sched_flags;
	s32 sched_nice;
	u32 sched_priority;
	u64 sched_runtime, sched_deadline, sched_period;
	u32 sched_util_min, sched_util_max;
};

static bool valid_policy(int policy)
{
	return fair_policy(policy) || rt_policy(policy) || dl_policy(policy);
}

static int normal_prio(int policy, unsigned int rt_priority)
{
	if (dl_policy(policy))
		return MAX_DL_PRIO - 1;
	if (rt_policy(policy))
		return MAX_RT_PRIO - 1 - rt_priority;
	return DEFAULT_PRIO;
}

/* Linux's checks before any change, in its order; 0 if attr may be applied to p. */
static int sched_check_attr(struct task *p, struct sched_attr *attr, int policy, bool user)
{
	if (attr->sched_flags & ~SCHED_FLAG_ALL)
		return -EINVAL;
	if (attr->sched_flags & SCHED_FLAG_UTIL_CLAMP)
		return -EOPNOTSUPP; /* Linux without CONFIG_UCLAMP_TASK */
	/* Not built here (docs/21): refused rather than accepted and ignored. */
	if (attr->sched_flags & (SCHED_FLAG_RECLAIM | SCHED_FLAG_DL_OVERRUN))
		return -EINVAL;
	if (attr->sched_priority > MAX_RT_PRIO - 1)
		return -EINVAL;
	if ((dl_policy(policy) &&
	     !dl_params_valid(attr->sched_runtime, attr->sched_deadline, attr->sched_period)) ||
	    rt_policy(policy) != (attr->sched_priority != 0))
		return -EINVAL;
	/* No nice levels: the fair class here is plain round robin. */
	if (fair_policy(policy) && attr->sched_nice)
		return -EINVAL;
	/* No RLIMIT_RTPRIO (0 in Linux by default): only root raises a class; nobody else's task. */
	if (user && !capable_root() &&
	    (rt_policy(policy) || dl_policy(policy) || p->uid != current->euid))
		return -EPERM;
	return 0;
}

static void resched_cpu(int cpu)
{
	if (cpu == smp_processor_id())
		set_need_resched();
	else
		smp_send_reschedule(cpu);
}

static int __sched_setscheduler(struct task *p, struct sched_attr *attr, bool user)
{
	struct runqueue *rq;
	int policy =
		attr->sched_policy == (u32)SETPARAM_POLICY ? p->policy : (int)attr->sched_policy;
	u64 old_bw = 0, new_bw = 0, now;
	unsigned long flags;
	bool queued;
	int err, cpu;

	if (!valid_policy(policy))
		return -EINVAL;
	if (attr->sched_flags & SCHED_FLAG_KEEP_PARAMS) { /* Linux's __setscheduler_params() skip */
		attr->sched_priority = p->rt_priority;
		attr->sched_runtime = p->dl.dl_runtime;
		attr->sched_deadline = p->dl.dl_deadline;
		attr->sched_period = p->dl.dl_period;
	}
	if ((err = sched_check_attr(p, attr, policy, user)))
		return err;
	flags = local_irq_save();
	rq = task_rq_lock(p); /* p->cpu may change until its run queue is held */
	if (p->state == TASK_DEAD || p->exit_state) {
		err = -ESRCH;
		goto out;
	}
	if (dl_policy(p->policy))
		old_bw = dl_bandwidth(p->dl.dl_runtime, p->dl.dl_deadline, p->dl.dl_period);
	if (dl_policy(policy))
		new_bw =
			dl_bandwidth(attr->sched_runtime, attr->sched_deadline, attr->sched_period);
	if ((err = dl_admit(rq, old_bw, new_bw)))
		goto out;
	/* A throttled deadline task is runnable but off the queue: it goes back on in its new class. */
	queued = p->on_rq ||
		 (p->dl.dl_throttled && p->state == TASK_RUNNING && percpu_area[p->cpu].curr != p);
	dequeue_task(rq, p);
	/* The running task's real-time run time counts from its change of class on, and no longer
	 * (rt_bandwidth.c); else its first tick would charge it all the time since rt_exec_start. */
	if (rq->curr == p) {
		now = ktime_get_ns();
		if (rt_policy(p->policy) && !rt_policy(policy))
			rt_charge(rq, now);
		rq->rt_exec_start = now;
	}
	p->policy = policy;
	p->sched_reset_on_fork = attr->sched_flags & SCHED_FLAG_RESET_ON_FORK;
	p->rt_priority = rt_policy(policy) ? attr->sched_priority : 0;
	p->prio = normal_prio(policy, p->rt_priority);
	p->rr_slice = RR_TIMESLICE;
	if (dl_policy(policy)) {
		now = ktime_get_ns();
		p->dl = (struct sched_dl_entity){ .dl_runtime = attr->sched_runtime,
						  .dl_deadline = attr->sched_deadline,
						  .dl_period = attr->sched_period
								       ?: attr->sched_deadline,
						  .runtime = attr->sched_runtime,
						  .deadline = now + attr->sched_deadline,
						  .exec_start = now };
	} else {
		p->dl = (struct sched_dl_entity){ 0 };
	}
	if (queued)
		enqueue_task(rq, p, false);
out:
	cpu = rq - runqueues;
	spin_unlock(&rq->lock);
	local_irq_restore(flags);
	if (!err)
		resched_cpu(cpu); /* it may now win or lose its CPU: let the CPU choose again */
	return err;
}

int sched_setscheduler_nocheck(struct task *p, int policy, unsigned int prio, u64 runtime,
			       u64 deadline, u64 period)
{
	struct sched_attr attr = { .sched_policy = policy,
				   .sched_priority = prio,
				   .sched_runtime = runtime,
				   .sched_deadline = deadline,
				   .sched_period = period };

	return __sched_setscheduler(p, &attr, false);
}

/* pid 0 is the caller, as in Linux; NULL if there is no such task. */
static struct task *find_process_by_pid(int pid)
{
	return pid ? find_task(pid) : current;
}

static long do_sched_setscheduler(int pid, int policy, struct sched_param __user *param)
{
	struct sched_attr attr = { 0 };
	struct sched_param lp;
	struct task *p;

	if (!param || pid < 0)
		return -EINVAL;
	if (copy_from_user(&lp, param, sizeof(lp)))
		return -EFAULT;
	if (!(p = find_process_by_pid(pid)))
		return -ESRCH;
	if (policy >= 0 && (policy & SCHED_RESET_ON_FORK)) {
		attr.sched_flags = SCHED_FLAG_RESET_ON_FORK;
		policy &= ~SCHED_RESET_ON_FORK;
	}
	attr.sched_policy = policy;
	attr.sched_priority = lp.sched_priority; /* a negative one is out of range, as u32 */
	return __sched_setscheduler(p, &attr, true);
}

SYSCALL_DEFINE3(sched_setscheduler, int, pid, int, policy, struct sched_param __user *, param)
{
	if (policy < 0)
		return -EINVAL;
	return do_sched_setscheduler(pid, policy, param);
}

SYSCALL_DEFINE2(sched_setparam, int, pid, struct sched_param __user *, param)
{
	return do_sched_setscheduler(pid, SETPARAM_POLICY, param);
}

SYSCALL_DEFINE1(sched_getscheduler, int, pid)
{
	struct task *p;

	if (pid < 0)
		return -EINVAL;
	if (!(p = find_process_by_pid(pid)))
		return -ESRCH;
	return p->policy | (p->sched_reset_on_fork ? SCHED_RESET_ON_FORK : 0);
}

SYSCALL_DEFINE2(sched_getparam, int, pid, struct sched_param __user *, param)
{
	struct sched_param lp = { 0 };
	struct task *p;

	if (!param || pid < 0)
		return -EINVAL;
	if (!(p = find_process_by_pid(pid)))
		return -ESRCH;
	lp.sched_priority = p->rt_priority;
	return copy_to_user(param, &lp, sizeof(lp)) ? -EFAULT : 0;
}

/*
 * Linux's sched_copy_attr(): size 0 means VER0's 48 bytes; a larger struct than ours is fine if
 * what we do not know is zero. Otherwise E2BIG, with our size written back for the caller.
 */
static long sched_copy_attr(struct sched_attr __user *uattr, struct sched_attr *attr)
{
	u32 size;
	u8 byte;

	if (get_user(size, &uattr->size))
		return -EFAULT;
	if (!size)
		size = SCHED_ATTR_SIZE_VER0;
	if (size < SCHED_ATTR_SIZE_VER0 || size > PAGE_SIZE)
		goto err_size;
	for (u32 i = sizeof(*attr); i < size; i++) {
		if (get_user(byte, (u8 __user *)uattr + i))
			return -EFAULT;
		if (byte)
			goto err_size;
	}
	*attr = (struct sched_attr){ 0 };
	if (copy_from_user(attr, uattr, MIN(size, (u32)sizeof(*attr))))
		return -EFAULT;
	attr->size = size;
	return 0;
err_size:
	put_user((u32)sizeof(*attr), &uattr->size);
	return -E2BIG;
}

SYSCALL_DEFINE3(sched_setattr, int, pid, struct sched_attr __user *, uattr, unsigned int, flags)
{
	struct sched_attr attr;
	struct task *p;
	long err;

	if (!uattr || pid < 0 || flags)
		return -EINVAL;
	if ((err = sched_copy_attr(uattr, &attr)))
		return err;
	if ((int)attr.sched_policy < 0)
		return -EINVAL;
	if (attr.sched_flags & SCHED_FLAG_KEEP_POLICY)
		attr.sched_policy = SETPARAM_POLICY;
	if (!(p = find_process_by_pid(pid)))
		return -ESRCH;
	return __sched_setscheduler(p, &attr, true);
}

SYSCALL_DEFINE4(sched_getattr, int, pid, struct sched_attr __user *, uattr, unsigned int, usize,
		unsigned int, flags)
{
	struct sched_attr k = { 0 };
	struct task *p;

	if (!uattr || pid < 0 || usize > PAGE_SIZE || usize < SCHED_ATTR_SIZE_VER0 || flags)
		return -EINVAL;
	if (!(p = find_process_by_pid(pid)))
		return -ESRCH;
	k.sched_policy = p->policy;
	k.sched_flags = p->sched_reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0;
	k.sched_priority = p->rt_priority;
	k.sched_runtime = p->dl.dl_runtime;
	k.sched_deadline = p->dl.dl_deadline;
	k.sched_period = p->dl.dl_period;
	k.size = MIN(usize, (u32)sizeof(k));
	return copy_to_user(uattr, &k, k.size) ? -EFAULT : 0;
}

SYSCALL_DEFINE1(sched_get_priority_max, int, policy)
{
	if (rt_policy(policy))
		return MAX_RT_PRIO - 1;
	return valid_policy(policy) ? 0 : -EINVAL;
}

SYSCALL_DEFINE1(sched_get_priority_min, int, policy)
{
	if (rt_policy(policy))
		return 1;
	return valid_policy(policy) ? 0 : -EINVAL;
}

struct __kernel_timespec {
	s64 tv_sec;
	long long tv_nsec;
};

/* SCHED_RR's slice; FIFO and deadline tasks have none (0); the fair class's is one tick here. */
SYSCALL_DEFINE2(sched_rr_get_interval, int, pid, struct __kernel_timespec __user *, interval)
{
	struct __kernel_timespec ts;
	struct task *p;
	u64 ns = 0;

	if (pid < 0)
		return -EINVAL;
	if (!(p = find_process_by_pid(pid)))
		return -ESRCH;
	if (p->policy == SCHED_RR)
		ns = RR_TIMESLICE;
	else if (fair_policy(p->policy))
		ns = NSEC_PER_SEC / HZ;
	ts.tv_sec = ns / NSEC_PER_SEC;
	ts.tv_nsec = ns % NSEC_PER_SEC;
	return copy_to_user(interval, &ts, sizeof(ts)) ? -EFAULT : 0;
}

/*
 * A task's CPUs (kernel/sched/migrate.c), Linux's bitmap: len bytes, a multiple of 8 at least as
 * long as the kernel's mask (getaffinity), any length (setaffinity: missing bytes are 0).
 */
SYSCALL_DEFINE3(sched_getaffinity, int, pid, unsigned int, len, unsigned long __user *, mask)
{
	unsigned long m = 0;
	struct task *p;
	int cpu;

	if ((len * 8) < NR_CPUS || (len & (sizeof(unsigned long) - 1)))
		return -EINVAL;
	if (pid < 0 || !(p = find_process_by_pid(pid)))
		return -ESRCH;
	for_each_online_cpu(cpu)
		if (READ_ONCE(p->cpus_mask) & (1UL << cpu))
			m |= 1UL << cpu;
	if (copy_to_user(mask, &m, sizeof(m)))
		return -EFAULT;
	return sizeof(m);
}

/*
 * Linux's order: the mask is read, the task found, a kernel thread refused (ours are bound to
 * their CPU, as Linux's per-CPU threads with PF_NO_SETAFFINITY), another user's task needs root;
 * a mask without an online CPU is EINVAL, and a deadline task must keep every CPU (EBUSY).
 */
SYSCALL_DEFINE3(sched_setaffinity, int, pid, unsigned int, len, unsigned long __user *, mask)
{
	unsigned long m = 0;
	struct task *p;

	if (copy_from_user(&m, mask, MIN(len, (unsigned int)sizeof(m))))
		return -EFAULT;
	if (pid < 0 || !(p = find_process_by_pid(pid)))
		return -ESRCH;
	if (!p->mm)
		return -EINVAL;
	if (!capable_root() && p->uid != current->euid && p->euid != current->euid)
		return -EPERM;
	return set_cpus_allowed_ptr(p, m);
}

/* A child's class (Linux's sched_fork()): inherited, or normal with reset-on-fork; a deadline
 * task may not fork without it. */
int sched_fork(struct task *p)
{
	struct task *parent = current;

	if (dl_policy(parent->policy) && !parent->sched_reset_on_fork)
		return -EAGAIN;
	p->cpus_mask = parent->cpus_mask; /* wake_up_new_task() picks one of these */
	if (parent->sched_reset_on_fork) {
		p->policy = SCHED_NORMAL;
		p->rt_priority = 0;
		p->prio = DEFAULT_PRIO;
		return 0;
	}
	p->policy = parent->policy;
	p->rt_priority = parent->rt_priority;
	p->prio = parent->prio;
	p->rr_slice = RR_TIMESLICE;
	return 0;
}

/* An exiting deadline task gives its bandwidth back (Linux's task_dead_dl()); rq lock held. */
void sched_task_dead(struct task *p)
{
	if (dl_policy(p->policy))
		dl_admit(&runqueues[p->cpu],
			 dl_bandwidth(p->dl.dl_runtime, p->dl.dl_deadline, p->dl.dl_period), 0);
}
