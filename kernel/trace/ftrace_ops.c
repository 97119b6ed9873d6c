/* ftrace_ops: who wants which functions, their callbacks' recursion guard, and registration.
 *
 *   register_ftrace_function(ops)          ftrace_ops_list: ops -> ops -> NULL
 *   ftrace_set_filter(ops, ...)            ops->func_hash: the functions it wants
 *        |   (under ftrace_lock)
 *   ftrace_update()                        the sites follow (ftrace_update.c)
 */
#include "kernel/trace/ftrace.h"
#include "kernel/locking/mutex.h"
#include "kernel/trace/ftrace_internal.h"
#include "arch/x86/cpu.h"
#include "kernel/percpu.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

struct ftrace_ops *ftrace_ops_list;
int ftrace_enabled = 1;
struct ftrace_ops *function_trace_op;
ftrace_func_t ftrace_trace_function = ftrace_stub;
unsigned long ftrace_update_seq;
DEFINE_MUTEX(ftrace_lock); /* a mutex, as Linux's: an update patches code and may wait */

/*
 * Guards a callback against itself: a traced function called from inside it is not traced,
 * but an interrupt arriving meanwhile is (it runs in another context, with its own bit).
 * The list function has its own set of bits (base 8, as Linux's TRACE_LIST_START), so a
 * callback it calls may take the lock for itself.
 */
static int recursion_trylock(int base)
{
	struct percpu *c = this_cpu();
	int bit = base + trace_context();

	if (c->trace_recursion & (1UL << bit))
		return -1;
	/* No task switch while the bit is set: another task here would find it set and be lost. */
	c->trace_preempt++;
	c->trace_recursion |= 1UL << bit;
	barrier();
	return bit;
}

int ftrace_test_recursion_trylock(void)
{
	return recursion_trylock(0);
}

void ftrace_test_recursion_unlock(int bit)
{
	struct percpu *c = this_cpu();

	barrier();
	c->trace_recursion &= ~(1UL << bit);
	c->trace_preempt--;
}

/*
 * Waits until every other CPU has been seen outside any ftrace callback (its recursion bits all
 * clear) at least once: after that, no CPU can still hold a pointer it read from an ops list or
 * hash before our update published the new ones. Our poor man's synchronize_rcu().
 */
void ftrace_synchronize(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			while (READ_ONCE(percpu_area[cpu].trace_recursion))
				cpu_relax();
}

bool ftrace_ops_test(struct ftrace_ops *ops, unsigned long ip)
{
	struct ftrace_ops_hash *h = ops->func_hash;

	return (ftrace_hash_empty(h->filter_hash) || ftrace_lookup_hash(h->filter_hash, ip)) &&
	       !ftrace_lookup_hash(h->notrace_hash, ip);
}

/* What ftrace_call calls when several ops are live: each one whose sets accept this function. */
void ftrace_ops_list_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *ignored,
			  struct pt_regs *regs)
{
	int bit = recursion_trylock(8);

	if (bit < 0)
		return;
	for (struct ftrace_ops *op = READ_ONCE(ftrace_ops_list); op; op = READ_ONCE(op->next)) {
		/* An ops that needs registers cannot run from the plain ftrace_caller. */
		if ((op->flags & FTRACE_OPS_FL_SAVE_REGS) && !regs)
			continue;
		if ((op->flags & FTRACE_OPS_FL_ENABLED) && ftrace_ops_test(op, ip))
			op->func(ip, parent_ip, op, regs);
	}
	ftrace_test_recursion_unlock(bit);
}

/* Linux's ftrace_ops_get_func: what a trampoline for ops calls. */
ftrace_func_t ftrace_ops_get_func(const struct ftrace_ops *ops)
{
	return ops->flags & FTRACE_OPS_FL_RECURSION ? ops->func : ftrace_ops_assist_func;
}

/* A tracer's own template does its callback's work inline, so only for an ops whose trampoline
 * calls that callback directly; any other gets the template its flags ask for. */
int ftrace_ops_tramp_kind(const struct ftrace_ops *ops)
{
	if (ops->tramp_kind && ftrace_ops_get_func(ops) == ops->func)
		return ops->tramp_kind;
	return ftrace_ops_regs(ops) ? FTRACE_TRAMP_REGS_CALLER : FTRACE_TRAMP_CALLER;
}

/* A single ops that does not guard itself against recursion is called through this. */
void ftrace_ops_assist_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			    struct pt_regs *regs)
{
	int bit = ftrace_test_recursion_trylock();

	if (bit < 0)
		return;
	op->func(ip, parent_ip, op, regs);
	ftrace_test_recursion_unlock(bit);
}

