/* Self-tests of instances/: an rmdir racing an open leaves no directory without its trace array. */
#include "kernel/fs/fs.h"
#include "kernel/locking/mutex.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/trace/ftrace.h"
#include "kernel/trace/ftrace_internal.h"
#include "kernel/trace/trace.h"
#include "lib/errno.h"
#include "lib/string.h"

static struct fnode *victim;
static volatile int rmdir_started, rmdir_done, rmdir_err;

static void rmdir_thread(void *arg)
{
	rmdir_started = 1;
	rmdir_err = fs_user_rmdir(victim);
	__atomic_store_n(&rmdir_done, 1, __ATOMIC_SEQ_CST);
}

static bool sleep_until(volatile int *v, unsigned long ms)
{
	for (unsigned long i = 0; i < ms && !*v; i++)
		msleep(1);
	return *v;
}

static bool is_instance(const struct fnode *dir)
{
	for (int i = 1; i < TRACE_ARRAY_MAX; i++)
		if (trace_arrays[i] && trace_arrays[i]->dir == dir)
			return true;
	return false;
}

/*
 * instance.tc's ls -lR opening a directory while another shell removes it, made deterministic:
 * the rmdir is held in the function tracer's stop (ftrace_lock is ours) while the directory is
 * opened. Then either the rmdir was refused and the instance is whole, or the name is gone;
 * never a name left behind with its trace array freed (an rmdir that says ENOENT for ever).
 */
SELFTEST(instance_rmdir_racing_open)
{
	struct fnode *instances, *n;
	struct task *w;

	KT_ASSERT(t, !fs_resolve(global_trace.dir, "instances", &instances));
	KT_ASSERT(t, fs_user_mkdir(instances, "selftest-race") == 0);
	victim = fs_lookup(instances, "selftest-race", strlen("selftest-race"));
	KT_ASSERT(t, victim && is_instance(victim));
	struct trace_array *tr = trace_array_of(victim);
	KT_ASSERT(t, ftrace_set_filter(tr->ops, "kthread_create", true) == 0);
	KT_ASSERT(t, trace_array_set_tracer(tr, "function") == 0);

	rmdir_started = rmdir_done = 0;
	mutex_lock(&ftrace_lock);
	w = kthread_create(rmdir_thread, NULL, smp_processor_id(), "instance-rmdir");
	if (!w)
		mutex_unlock(&ftrace_lock);
	KT_ASSERT(t, w != NULL);
	KT_EXPECT(t, sleep_until(&rmdir_started, 5000));
	msleep(20); /* time enough to pass the busy check and sleep on ftrace_lock */
	KT_EXPECT_EQ(t, rmdir_done, 0);
	fs_pin(victim); /* the open that comes while the tracer is being stopped */
	mutex_unlock(&ftrace_lock);
	KT_EXPECT(t, sleep_until(&rmdir_done, 10000));

	n = fs_lookup(instances, "selftest-race", strlen("selftest-race"));
	if (rmdir_err == -EBUSY)
		KT_EXPECT(t, n == victim && is_instance(victim));
	else
		KT_EXPECT(t, rmdir_err == 0 && n == NULL && !is_instance(victim));
	fs_unpin(victim);
	n = fs_lookup(instances, "selftest-race", strlen("selftest-race"));
	if (n && is_instance(n))
		KT_EXPECT_EQ(t, fs_user_rmdir(n), 0);
	else if (n)
		fs_remove(n); /* the broken state's leftover, so later tests start clean */
	KT_EXPECT(t, fs_lookup(instances, "selftest-race", strlen("selftest-race")) == NULL);
}
