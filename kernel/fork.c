/*
 * New processes and threads (Linux: kernel/fork.c). fork is clone(SIGCHLD): the child gets every
 * present page copy-on-write, the parent's open files shared, and a kernel stack whose top holds
 * a copy of the parent's pt_regs with rax = 0, so the child leaves the same syscall, through
 * ret_from_fork, with 0 where the parent sees the child's pid. A thread (CLONE_VM|CLONE_THREAD
 * and friends, as pthread_create passes them) shares the address space, fd table and handlers
 * instead, starts on the stack it was given, and joins the caller's thread group.
 *
 *   child's kernel stack (top)   pt_regs (parent's, ax = 0)
 *                                ret_from_fork        <- switch_to() returns here
 *                                rbp rbx r12 r13 r14 r15 = 0   <- child->rsp
 */
#include "kernel/sys.h"
#include "arch/x86/process.h"
#include "kernel/fs/file.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "kernel/printk/printk.h"
#include "kernel/signal.h"
#include "kernel/jobctl.h"
#include "kernel/thread_group.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "kernel/events/uprobes.h"
#include "kernel/trace/events/sched.h"
#include "kernel/trace/events/task.h"
#include "kernel/trace/trace.h"

#define CSIGNAL 0x000000ff
#define CLONE_VM 0x00000100
#define CLONE_FS 0x00000200
#define CLONE_FILES 0x00000400
#define CLONE_SIGHAND 0x00000800
#define CLONE_VFORK 0x00004000
#define CLONE_THREAD 0x00010000
#define CLONE_SYSVSEM 0x00040000 /* no System V semaphores here: nothing to share or undo */
#define CLONE_SETTLS 0x00080000
#define CLONE_PARENT_SETTID 0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_DETACHED 0x00400000 /* ignored, as Linux ignores it */
#define CLONE_CHILD_SETTID 0x01000000
#define CLONE_SUPPORTED                                                                            \
	(CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |              \
	 CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID |               \
	 CLONE_DETACHED | CLONE_CHILD_SETTID)

void ret_from_fork(void);

/* Links child under parent; tasklist lock held. */
static void link_child(struct task *parent, struct task *child)
{
	child->parent = parent;
	child->sibling = parent->children;
	parent->children = child;
}

/* Memory and files: the caller's own (CLONE_VM, CLONE_FILES) or copies of them. */
static int copy_mm_files(struct task *p, unsigned long flags)
{
	struct task *cur = current;

	if (flags & CLONE_VM) {
		mmget(cur->mm);
		p->mm = cur->mm;
	} else if (!(p->mm = dup_mm(cur->mm))) {
		return -ENOMEM;
	}
	if (flags & CLONE_FILES) {
		__atomic_add_fetch(&cur->files->count, 1, __ATOMIC_RELAXED);
		p->files = cur->files;
	} else if (!(p->files = dup_files(cur->files))) {
		return -ENOMEM;
	}
	return 0;
}

/* The process state a child takes from its parent (the current task). */
static int copy_process_state(struct task *p, unsigned long flags, unsigned long tls)
{
	struct task *cur = current;
	int err;

	if ((err = copy_mm_files(p, flags)) || fpu_copy_current(p))
		return err ?: -ENOMEM;
	/* A thread shares the handlers (copy_thread_group()); a process gets a copy. */
	if (copy_signal_state(p, cur, !(flags & CLONE_THREAD)))
		return -ENOMEM;
	p->cwd = cur->cwd;
	fs_pin(p->cwd);
	p->umask = cur->umask;
	p->fsbase = flags & CLONE_SETTLS ? tls : cur->fsbase;
	p->gsbase = cur->gsbase;
	p->tgid = p->pid;
	return 0;
}

/* Linux's rules first (copy_process()), then what is not built here. */
static int check_clone_flags(unsigned long flags)
{
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if (flags & ~CLONE_SUPPORTED)
		return -EINVAL;
	/* Memory, handlers or a directory shared by two processes (not threads: vfork's
	 * CLONE_VM, say) are not built. */
	if ((flags & (CLONE_VM | CLONE_SIGHAND | CLONE_FS)) && !(flags & CLONE_THREAD))
		return -EINVAL;
	/* A thread has no exit signal (Linux ignores it); a process's is SIGCHLD or none. */
	if (!(flags & CLONE_THREAD) && (flags & CSIGNAL) && (flags & CSIGNAL) != SIGCHLD)
		return -EINVAL;
	return 0;
}

/* Undoes copy_process_state() of a child that never ran. */
static void free_unstarted(struct task *p)
{
	if (p->mm)
		mmput(p->mm);
	exit_files(p);
	if (p->cwd)
		fs_unpin(p->cwd);
	kfree(p->sighand); /* a thread's is set only once nothing can fail */
	free_task(p);
}

