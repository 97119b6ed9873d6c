/* When a kprobe becomes a jump and back (Linux's kprobe_optimizer): the candidates, the delay, and
 * the order of steps that keeps every CPU on instructions that exist.
 *
 *   armed int3 --(kick, OPTIMIZE_DELAY_MS later, the optimizer thread)-->
 *     1. detour buffer built (arch_prepare_optimized_kprobe)            refused: stays an int3
 *     2. opt_state = DETOUR: an int3 hit now runs the buffer's copy of the whole range and comes
 *        back after it, so no CPU newly arrives inside the range
 *     3. kprobes_synchronize() + synchronize_rcu_tasks(): a CPU or task that was already inside
 *        (stepped out of line just before, preempted there) has left it
 *     4. int3 + original tail -> jmp, by the patcher (old bytes checked; the int3 protocol sends
 *        a CPU that meets the int3 meanwhile to the buffer)                    opt_state = JUMP
 *   unoptimize (at once, under kprobe_mutex): jmp -> int3 + original tail; a CPU that meets the
 *   int3 meanwhile is sent through the buffer (DETOUR), never into the half-written range.
 *
 * A site is a candidate while it is an armed int3, none of its probes has a post handler (a jump
 * has no step after which to call it), the sysctl is 1 and kprobes are not all disarmed.
 */
#include "kernel/kprobes_internal.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "lib/errno.h"

/* Linux waits 5 jiffies (20 ms at Debian's HZ=250) so that many registrations share one pass. */
#define OPTIMIZE_DELAY_MS 20

unsigned long kprobes_optimization = 1;
static struct task *optimizer;
static bool optimizer_pending;
static struct text_patch_batch opt_batch = { .client = "kprobe" };

static void opt_mismatch(const struct text_poke_loc *tp, const u8 *actual, void *cookie)
{
	pr_err("kprobe bug: %pS holds %02x %02x %02x %02x %02x, expected %02x %02x %02x %02x "
	       "%02x: not changed\n",
	       tp->addr, actual[0], actual[1], actual[2], actual[3], actual[4], tp->old[0],
	       tp->old[1], tp->old[2], tp->old[3], tp->old[4]);
}

static bool opt_candidate(const struct kprobe_site *s)
{
	if (!s->armed || s->ftrace || !kprobes_optimization || kprobes_all_disarmed ||
	    s->optinsn.refused)
		return false;
	for (const struct kprobe *p = s->probes; p; p = p->next_at_site)
		if (p->post_handler)
			return false;
	return true;
}

static void set_optimized_flag(struct kprobe_site *s, bool on)
{
	for (struct kprobe *p = s->probes; p; p = p->next_at_site)
		p->flags =
			on ? p->flags | KPROBE_FLAG_OPTIMIZED : p->flags & ~KPROBE_FLAG_OPTIMIZED;
}

/* Queues s's change from one 5-byte form to the other; false if the text did not hold from. */
static bool queue_form(struct kprobe_site *s, bool to_jmp)
{
	u8 int3_form[JMP32_INSN_SIZE], jmp_form[JMP32_INSN_SIZE];

	arch_optimized_forms(s, int3_form, jmp_form);
	return !text_patch_queue(&opt_batch, s->addr, to_jmp ? int3_form : jmp_form,
				 to_jmp ? jmp_form : int3_form, JMP32_INSN_SIZE, s);
}

void kprobe_unoptimize(struct kprobe_site *s)
{
	if (s->opt_state != KPROBE_OPT_JUMP)
		return;
	opt_batch.mismatch = opt_mismatch;
	if (text_patch_begin(&opt_batch)) {
		pr_err("kprobes: %pS stays optimized: the patcher is held\n", s->addr);
		return;
	}
	/* Still DETOUR while the int3 goes back: a hit meanwhile runs the buffer's copy. */
	__atomic_store_n(&s->opt_state, KPROBE_OPT_DETOUR, __ATOMIC_RELEASE);
	if (!queue_form(s, false)) {
		text_patch_commit(&opt_batch);
		__atomic_store_n(&s->opt_state, KPROBE_OPT_JUMP, __ATOMIC_RELEASE);
		return;
	}
	text_patch_commit(&opt_batch);
	/* The whole range holds its own instructions again: stepping out of line is right. */
	__atomic_store_n(&s->opt_state, KPROBE_OPT_NONE, __ATOMIC_RELEASE);
	set_optimized_flag(s, false);
}

