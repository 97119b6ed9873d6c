/* event-fork and function-fork: a listed task's children join set_event_pid / set_ftrace_pid
 * (and set_event_notrace_pid / set_ftrace_notrace_pid: a task kept out keeps its children out),
 * in every trace array whose own option says so (an instance's options/event-fork follows its
 * own lists).
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

/* One array's four lists: the global one keeps its event lists apart (trace_events.c). */
struct pid_lists {
	int *ev, *nr_ev, *ev_no, *nr_ev_no;
};

static struct pid_lists lists_of(struct trace_array *tr)
{
	if (tr == &global_trace)
		return (struct pid_lists){ event_pids, &nr_event_pids, event_notrace_pids,
					   &nr_event_notrace_pids };
	return (struct pid_lists){ tr->event_pids, &tr->nr_event_pids, tr->event_notrace_pids,
				   &tr->nr_event_notrace_pids };
}

static void fork_in(struct trace_array *tr, int parent, int child)
{
	struct pid_lists l = lists_of(tr);

	if (trace_array_option(tr, TRACE_OPT_EVENT_FORK)) {
		add_child(l.ev, l.nr_ev, 32, parent, child);
		add_child(l.ev_no, l.nr_ev_no, 32, parent, child);
	}
	if (trace_array_option(tr, TRACE_OPT_FUNCTION_FORK)) {
		add_child(tr->pids, &tr->nr_pids, ARRAY_SIZE(tr->pids), parent, child);
		add_child(tr->notrace_pids, &tr->nr_notrace_pids, ARRAY_SIZE(tr->notrace_pids),
			  parent, child);
	}
}

/* The last one stays: an empty list means "every task" here (Linux keeps an empty list). */
static void remove_last_but_one(int *pids, int *nr, int pid)
{
	if (*nr > 1)
		remove_pid(pids, nr, pid);
}

static void exit_in(struct trace_array *tr, int pid)
{
	struct pid_lists l = lists_of(tr);

	if (trace_array_option(tr, TRACE_OPT_EVENT_FORK)) {
		remove_last_but_one(l.ev, l.nr_ev, pid);
		remove_last_but_one(l.ev_no, l.nr_ev_no, pid);
	}
	if (trace_array_option(tr, TRACE_OPT_FUNCTION_FORK)) {
		remove_last_but_one(tr->pids, &tr->nr_pids, pid);
		remove_last_but_one(tr->notrace_pids, &tr->nr_notrace_pids, pid);
	}
}

/* Whether any array follows forks: the common fork pays one look at each option word. An
 * instance is not freed while this runs: its rmdir waits for every task to have switched
 * (synchronize_rcu_tasks()), and none does while holding the spin lock below. */
static bool any_follows(void)
{
	const unsigned long bits = (1UL << TRACE_OPT_EVENT_FORK) | (1UL << TRACE_OPT_FUNCTION_FORK);

	for (int i = 0; i < TRACE_ARRAY_MAX; i++) {
		struct trace_array *tr = READ_ONCE(trace_arrays[i]);
		if (tr && (READ_ONCE(tr->options) & bits))
			return true;
	}
	return false;
}

void trace_pids_fork(struct task *parent, struct task *child)
{
	if (!any_follows())
		return;
	spin_lock(&pid_fork_lock);
	for (int i = 0; i < TRACE_ARRAY_MAX; i++) {
		struct trace_array *tr = READ_ONCE(trace_arrays[i]);
		if (tr)
			fork_in(tr, parent->pid, child->pid);
	}
	spin_unlock(&pid_fork_lock);
}

void trace_pids_exit(struct task *t)
{
	if (!any_follows())
		return;
	spin_lock(&pid_fork_lock);
	for (int i = 0; i < TRACE_ARRAY_MAX; i++) {
		struct trace_array *tr = READ_ONCE(trace_arrays[i]);
		if (tr)
			exit_in(tr, t->pid);
	}
	spin_unlock(&pid_fork_lock);
}
