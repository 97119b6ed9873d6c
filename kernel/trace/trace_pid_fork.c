/* event-fork and function-fork: a listed task's children join set_event_pid / set_ftrace_pid
 * (and set_event_notrace_pid / set_ftrace_notrace_pid: a task kept out keeps its children out).
 *
 *   echo 42 > set_event_pid; echo 1 > options/event-fork    (or: echo event-fork > trace_options)
 *   pid 42 forks 57          ->  set_event_pid: 42 57        (trace_pids_fork(), from kernel_clone())
 *   57 exits                 ->  set_event_pid: 42           (trace_pids_exit(), from do_exit())
 *
 * Linux: kernel/trace/trace_events.c (event_filter_pid_sched_process_fork(),
 * event_filter_pid_sched_process_exit(), probes on sched_process_fork and sched_process_free) and
 * kernel/trace/ftrace.c (ftrace_pid_follow_sched_process_fork()). Differences: the lists here are
 * arrays of 32 (a child that does not fit is not followed), and a child leaves the list when it
 * exits rather than when it is freed (the removal must not spin on a lock where freeing runs).
 * The file writers and this code both change a list; the lock below orders this code's changes,
 * a write to the file while a listed task forks may drop that one child.
 */
#include "kernel/sched/sched.h"
#include "kernel/spinlock.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/trace_events.h"

static DEFINE_SPINLOCK(pid_fork_lock);

static bool listed(const int *pids, int n, int pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* Appended where readers look last: they see the list without it or with it whole. */
static void add_child(int *pids, int *nr, int max, int parent, int child)
{
	int n = READ_ONCE(*nr);

	if (!n || !listed(pids, n, parent) || listed(pids, n, child) || n == max)
		return;
	pids[n] = child;
	__atomic_store_n(nr, n + 1, __ATOMIC_RELEASE);
}

static void remove_pid(int *pids, int *nr, int pid)
{
	int n = READ_ONCE(*nr);

	for (int i = 0; i < n; i++)
		if (pids[i] == pid) {
			pids[i] = pids[n - 1];
			__atomic_store_n(nr, n - 1, __ATOMIC_RELEASE);
			return;
		}
}

void trace_pids_fork(struct task *parent, struct task *child)
{
	bool ev = trace_option(TRACE_OPT_EVENT_FORK), fn = trace_option(TRACE_OPT_FUNCTION_FORK);

	if (!ev && !fn)
		return;
	spin_lock(&pid_fork_lock);
	if (ev) {
		add_child(event_pids, &nr_event_pids, ARRAY_SIZE(event_pids), parent->pid,
			  child->pid);
		add_child(event_notrace_pids, &nr_event_notrace_pids,
			  ARRAY_SIZE(event_notrace_pids), parent->pid, child->pid);
	}
	if (fn) {
		add_child(global_trace.pids, &global_trace.nr_pids, ARRAY_SIZE(global_trace.pids),
			  parent->pid, child->pid);
		add_child(global_trace.notrace_pids, &global_trace.nr_notrace_pids,
			  ARRAY_SIZE(global_trace.notrace_pids), parent->pid, child->pid);
	}
	spin_unlock(&pid_fork_lock);
}

void trace_pids_exit(struct task *t)
{
	bool ev = trace_option(TRACE_OPT_EVENT_FORK), fn = trace_option(TRACE_OPT_FUNCTION_FORK);

	if (!ev && !fn)
		return;
	spin_lock(&pid_fork_lock);
	/* The last one stays: an empty list means "every task" here (Linux keeps an empty list). */
	if (ev && nr_event_pids > 1)
		remove_pid(event_pids, &nr_event_pids, t->pid);
	if (ev && nr_event_notrace_pids > 1)
		remove_pid(event_notrace_pids, &nr_event_notrace_pids, t->pid);
	if (fn && global_trace.nr_pids > 1)
		remove_pid(global_trace.pids, &global_trace.nr_pids, t->pid);
	if (fn && global_trace.nr_notrace_pids > 1)
		remove_pid(global_trace.notrace_pids, &global_trace.nr_notrace_pids, t->pid);
	spin_unlock(&pid_fork_lock);
}