/*
 * ftrace_lock, and ftrace_update_seq odd for as long as it is held: anything that changes which
 * ops are live or what they want (flags, lists, sets) happens inside, so a reader that sees the
 * same even value before and after knows none of it changed (the spin workload relies on it).
 *
 * The patch batch is opened first, for the whole update (Linux holds text_mutex for a whole
 * update too, from ftrace_arch_code_modify_prepare(), but takes it inside ftrace_lock): so the
 * patcher's one refusal (-EBUSY while patch_step holds a batch, and with it ftrace_lock) comes
 * before any lock a held batch keeps. Order: text_mutex, then ftrace_lock.
 */
int ftrace_lock_update(void)
{
	int err = text_patch_begin(&ftrace_patch_batch);

	if (err)
		return err;
	mutex_lock(&ftrace_lock);
	__atomic_add_fetch(&ftrace_update_seq, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void ftrace_unlock_update(void)
{
	__atomic_add_fetch(&ftrace_update_seq, 1, __ATOMIC_SEQ_CST);
	mutex_unlock(&ftrace_lock);
	text_patch_commit(&ftrace_patch_batch);
}

/* Gives ops a trampoline of its own, if it can have one; without, it is called from the shared
 * callers, which works too, only slower. Under ftrace_lock. */
static void ftrace_ops_trampoline_get(struct ftrace_ops *ops)
{
	int err;

	if (FTRACE_STATIC || ops->trampoline ||
	    (ops->flags & (FTRACE_OPS_FL_DIRECT | FTRACE_OPS_FL_NO_TRAMP)))
		return; /* the static build calls no site's own target: no trampolines */
	err = arch_ftrace_create_trampoline(ftrace_ops_tramp_kind(ops), ops,
					    (unsigned long)ftrace_ops_get_func(ops),
					    &ops->trampoline, &ops->trampoline_size);
	if (err)
		pr_warn("ftrace: no trampoline for %s (%d): using the shared callers\n", ops->name,
			err);
}

/*
 * After an update that left no site calling it: wait until no task can still be inside the
 * trampoline (one may have been preempted there), then free it. Sleeps. The ops no longer owns it
 * (unregister took it under the lock), so registering the ops again meanwhile makes a new one.
 */
static void ftrace_trampoline_put(unsigned long tramp)
{
	if (!tramp)
		return;
	synchronize_rcu_tasks();
	mutex_lock(&ftrace_lock);
	arch_ftrace_trampoline_free(tramp);
	mutex_unlock(&ftrace_lock);
}

/* Two ops may not both move the ip of one function (which replacement would win?), nor two
 * direct calls share one (a site has one `call`), nor a direct call and an ip-modifying ops (which
 * of the two would the site return to?). */
static bool ops_conflict(struct ftrace_ops *ops)
{
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;

	if (!(ops->flags & (FTRACE_OPS_FL_DIRECT | FTRACE_OPS_FL_IPMODIFY)))
		return false;
	for_each_ftrace_rec(pg, rec) {
		if ((rec->flags & (FTRACE_FL_DIRECT | FTRACE_FL_IPMODIFY)) &&
		    ftrace_ops_test(ops, rec->ip))
			return true;
	}
	return false;
}

/*
 * For a live ops whose sets just changed: would some function now have two ops moving its ip, two
 * direct calls, or one of each? (register checks before the ops is listed, with the helpers
 * above; a live ops is already counted in the records, so here every ops is counted afresh.)
 */
static bool live_ops_clash(struct ftrace_ops *ops)
{
	const unsigned long mask = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_DIRECT;
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;

	if (!(ops->flags & FTRACE_OPS_FL_ENABLED) || !(ops->flags & mask))
		return false;
	for_each_ftrace_rec(pg, rec) {
		int owners = 0;
		if (!ftrace_ops_test(ops, rec->ip))
			continue;
		for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next)
			owners += (op->flags & FTRACE_OPS_FL_ENABLED) && (op->flags & mask) &&
				  ftrace_ops_test(op, rec->ip);
		if (owners > 1)
			return true;
	}
	return false;
}

int register_ftrace_function(struct ftrace_ops *ops)
{
	int err;

	if (!ops->func_hash)
		ops->func_hash = &ops->local_hash;
	/* An ops that moves the ip needs the registers, and must say which functions it replaces. */
	if ((ops->flags & FTRACE_OPS_FL_IPMODIFY) &&
	    (!(ops->flags & FTRACE_OPS_FL_SAVE_REGS) ||
	     ftrace_hash_empty(ops->func_hash->filter_hash)))
		return -EINVAL;
	if (FTRACE_STATIC && ftrace_static_check_ops(ops))
		return -EINVAL; /* needs registers: only dynamic ftrace has ftrace_regs_caller */
	err = ftrace_lock_update();
	if (err)
		return err;
	if (ftrace_disabled)
		err = -ENODEV;
	else if (ops->flags & FTRACE_OPS_FL_ENABLED)
		err = -EBUSY;
	else if ((ops->flags & FTRACE_OPS_FL_PERMANENT) && !ftrace_enabled)
		err = -EBUSY; /* it would be registered, and silently never called */
	else if (ops_conflict(ops))
		err = -EBUSY;
	else {
		ftrace_ops_trampoline_get(ops);
		ops->next = ftrace_ops_list;
		ops->flags |= FTRACE_OPS_FL_ENABLED;
		/* Publish only a fully built ops: list walkers may run on other CPUs. */
		__atomic_store_n(&ftrace_ops_list, ops, __ATOMIC_RELEASE);
		err = ftrace_update();
	}
	ftrace_unlock_update();
	return err;
}

int unregister_ftrace_function(struct ftrace_ops *ops)
{
	return ftrace_step_unregister(ops, NULL, NULL, 0, 0);
}

/* Under the update lock: where ops stands on ftrace_ops_list, or NULL when it is not listed. */
static struct ftrace_ops **ftrace_ops_find(struct ftrace_ops *ops)
{
	struct ftrace_ops **pp;

	for (pp = &ftrace_ops_list; *pp && *pp != ops; pp = &(*pp)->next)
		;
	return *pp ? pp : NULL;
}

/* Takes the ops at *pp off the list; an update then stops its sites calling it. */
static void ftrace_ops_unlink(struct ftrace_ops **pp)
{
	struct ftrace_ops *ops = *pp;

	WRITE_ONCE(*pp, ops->next);
	ops->flags &= ~FTRACE_OPS_FL_ENABLED;
}

/*
 * The end of an unregister, err being its update's result: drops the update lock and frees ops's
 * trampoline once no CPU can still be walking the list through ops. On error some site may still
 * call it: it keeps its trampoline.
 */
static int ftrace_ops_unlisted(struct ftrace_ops *ops, int err)
{
	unsigned long tramp = 0;

	if (!err) {
		tramp = ops->trampoline;
		ops->trampoline = ops->trampoline_size = 0;
	}
	ftrace_unlock_update();
	ftrace_synchronize();
	ftrace_trampoline_put(tramp);
	return err;
}

/*
 * unregister_ftrace_function(), which patch_step may steer back before its commit point: when
 * aborted() says so after the update, the one site was put back to calling ops. Then ops goes back
 * on the list where it was, keeps its trampoline (never freed: some CPU may be in it), and rec gets
 * the state its bytes say (flags and target saved before); a second update restores the callers'
 * call. Only patch_step passes aborted; everyone else gets a plain unregister.
 */
int ftrace_step_unregister(struct ftrace_ops *ops, bool (*aborted)(void), struct dyn_ftrace *rec,
			   unsigned long flags, unsigned long target)
{
	struct ftrace_ops **pp;
	int err = ftrace_lock_update();

	if (err)
		return err;
	pp = ftrace_ops_find(ops);
	if (!pp || ftrace_disabled) {
		/* A dead ftrace changes no code: sites may still call this ops, so it stays listed. */
		ftrace_unlock_update();
		return pp ? -ENODEV : -EINVAL;
	}
	ftrace_ops_unlink(pp);
	err = ftrace_update();
	if (!err && aborted && aborted()) {
		ops->flags |= FTRACE_OPS_FL_ENABLED;
		__atomic_store_n(pp, ops,
				 __ATOMIC_RELEASE); /* ops->next is still its old successor */
		rec->flags = flags;
		rec->target = target;
		err = ftrace_update();
		ftrace_unlock_update();
		return err;
	}
	return ftrace_ops_unlisted(ops, err);
}

/*
 * patch_step's abort before the commit point: the register of ops went through, but its one site
 * was steered back to the bytes it had (text_poke_bp_revert). Unlists ops, gives rec the state
 * its bytes say (flags and target as saved before), and updates, which now leaves rec alone and
 * puts the callers' call back to what the remaining ops need.
 */
int ftrace_step_undo_register(struct ftrace_ops *ops, struct dyn_ftrace *rec, unsigned long flags,
			      unsigned long target)
{
	struct ftrace_ops **pp;
	int err = ftrace_lock_update();

	if (err)
		return err;
	pp = ftrace_ops_find(ops);
	if (!pp) {
		ftrace_unlock_update();
		return -EINVAL;
	}
	ftrace_ops_unlink(pp);
	rec->flags = flags;
	rec->target = target;
	return ftrace_ops_unlisted(ops, ftrace_update());
}

/* Under text_mutex, which an update holds throughout: the method never changes in the middle. */
int ftrace_set_patch_method(enum patch_method m)
{
	return text_patch_set_method(m);
}

static bool permanent_ops_live(void)
{
	for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next)
		if ((op->flags & (FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_PERMANENT)) ==
		    (FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_PERMANENT))
			return true;
	return false;
}

