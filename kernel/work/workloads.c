/* Running workloads: one kernel thread per CPU asked for, a table of what each has done, and the
 * "spin" workload that checks, call by call, that patching never loses or invents a traced call. */
#include "kernel/work/workloads.h"
#include "arch/x86/cpu.h"
#include "kernel/fs/tracefs.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trace/ftrace.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "kernel/trace/events/workload.h"
#include "kernel/work/scale.h"

#define MAX_WORKERS 64
#define SPIN_CALLS 64

void compute_iteration(struct work_stats *st);
void hash_iteration(struct work_stats *st);
void fs_iteration(struct work_stats *st);
void greet_iteration(struct work_stats *st);
void jump_iteration(struct work_stats *st);
static void spin_iteration(struct work_stats *st);

static const struct workload workloads[] = {
	{ "compute", "recursion and arithmetic (compute_fib, compute_sum_squares)",
	  compute_iteration, 2 },
	{ "hash", "make keys, hash, insert, look up (hash_*)", hash_iteration, 2 },
	{ "fs", "a mock VFS: open, path walk, read, close (vfs_*)", fs_iteration, 2 },
	{ "spin", "stress_target() in a tight loop, checked against func_hits", spin_iteration, 0 },
	{ "greet", "demo_greeting() in a tight loop, every answer checked", greet_iteration, 0 },
	{ "jump", "jump_label_demo() in a tight loop, every answer checked", jump_iteration, 0 },
#ifdef CONFIG_SCALE
	{ "scale", "every generated scale_fn_* once a round (make SCALE=N)", scale_iteration, 2 },
#endif
};

static struct work_stats stats[MAX_WORKERS];
static u64 spin_calls[NR_CPUS];

noinline __attribute__((noclone)) int stress_target(int x)
{
	spin_calls[smp_processor_id()]++;
	return x + 1;
}

/*
 * 64 calls, bracketed by reads of ftrace_update_seq. If no update ran meanwhile (same even value),
 * the site was in one state throughout, so this CPU's func_hits count must have moved by exactly
 * the calls made (site live and func_hits counting stress_target) or not at all (otherwise: the
 * site may also be live for another ops alone, a direct call say).
 */
static void spin_iteration(struct work_stats *st)
{
	int cpu = smp_processor_id();
	unsigned long ip = (unsigned long)stress_target;
	struct dyn_ftrace *rec = ftrace_lookup_ip(ip);
	unsigned long seq0 = __atomic_load_n(&ftrace_update_seq, __ATOMIC_ACQUIRE);
	bool live = rec && (rec->flags & FTRACE_FL_ENABLED) && func_hits_wants(ip);
	u64 h0 = func_hits_cpu(cpu, ip), c0 = spin_calls[cpu];

	for (int i = 0; i < SPIN_CALLS; i++)
		stress_target(i);
	u64 h1 = func_hits_cpu(cpu, ip), c1 = spin_calls[cpu];
	if (__atomic_load_n(&ftrace_update_seq, __ATOMIC_ACQUIRE) != seq0 || (seq0 & 1))
		return;
	st->windows++;
	if (h1 - h0 != (live ? c1 - c0 : 0))
		st->mismatches++;
}

const struct workload *workload_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(workloads); i++)
		if (!strcmp(workloads[i].name, name))
			return &workloads[i];
	return NULL;
}

void workload_list(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(workloads) && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? " " : "", workloads[i].name);
}

static void work_thread(void *arg)
{
	struct work_stats *st = arg;

	while (!kthread_should_stop() && (!st->deadline_ns || ktime_get_ns() < st->deadline_ns)) {
		__atomic_add_fetch(&st->seq, 1, __ATOMIC_ACQ_REL); /* odd: a round in progress */
		st->w->iteration(st);
		st->iterations++;
		__atomic_add_fetch(&st->seq, 1, __ATOMIC_RELEASE);
		trace_workload_iteration(st->w->name, st->cpu, st->iterations);
		cond_resched();
		if (st->w->sleep_ms)
			msleep(st->w->sleep_ms);
	}
	st->live = false;
}

int workload_start(const struct workload *w, int cpu, unsigned long seconds)
{
	struct work_stats *st = NULL;
	struct task *t;

	for (int i = 0; i < MAX_WORKERS && !st; i++)
		if (!__atomic_exchange_n(&stats[i].live, true, __ATOMIC_ACQ_REL))
			st = &stats[i];
	if (!st)
		return -EAGAIN;
	st->w = w;
	st->cpu = cpu;
	st->iterations = st->windows = st->mismatches = 0;
	st->deadline_ns = seconds ? ktime_get_ns() + seconds * NSEC_PER_SEC : 0;
	t = kthread_create(work_thread, st, cpu, w->name);
	if (!t) {
		st->live = false;
		return -ENOMEM;
	}
	st->pid = t->pid;
	return t->pid;
}

/* One row's counters as they stood between two rounds (the seqcount's reader side). */
static void stats_snapshot(struct work_stats *st, u64 *it, u64 *win, u64 *mis)
{
	for (int tries = 0;; tries++) {
		u32 seq = __atomic_load_n(&st->seq, __ATOMIC_ACQUIRE);
		if (!(seq & 1)) {
			*it = READ_ONCE(st->iterations);
			*win = READ_ONCE(st->windows);
			*mis = READ_ONCE(st->mismatches);
			if (__atomic_load_n(&st->seq, __ATOMIC_ACQUIRE) == seq)
				return;
		}
		if (tries > 1000)
			yield(); /* the round may be the preempted task on this very CPU */
		else
			cpu_relax();
	}
}

static int workloads_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%5s %3s %-8s %12s %10s %10s\n", "PID", "CPU", "WORKLOAD", "ITERATIONS",
		   "WINDOWS", "MISMATCHES");
	for (int i = 0; i < MAX_WORKERS; i++) {
		u64 it, win, mis;
		if (!stats[i].w)
			continue;
		stats_snapshot(&stats[i], &it, &win, &mis);
		seq_printf(m, "%5d %3d %-8s %12llu %10llu %10llu%s\n", stats[i].pid, stats[i].cpu,
			   stats[i].w->name, it, win, mis, stats[i].live ? "" : " (exited)");
	}
	return 0;
}

static const struct tracefs_file workloads_file =
	TRACEFS_FILE("/proc/workloads", workloads_show, NULL);

void workloads_init(void)
{
	tracefs_create_files(NULL, &workloads_file, 1);
}
