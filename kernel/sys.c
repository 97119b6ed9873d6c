/* The small system calls of a process's identity and limits: ids, uname, rlimits, random bytes. */
#include "kernel/sys.h"
#include "arch/x86/cpu.h"
#include "kernel/fs/procfs.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/syscalls.h"
#include "kernel/time.h"
#include "kernel/trace/trace.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "kernel/trace/events/task.h"
#include "kernel/thread_group.h"

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004
#define GRND_NONBLOCK 0x1
#define GRND_RANDOM 0x2
#define GRND_INSECURE 0x4
#define RLIM_NLIMITS 16
#define RLIMIT_STACK 3
#define RLIMIT_NOFILE 7
#define RLIM_INFINITY (~0UL)

SYSCALL_DEFINE0(getpid)
{
	return current->tgid;
}

SYSCALL_DEFINE0(gettid)
{
	return current->pid;
}

/* A parent that has gone leaves its child to nobody: Linux would say init's pid, 1; so do we. A
 * thread is nobody's child either (parent NULL): its process's parent is its leader's, asked
 * only then, so a process's round trip (the benchmark's loop) pays nothing for threads. */
SYSCALL_DEFINE0(getppid)
{
	struct task *t = current, *p = READ_ONCE(t->parent);

	if (!p && t->signal)
		p = READ_ONCE(process_of(t)->parent);
	return p ? p->tgid ?: p->pid : 1;
}

/* Everyone is root: users and permissions are not built yet. */
SYSCALL_DEFINE0(getuid)
{
	return current->uid;
}

SYSCALL_DEFINE0(geteuid)
{
	return current->euid;
}

SYSCALL_DEFINE0(getgid)
{
	return current->gid;
}

SYSCALL_DEFINE0(getegid)
{
	return current->egid;
}

#define PR_SET_NAME 15
#define PR_GET_NAME 16

/* The two options busybox and glibc use: the task's name (comm), as ps and the trace show it. */
SYSCALL_DEFINE5(prctl, int, option, unsigned long, arg2, unsigned long, arg3, unsigned long, arg4,
		unsigned long, arg5)
{
	char name[TASK_COMM_LEN];
	long n;

	switch (option) {
	case PR_SET_NAME:
		n = strncpy_from_user(name, (const char __user *)arg2, sizeof(name) - 1);
		if (n < 0)
			return n;
		name[n] = '\0';
		trace_task_rename(current, name);
		strscpy(current->comm, name, sizeof(current->comm));
		trace_update_cmdline(current->pid, current->comm);
		return 0;
	case PR_GET_NAME:
		return copy_to_user((char __user *)arg2, current->comm, sizeof(current->comm))
			       ? -EFAULT
			       : 0;
	default:
		return -EINVAL; /* the other options are not built */
	}
}

SYSCALL_DEFINE1(time, __kernel_old_time_t __user *, tloc)
{
	s64 t = ktime_get_ns() / NSEC_PER_SEC;
	if (tloc && put_user(t, tloc))
		return -EFAULT;
	return t;
}

SYSCALL_DEFINE1(umask, int, mask)
{
	return set_fs_umask(mask & 0777);
}

SYSCALL_DEFINE0(sched_yield)
{
	yield();
	return 0;
}

struct new_utsname {
	char sysname[65], nodename[65], release[65], version[65], machine[65], domainname[65];
};