int ftrace_set_enabled(int on)
{
	int err = ftrace_lock_update();

	if (err)
		return err;
	if (ftrace_disabled) {
		err = -ENODEV;
	} else if (!on && permanent_ops_live()) {
		err = -EBUSY; /* a livepatch would silently stop applying */
	} else {
		ftrace_enabled = on;
		err = ftrace_update();
	}
	ftrace_unlock_update();
	return err;
}

/*
 * Replaces one of an ops's sets with a new one, and brings the sites in line. The old set is
 * freed only after the update, when no call site can be using it through this ops any more.
 */
int ftrace_hash_move_and_update(struct ftrace_ops *ops, bool filter, struct ftrace_hash *new)
{
	struct ftrace_hash **slot;

	if (!ops->func_hash)
		ops->func_hash = &ops->local_hash;
	slot = filter ? &ops->func_hash->filter_hash : &ops->func_hash->notrace_hash;
	struct ftrace_hash *old;
	int err = 0;

	/* An empty set is kept as no set (NULL), as at boot: a hash holds 2 kB of buckets however
	 * few entries it has, and clearing a filter should give them back. */
	if (new && !new->count) {
		free_ftrace_hash(new);
		new = NULL;
	}
	err = ftrace_lock_update();
	if (err || ftrace_disabled) {
		if (!err)
			ftrace_unlock_update();
		free_ftrace_hash(new);
		return err ? err : -ENODEV;
	}
	old = *slot;
	WRITE_ONCE(*slot, new);
	if (live_ops_clash(ops)) {
		/* Nothing ran with the new set: no update has been made. */
		WRITE_ONCE(*slot, old);
		ftrace_unlock_update();
		free_ftrace_hash(new);
		return -EBUSY;
	}
	err = ftrace_update();
	ftrace_unlock_update();
	ftrace_synchronize(); /* a list walk that read the old set has finished */
	free_ftrace_hash(old);
	return err;
}