static long kernel_clone(unsigned long flags, unsigned long newsp, int __user *parent_tid,
			 int __user *child_tid, unsigned long tls)
{
	struct pt_regs *regs = task_pt_regs(current), *cregs;
	unsigned long *sp, irq;
	struct task *p;
	int err, nr;

	if ((err = check_clone_flags(flags)))
		return err;
	if ((flags & CLONE_SETTLS) && tls >= TASK_SIZE_MAX)
		return -EPERM;
	if (!(p = alloc_task(current->comm, current->cpu)))
		return -ENOMEM;
	if ((err = sched_fork(p)) || (err = copy_process_state(p, flags, tls)))
		goto fail;
	if ((flags & CLONE_CHILD_SETTID) &&
	    copy_to_mm(p->mm, (unsigned long)child_tid, &p->pid, sizeof(int))) {
		err = -EFAULT;
		goto fail;
	}
	if ((flags & CLONE_PARENT_SETTID) && put_user(p->pid, parent_tid)) {
		err = -EFAULT;
		goto fail;
	}
	if (flags & CLONE_CHILD_CLEARTID)
		p->clear_child_tid = child_tid;
	/* A thread starts on its own stack: the caller's pending uretprobe returns are not its. */
	if (!(flags & CLONE_VM) && (err = uprobe_copy_process(p)))
		goto fail;
	/* Last, as nothing after it fails: from here the thread counts in its group. */
	if ((flags & CLONE_THREAD) && (err = copy_thread_group(p)))
		goto fail;
	if (flags & CLONE_FS)
		p->fs_shared = current->fs_shared = true;

	cregs = task_pt_regs(p);
	*cregs = *regs;
	cregs->ax = 0;
	if (newsp)
		cregs->sp = newsp;
	sp = (unsigned long *)cregs;
	*--sp = (unsigned long)ret_from_fork;
	for (int i = 0; i < 6; i++)
		*--sp = 0; /* rbp rbx r12 r13 r14 r15 */
	p->rsp = (unsigned long)sp;

	irq = tasklist_lock_irqsave();
	/* A thread is nobody's child; a process forked by any thread is the process's. */
	if (!(flags & CLONE_THREAD))
		link_child(process_of(current), p);
	tasklist_unlock_irqrestore(irq);
	trace_task_newtask(p, flags);
	trace_sched_process_fork(current, p);
	trace_pids_fork(current, p);
	/* The id is read before the child can run: on another CPU it may exec from a thread (and
	 * trade ids with it) or exit and be freed before we return, as Linux takes pid_vnr() first. */
	nr = p->pid;
	wake_up_new_task(p);
	return nr;
fail:
	free_unstarted(p);
	return err;
}

SYSCALL_DEFINE5(clone, unsigned long, clone_flags, unsigned long, newsp, int __user *,
		parent_tidptr, int __user *, child_tidptr, unsigned long, tls)
{
	return kernel_clone(clone_flags, newsp, parent_tidptr, child_tidptr, tls);
}

SYSCALL_DEFINE0(fork)
{
	return kernel_clone(SIGCHLD, 0, NULL, NULL, 0);
}

/* vfork shares the parent's memory until the child execs or exits; a copy behaves the same for
 * every program that only calls exec or _exit in the child, which is all vfork allows. */
SYSCALL_DEFINE0(vfork)
{
	return kernel_clone(SIGCHLD, 0, NULL, NULL, 0);
}

struct user_start {
	const char *path;
	const char *const *argv;
};

static const char *const init_envp[] = { "HOME=/", "TERM=vt100",
					 "PATH=/sbin:/usr/sbin:/bin:/usr/bin", NULL };

/* The new process's first code, still a kernel thread: exec, then ring 3. */
static void user_process_main(void *arg)
{
	struct user_start *s = arg;
	struct pt_regs regs;
	int err = kernel_execve(s->path, s->argv, init_envp, &regs);

	if (err)
		cprintf("%s: %s\n", s->path, strerror(err));
	kfree(s);
	if (err) {
		do_exit((err == -ENOENT ? 127 : 126) << 8); /* a shell's statuses for these */
	}
	ret_to_user_mode(&regs);
}

int user_process_start(const char *path, const char *const *argv, struct fnode *cwd)
{
	struct user_start *s = kmalloc(sizeof(*s));
	struct files_struct *files = console_files();
	unsigned long irq;
	struct task *p;

	if (!files || !s) {
		kfree(s);
		if (files)
			put_files_struct(files);
		return -ENOMEM;
	}
	s->path = path;
	s->argv = argv;
	/* Linked to its parent before it can run, let alone exit: with the tasklist lock held (and
	 * so interrupts off) on this CPU, where it will run, it cannot start until we let go. */
	irq = tasklist_lock_irqsave();
	/* Named as exec will name it (the path's last part), so no trace shows another name. */
	p = kthread_create(user_process_main, s, smp_processor_id(),
			   strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	if (p) {
		/* Bound like any kernel thread until now (it cannot run before we let go): a process
		 * may run anywhere, and its children choose among every CPU. */
		p->cpus_mask = CPU_MASK_ALL;
		p->tgid = p->pid;
		jobctl_new_session(p);
		p->files = files;
		p->cwd = cwd;
		fs_pin(cwd);
		link_child(current, p);
		trace_task_newtask(p, SIGCHLD);
		trace_sched_process_fork(current, p);
		trace_pids_fork(current, p);
	}
	tasklist_unlock_irqrestore(irq);
	if (!p) {
		kfree(s);
		put_files_struct(files);
		return -ENOMEM;
	}
	/* path and argv stay the caller's: it waits for the child (kernel_wait4), which has read
	 * them once it has exec'd. */
	return p->pid;
}
