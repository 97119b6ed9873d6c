/* Attaching probes to tracepoints: the probe array is copied, changed and swapped in whole, so the
 * iterator (__traceiter_*, interrupts off) always walks an array that stays valid under it. */
#include "kernel/tracepoint.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "kernel/smp.h"
#include "lib/errno.h"

/* Serializes changes to any tracepoint's probes; a mutex: switching keys patches code and may wait. */
static DEFINE_MUTEX(tracepoints_mutex);

/*
 * What an unregister leaves in place of a probe when it has no memory for a smaller array (as
 * Linux's tp_stub_func): calling it with the tracepoint's arguments does nothing, on x86-64 a
 * caller's extra arguments are harmless. The next copy of the array drops it.
 */
static void tp_stub_func(void)
{
}

static int nr_funcs(const struct tracepoint_func *f)
{
	int n = 0;

	while (f && f[n].func)
		n++;
	return n;
}

/* Entries that are real probes, not stubs. */
static int nr_live(const struct tracepoint_func *f)
{
	int live = 0;

	for (int i = 0; f && f[i].func; i++)
		live += f[i].func != (void *)tp_stub_func;
	return live;
}

static void sync_noop(void *unused)
{
}

/*
 * Readers walk the array with interrupts off; a CPU that took our IPI has had them on since, so it
 * is outside every walk that began before we called (Linux's synchronize_rcu() after unregister).
 */
void tracepoint_synchronize_unregister(void)
{
	smp_call_function(sync_noop, NULL, true);
}

/*
 * Swaps in the new array, switches the key if the count went to or from zero, frees the old. If
 * the key cannot switch (-EBUSY: the patcher refuses), the old array stays and new is freed.
 */
static int tp_swap(struct tracepoint *tp, struct tracepoint_func *new, int old_n, int new_n)
{
	struct tracepoint_func *old = tp->funcs;
	int err;

	if (!old_n && new_n) {
		err = tp->regfunc ? tp->regfunc() : 0;
		if (err) {
			kfree(new);
			return err;
		}
		/* The array first, then the NOPs become jmps: a call never finds no array. */
		__atomic_store_n(&tp->funcs, new, __ATOMIC_RELEASE);
		err = static_key_slow_inc(&tp->key.key);
		if (err) {
			if (tp->unregfunc)
				tp->unregfunc();
			/* The sites stayed NOPs: nobody can be walking new. */
			__atomic_store_n(&tp->funcs, old, __ATOMIC_RELEASE);
			kfree(new);
			return err;
		}
	} else if (old_n && !new_n) {
		err = static_key_slow_dec(&tp->key.key);
		if (err) {
			kfree(new);
			return err;
		}
		__atomic_store_n(&tp->funcs, new, __ATOMIC_RELEASE);
		if (tp->unregfunc)
			tp->unregfunc();
	} else {
		__atomic_store_n(&tp->funcs, new, __ATOMIC_RELEASE);
	}
	if (old) {
		tracepoint_synchronize_unregister();
		kfree(old);
	}
	return 0;
}

int tracepoint_probe_register(struct tracepoint *tp, void *probe, void *data)
{
	struct tracepoint_func *new;
	int n, err = 0;

	mutex_lock(&tracepoints_mutex);
	n = nr_funcs(tp->funcs);
	for (int i = 0; i < n; i++)
		if (tp->funcs[i].func == probe && tp->funcs[i].data == data)
			err = -EEXIST;
	new = err ? NULL : kmalloc((n + 2) * sizeof(*new));
	if (!err && !new)
		err = -ENOMEM;
	if (!err) {
		int live = nr_live(tp->funcs), j = 0;

		for (int i = 0; i < n; i++)
			if (tp->funcs[i].func != (void *)tp_stub_func)
				new[j++] = tp->funcs[i];
		new[j++] = (struct tracepoint_func){ probe, data };
		new[j] = (struct tracepoint_func){ NULL, NULL };
		err = tp_swap(tp, new, live, live + 1);
	}
	mutex_unlock(&tracepoints_mutex);
	return err;
}

/* Never fails for want of memory: a probe that cannot be copied out is stubbed in place. */
int tracepoint_probe_unregister(struct tracepoint *tp, void *probe, void *data)
{
	struct tracepoint_func *new = NULL;
	int n, live, j = 0, found = -1, err;

	mutex_lock(&tracepoints_mutex);
	n = nr_funcs(tp->funcs);
	for (int i = 0; i < n; i++)
		if (tp->funcs[i].func == probe && tp->funcs[i].data == data)
			found = i;
	if (found < 0) {
		mutex_unlock(&tracepoints_mutex);
		return -ENOENT;
	}
	live = nr_live(tp->funcs);
	if (live > 1) {
		new = kmalloc(n * sizeof(*new));
		if (!new) {
			WRITE_ONCE(tp->funcs[found].func, (void *)tp_stub_func);
			tracepoint_synchronize_unregister(); /* nobody is inside the probe any more */
			mutex_unlock(&tracepoints_mutex);
			return 0;
		}
		for (int i = 0; i < n; i++)
			if (i != found && tp->funcs[i].func != (void *)tp_stub_func)
				new[j++] = tp->funcs[i];
		new[j] = (struct tracepoint_func){ NULL, NULL };
	}
	err = tp_swap(tp, new, live, live - 1);
	mutex_unlock(&tracepoints_mutex);
	return err;
}