static int ftrace_set_hash(struct ftrace_ops *ops, const char *buf, bool reset, bool filter)
{
	struct ftrace_hash *cur, *new;
	int err;

	if (!ops->func_hash)
		ops->func_hash = &ops->local_hash;
	cur = filter ? ops->func_hash->filter_hash : ops->func_hash->notrace_hash;
	new = ftrace_build_hash(cur, buf, reset, &err);
	return new ? ftrace_hash_move_and_update(ops, filter, new) : err;
}

int ftrace_set_filter(struct ftrace_ops *ops, const char *buf, bool reset)
{
	return ftrace_set_hash(ops, buf, reset, true);
}

int ftrace_set_notrace(struct ftrace_ops *ops, const char *buf, bool reset)
{
	return ftrace_set_hash(ops, buf, reset, false);
}

int ftrace_set_filter_ip(struct ftrace_ops *ops, unsigned long ip, bool remove, bool reset)
{
	struct ftrace_hash *new;

	if (!ftrace_lookup_ip(ip))
		return -ENOENT;
	if (!ops->func_hash)
		ops->func_hash = &ops->local_hash;
	new = reset ? alloc_ftrace_hash(0)
		    : alloc_and_copy_ftrace_hash(ops->func_hash->filter_hash);
	if (!new)
		return -ENOMEM;
	if (remove)
		ftrace_hash_remove(new, ip);
	else if (ftrace_hash_add(new, ip)) {
		free_ftrace_hash(new);
		return -ENOMEM;
	}
	return ftrace_hash_move_and_update(ops, true, new);
}