/* Step 1 and 2 for one site; true if it is now DETOUR, on the list for steps 3 and 4. */
static void prepare_one(struct kprobe_site *s, void *arg)
{
	struct kprobe_site ***tail = arg;
	const char *why = NULL;
	int err;

	if (s->opt_state != KPROBE_OPT_NONE || !opt_candidate(s))
		return;
	if (!s->optinsn.insn) {
		err = arch_prepare_optimized_kprobe(s, &why);
		if (err) {
			/* -ENOMEM may pass; anything else is the code's own shape. */
			s->optinsn.refused = err != -ENOMEM;
			s->optinsn.why_not = why;
			pr_debug("kprobes: %pS not optimized: %s\n", s->addr, why);
			return;
		}
	}
	if (arch_optimized_range_busy(s)) {
		s->optinsn.why_not = "another probe inside the range";
		return;
	}
	s->optinsn.why_not = NULL;
	__atomic_store_n(&s->opt_state, KPROBE_OPT_DETOUR, __ATOMIC_RELEASE);
	**tail = s;
	*tail = &s->optinsn.next;
	s->optinsn.next = NULL;
}

/* One pass of the optimizer over every site (kprobe_mutex held). */
static void do_optimize_kprobes(void)
{
	struct kprobe_site *list = NULL, **tail = &list, *s;

	kprobe_for_each_site(prepare_one, &tail);
	if (!list)
		return;
	kprobes_synchronize();
	synchronize_rcu_tasks();
	opt_batch.mismatch = opt_mismatch;
	if (text_patch_begin(&opt_batch)) {
		for (s = list; s; s = s->optinsn.next)
			__atomic_store_n(&s->opt_state, KPROBE_OPT_NONE, __ATOMIC_RELEASE);
		return; /* patch_step holds the patcher: the next kick tries again */
	}
	for (s = list; s; s = s->optinsn.next)
		s->optinsn.queued = queue_form(s, true);
	text_patch_commit(&opt_batch);
	for (s = list; s; s = s->optinsn.next) {
		__atomic_store_n(&s->opt_state,
				 s->optinsn.queued ? KPROBE_OPT_JUMP : KPROBE_OPT_NONE,
				 __ATOMIC_RELEASE);
		set_optimized_flag(s, s->optinsn.queued);
	}
}

static void optimizer_thread(void *unused)
{
	for (;;) {
		current->state = TASK_SLEEPING;
		if (__atomic_load_n(&optimizer_pending, __ATOMIC_SEQ_CST))
			current->state = TASK_RUNNING;
		else
			sleep_until_woken();
		msleep(OPTIMIZE_DELAY_MS);
		mutex_lock(&kprobe_mutex);
		__atomic_store_n(&optimizer_pending, false, __ATOMIC_SEQ_CST);
		do_optimize_kprobes();
		mutex_unlock(&kprobe_mutex);
	}
}

void kick_kprobe_optimizer(void)
{
	if (!kprobes_optimization)
		return;
	/* Only the first kick wakes it: a later one must not cut its delay short. */
	if (__atomic_exchange_n(&optimizer_pending, true, __ATOMIC_SEQ_CST))
		return;
	if (!optimizer)
		optimizer = kthread_create(optimizer_thread, NULL, 0, "kprobe_optimizer");
	if (optimizer)
		wake_up_process(optimizer);
	else
		__atomic_store_n(&optimizer_pending, false, __ATOMIC_SEQ_CST);
}

void kprobe_opt_check(struct kprobe_site *s)
{
	if (!opt_candidate(s))
		kprobe_unoptimize(s);
	else if (s->opt_state == KPROBE_OPT_NONE)
		kick_kprobe_optimizer();
}

void wait_for_kprobe_optimizer(void)
{
	while (__atomic_load_n(&optimizer_pending, __ATOMIC_SEQ_CST) && optimizer)
		msleep(5);
	/* A pass that took the flag may still run: it holds the mutex until done. */
	mutex_lock(&kprobe_mutex);
	mutex_unlock(&kprobe_mutex);
}

static void unoptimize_one(struct kprobe_site *s, void *unused)
{
	kprobe_unoptimize(s);
}

static void kick_if_candidate(struct kprobe_site *s, void *unused)
{
	/* Among them, one an int3 only because of a neighbour, which may be gone now. */
	if (s->opt_state == KPROBE_OPT_NONE && opt_candidate(s))
		kick_kprobe_optimizer();
}

void kick_kprobe_candidates(void)
{
	kprobe_for_each_site(kick_if_candidate, NULL);
}

/* Linux's optimize_all_kprobes() and unoptimize_all_kprobes(); false if v was in force already. */
bool kprobes_set_optimization(bool v)
{
	bool changed;

	mutex_lock(&kprobe_mutex);
	changed = v != kprobes_optimization;
	kprobes_optimization = v;
	if (changed)
		kprobe_for_each_site(v ? kick_if_candidate : unoptimize_one, NULL);
	mutex_unlock(&kprobe_mutex);
	return changed;
}

/* The sysctl's set, with Linux's words. */
int kprobes_optimization_set(void *data, unsigned long v)
{
	if (!kprobes_set_optimization(v))
		return 0;
	if (v)
		pr_info("kprobes: kprobe jump-optimization is enabled. All kprobes are optimized "
			"if "
			"possible.\n");
	else
		pr_info("kprobes: kprobe jump-optimization is disabled. All kprobes are based on "
			"software breakpoint.\n");
	return 0;
}