SYSCALL_DEFINE1(newuname, struct new_utsname __user *, name)
{
	struct new_utsname u;

	memset(&u, 0, sizeof(u));
	strscpy(u.sysname, "ftrace-os", sizeof(u.sysname));
	strscpy(u.nodename, "ftrace-os", sizeof(u.nodename));
	strscpy(u.release, FTRACE_OS_VERSION, sizeof(u.release));
	strscpy(u.version, "#1 SMP", sizeof(u.version)); /* as /proc/version ends */
	strscpy(u.machine, "x86_64", sizeof(u.machine));
	strscpy(u.domainname, "(none)", sizeof(u.domainname));
	return copy_to_user(name, &u, sizeof(u)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(arch_prctl, int, option, unsigned long, arg2)
{
	struct task *t = current;

	switch (option) {
	case ARCH_SET_FS:
	case ARCH_SET_GS:
		if (arg2 >= TASK_SIZE_MAX)
			return -EPERM;
		if (option == ARCH_SET_FS) {
			t->fsbase = arg2;
			wrmsr(MSR_FS_BASE, arg2);
		} else {
			t->gsbase = arg2; /* the user's GS sits in KERNEL_GS_BASE while we run */
			wrmsr(MSR_KERNEL_GS_BASE, arg2);
		}
		return 0;
	case ARCH_GET_FS:
		return put_user(t->fsbase, (unsigned long __user *)arg2);
	case ARCH_GET_GS:
		return put_user(t->gsbase, (unsigned long __user *)arg2);
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE1(set_tid_address, int __user *, tidptr)
{
	current->clear_child_tid = tidptr;
	return current->pid;
}

/* The list of robust futexes the thread holds, walked when it leaves its memory (kernel/futex.c:
 * exit_robust_list()). */
SYSCALL_DEFINE2(set_robust_list, void __user *, head, size_t, len)
{
	if (len != 24) /* sizeof(struct robust_list_head) */
		return -EINVAL;
	current->robust_list = (unsigned long)head;
	current->robust_len = len;
	return 0;
}

/* pid 0: the caller. Another task's only for its own process or for root (Linux asks
 * ptrace_may_access(), which is near enough without ptrace). */
struct robust_list_head; /* kernel/futex.c's: only its address is handed back here */

SYSCALL_DEFINE3(get_robust_list, int, pid, struct robust_list_head __user *__user *, head_ptr,
		size_t __user *, len_ptr)
{
	unsigned long head, flags;
	struct task *t;

	flags = tasklist_lock_irqsave(); /* t stays while its fields are read */
	t = pid ? find_task(pid) : current;
	if (!t || !t->mm) {
		tasklist_unlock_irqrestore(flags);
		return -ESRCH;
	}
	if (process_of(t) != process_of(current) && current->euid && current->euid != t->uid) {
		tasklist_unlock_irqrestore(flags);
		return -EPERM;
	}
	head = t->robust_list;
	tasklist_unlock_irqrestore(flags);
	if (put_user(24UL, len_ptr))
		return -EFAULT;
	return put_user((struct robust_list_head __user *)head, head_ptr);
}

/* Restartable sequences are not built: -ENOSYS is what glibc expects from a kernel without them,
 * and it carries on (answered here rather than by the table, so it is not logged as unknown). */
SYSCALL_DEFINE4(rseq, void __user *, rseq, u32, rseq_len, int, flags, u32, sig)
{
	return -ENOSYS;
}

struct rlimit64 {
	u64 rlim_cur, rlim_max;
};

/* The limits this kernel lives by: the fd table's size, the stack exec maps; the rest unlimited. */
static struct rlimit64 rlimit_of(unsigned int resource)
{
	if (resource == RLIMIT_NOFILE)
		return (struct rlimit64){ 64, 64 };
	if (resource == RLIMIT_STACK)
		return (struct rlimit64){ 8UL << 20, RLIM_INFINITY };
	return (struct rlimit64){ RLIM_INFINITY, RLIM_INFINITY };
}

SYSCALL_DEFINE4(prlimit64, pid_t, pid, unsigned int, resource, const struct rlimit64 __user *,
		new_rlim, struct rlimit64 __user *, old_rlim)
{
	struct rlimit64 cur, want;

	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	if (pid && pid != current->tgid)
		return find_task(pid) ? -EPERM : -ESRCH;
	cur = rlimit_of(resource);
	if (new_rlim) {
		if (copy_from_user(&want, new_rlim, sizeof(want)))
			return -EFAULT;
		if (want.rlim_cur > want.rlim_max)
			return -EINVAL;
		/* Limits are fixed here: lowering or raising them is not built. */
		if (want.rlim_cur != cur.rlim_cur || want.rlim_max != cur.rlim_max)
			return -EPERM;
	}
	if (old_rlim && copy_to_user(old_rlim, &cur, sizeof(cur)))
		return -EFAULT;
	return 0;
}

struct sysinfo {
	long uptime;
	unsigned long loads[3], totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	u16 procs, pad;
	unsigned long totalhigh, freehigh;
	u32 mem_unit;
	char _f[4];
};

static void sysinfo_count_task(struct task *t, void *arg)
{
	++*(int *)arg;
}

SYSCALL_DEFINE1(sysinfo, struct sysinfo __user *, info)
{
	struct sysinfo s;
	int tasks = 0;

	memset(&s, 0, sizeof(s));
	for_each_task(sysinfo_count_task, &tasks);
	s.uptime = ktime_get_ns() / NSEC_PER_SEC;
	s.totalram = pages_total();
	s.freeram = pages_free();
	s.procs = tasks;
	s.mem_unit = PAGE_SIZE;
	return copy_to_user(info, &s, sizeof(s)) ? -EFAULT : 0;
}

/*
 * Random bytes: xorshift64* over a state stirred with RDRAND (when the CPU has it) and the TSC.
 * Good enough for AT_RANDOM and getrandom()'s callers here; not a cryptographic generator, which
 * Linux's ChaCha20 pool is.
 */
static u64 rng_state;
static DEFINE_SPINLOCK(rng_lock);

static u64 hw_random(void)
{
	u32 a, b, c, d;
	u64 v = 0;
	unsigned char ok = 0;

	cpuid(1, 0, &a, &b, &c, &d);
	if (c & (1U << 30))
		__asm__ volatile("rdrand %0; setc %1" : "=r"(v), "=qm"(ok));
	return ok ? v : 0;
}

void get_random_bytes(void *buf, size_t len)
{
	unsigned long flags = spin_lock_irqsave(&rng_lock);
	u8 *p = buf;

	if (!rng_state)
		rng_state = hw_random() ^ rdtsc() ^ 0x9e3779b97f4a7c15ULL;
	while (len) {
		u64 v;
		size_t n = MIN(len, sizeof(v));
		rng_state ^= rng_state >> 12;
		rng_state ^= rng_state << 25;
		rng_state ^= rng_state >> 27;
		v = rng_state * 0x2545f4914f6cdd1dULL;
		memcpy(p, &v, n);
		p += n;
		len -= n;
	}
	spin_unlock_irqrestore(&rng_lock, flags);
}

SYSCALL_DEFINE3(getrandom, char __user *, buf, size_t, count, unsigned int, flags)
{
	u8 chunk[256];
	size_t done = 0;

	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if ((flags & GRND_INSECURE) && (flags & GRND_RANDOM))
		return -EINVAL;
	count = MIN(count, 0x7fffffffUL);
	if (!access_ok(buf, count))
		return -EFAULT;
	while (done < count) {
		size_t n = MIN(count - done, sizeof(chunk));
		get_random_bytes(chunk, n);
		if (copy_to_user(buf + done, chunk, n))
			return done ? (long)done : -EFAULT;
		done += n;
	}
	return done;
}

unsigned long cpu_hwcap(void)
{
	u32 a, b, c, d;
	cpuid(1, 0, &a, &b, &c, &d);
	return d;
}
