/* The scheduler: a run queue per CPU by class, preemption at timer ticks and wake-ups, tasks
 * moved between CPUs by kernel/sched/migrate.c.
 *
 *   CPU n:  runq  dl, rt, fair lists (kernel/sched/rq.h; the running task is on none)
 *           tasks -> every live task of CPU n      (sleepers are woken from here by the tick)
 *           idle  <idle>-0, runs when runq is empty
 *
 * schedule() runs with interrupts off: it puts the current task back (if it can still run), takes
 * the first of the highest class (pick_next_task()), and switch_to()s to it. A timer tick only sets need_resched; the switch
 * happens as the interrupt returns, never in the middle of a handler or with preemption disabled.
 */
#include "kernel/sched/rq.h"
#include "arch/x86/process.h"
#include "kernel/kprobes.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/mm/mm.h"
#include "kernel/thread_group.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/signal.h"
#include "kernel/time.h"
#include "kernel/trace/fgraph.h"
#include "kernel/trace/trace.h"
#include "lib/string.h"
#include "kernel/trace/events/sched.h"
#include "kernel/trace/events/timer.h"
#include "kernel/events/uprobes.h"
#include "kernel/events/perf_event.h"

struct runqueue runqueues[NR_CPUS];
static struct task idle_tasks[NR_CPUS];
static int next_pid = 1;

struct task *switch_to(struct task *prev, struct task *next);
void task_entry(void);
void sched_task_dead(struct task *p);

/* A task becomes runnable: a deadline task may need a new deadline, or wait for its period. */
static void activate_task(struct runqueue *rq, struct task *t)
{
	if (dl_policy(t->policy)) {
		dl_wakeup(t, ktime_get_ns());
		if (t->dl.dl_throttled)
			return;
	}
	enqueue_task(rq, t, false);
}

void sched_init_cpu(int cpu)
{
	struct task *idle = &idle_tasks[cpu];

	idle->pid = 0;
	strscpy(idle->comm, "<idle>", sizeof(idle->comm));
	idle->cpu = cpu;
	idle->state = TASK_RUNNING;
	idle->prio = DEFAULT_PRIO;
	idle->cpus_mask = 1UL << cpu;
	idle->on_cpu = true;
	percpu_area[cpu].idle = idle;
	percpu_area[cpu].curr = idle;
	runqueues[cpu].curr = idle;
	percpu_area[cpu].ctx_pid = idle->pid;
	percpu_area[cpu].fgraph = &fgraph_no_stack;
}

void free_task(struct task *t)
{
	trace_sched_process_free(t);
	uprobe_free_utask(t);
	exit_thread_group(t);
	free_pages_for(__pa(t->stack), TASK_STACK_PAGES, PAGE_USER_STACK);
	kfree(t->fgraph);
	kfree(t->fpu);
	kfree(t);
}

/* Frees the stacks of tasks that exited; never the one we may still be standing on. */
static void reap_dead(struct runqueue *rq)
{
	while (rq->dead) {
		struct task *t = rq->dead;
		rq->dead = t->rq_next;
		free_task(t);
	}
}

static DEFINE_SPINLOCK(tasklist_lock);

unsigned long tasklist_lock_irqsave(void)
{
	return spin_lock_irqsave(&tasklist_lock);
}

void tasklist_unlock_irqrestore(unsigned long flags)
{
	spin_unlock_irqrestore(&tasklist_lock, flags);
}

/*
 * Now on the next task's stack, interrupts off: prev may have exited, and its stack can go once
 * nobody stands on it. A kernel thread's goes at the next tick; a process's stays a zombie until
 * its parent's wait4() takes its status (kernel/exit.c), so the parent is woken now, not before:
 * until this point the zombie's stack was still in use.
 */
void schedule_tail(struct task *prev)
{
	/* prev's registers are saved and its stack is left: another CPU may take it from here. */
	__atomic_store_n(&prev->on_cpu, false, __ATOMIC_RELEASE);
	if (prev->state != TASK_DEAD) {
		migrate_off_forbidden(prev);
		return;
	}
	if (prev->tgid) {
		spin_lock(&tasklist_lock);
		prev->off_cpu = true;
		if (prev->parent) {
			wake_up_parent(prev->parent);
			spin_unlock(&tasklist_lock);
			return;
		}
		/* An orphan leader whose threads live on: the last of them frees it. */
		if (prev->pid == prev->tgid && delay_group_leader(prev)) {
			spin_unlock(&tasklist_lock);
			return;
		}
		spin_unlock(&tasklist_lock);
	}
	spin_lock(&runqueues[prev->cpu].lock);
	prev->rq_next = runqueues[prev->cpu].dead;
	runqueues[prev->cpu].dead = prev;
	spin_unlock(&runqueues[prev->cpu].lock);
}

/* preempt: called at an interrupt's end, not by the task itself. */
static void __schedule(bool preempt)
{
	unsigned long flags = local_irq_save();
	struct percpu *c = this_cpu();
	struct runqueue *rq = &runqueues[c->cpu];
	struct task *prev = c->curr, *next;
	u64 now = ktime_get_ns();

	spin_lock(&rq->lock);
	clear_need_resched();
	/*
	 * A task that calls schedule() is in none of the code synchronize_rcu_tasks() guards (no
	 * trampoline frame is left on its stack). One preempted may be anywhere, except the idle
	 * task: its loop runs with interrupts off but for the `sti; hlt`, so that is where it was.
	 */
	prev->preempted = preempt && prev != c->idle;
	if (!prev->preempted)
		prev->tasks_qs++;
	if (dl_policy(prev->policy))
		update_curr_dl(prev, now);
	else if (rt_policy(prev->policy) && prev != c->idle)
		rt_charge(rq, now);
	/* A real-time task that did not yield keeps its place before its equals. One whose mask
	 * no longer has this CPU is left off: schedule_tail() moves it once it is switched out. */
	if (prev != c->idle && prev->state == TASK_RUNNING && !prev->dl.dl_throttled &&
	    (prev->cpus_mask & (1UL << c->cpu)))
		enqueue_task(rq, prev, !prev->yielded);
	prev->yielded = false;
	next = pick_next_task(rq);
	if (!next)
		next = c->idle;
	if (dl_policy(next->policy))
		next->dl.exec_start = now;
	else if (rt_policy(next->policy))
		rq->rt_exec_start = now;
	rq->curr = next;
	next->on_cpu = true;
	spin_unlock(&rq->lock);

	if (next != prev) {
		next->switches++;
		if (next->pid)
			trace_save_cmdline(next->pid, next->comm); /* as Linux: names stay fresh */
		trace_record_tgid(next);
		trace_sched_switch(prev->preempted, prev, next);
		if (unlikely(READ_ONCE(perf_sw_events)))
			perf_sw_context_switch(prev, next);
		/* Still prev's stack and prev as curr: the stack tracer measures against curr's. */
		__switch_to_xtra(prev, next);
		c->curr = next;
		c->ctx_pid = next->pid; /* what events record from now on */
		/* A preempted task may hold spinlocks (ours leave preemption on): its count goes
		 * with it, and the next task finds its own. */
		prev->spinlocks_held = c->spinlocks_held;
		c->spinlocks_held = next->spinlocks_held;
		c->fgraph = next->fgraph ? next->fgraph : &fgraph_no_stack; /* ftrace_fast.asm's */
		prev = switch_to(prev, next);
		schedule_tail(prev);
	}
	local_irq_restore(flags);
}

void schedule(void)
{
	might_sleep();
	__schedule(false);
}

/*
 * Sleeping with a spinlock held: every other CPU that wants the lock spins for the whole sleep,
 * and a task on this CPU that wants it spins until the timer moves it aside. Reported once per
 * caller and innermost lock in a row (a loop of msleep(1) under a lock would flood the console
 * otherwise); the lock validator, when built in, names the locks held.
 */
unsigned long might_sleep_reports;

void __might_sleep(const char *file, int line)
{
	static unsigned long last_caller;
	unsigned long caller = (unsigned long)__builtin_return_address(0);
	unsigned long key = caller ^ (unsigned long)lockdep_held_spinlock();
	struct percpu *c = this_cpu();
	struct task *t = c->curr;

	if (likely(c->spinlocks_held <= 0 || c->irq_depth || c->nmi_depth))
		return;
	if (READ_ONCE(last_caller) == key)
		return;
	WRITE_ONCE(last_caller, key);
	might_sleep_reports++;
	printk(KERN_ERR "BUG: sleeping function called from invalid context at %s:%d\n", file,
	       line);
	printk(KERN_ERR "in_atomic(): 1, irqs_disabled(): %d, pid: %d, name: %s\n", irqs_disabled(),
	       t ? t->pid : 0, t ? t->comm : "?");
	printk(KERN_ERR "spinlocks held: %d, expected: 0 (called from %pS)\n", c->spinlocks_held,
	       (void *)caller);
	show_stack(0, (unsigned long)__builtin_frame_address(0));
	lockdep_print_held_locks();
}

void cond_resched(void)
{
	WRITE_ONCE(current->tasks_qs, current->tasks_qs + 1);
	if (need_resched())
		schedule();
}

/* A new task starts here (via task_entry), on its own stack, with interrupts still off. */
void __noreturn task_main(struct task *prev, struct task *self)
{
	schedule_tail(prev);
	local_irq_enable();
	self->fn(self->arg);
	task_exit();
}

struct task *alloc_task(const char *name, int cpu)
{
	struct task *t = kzalloc(sizeof(*t));
	unsigned long stack = alloc_pages_for(TASK_STACK_PAGES, PAGE_USER_STACK);

	if (!t || !stack || !cpu_online(cpu)) {
		kfree(t);
		if (stack)
			free_pages_for(stack, TASK_STACK_PAGES, PAGE_USER_STACK);
		return NULL;
	}
	t->stack = __va(stack);
	t->pid = __atomic_fetch_add(&next_pid, 1, __ATOMIC_RELAXED);
	strscpy(t->comm, name, sizeof(t->comm));
	t->cpu = cpu;
	t->cpus_mask = 1UL << cpu; /* a kernel thread is bound; fork gives its parent's */
	t->start_ns = ktime_get_ns();
	t->prio = DEFAULT_PRIO;
	t->rr_slice = RR_TIMESLICE;
	ftrace_graph_init_task(t);
	trace_save_cmdline(t->pid, t->comm); /* the trace prints names; saved once, not per event */
	return t;
}

void wake_up_new_task(struct task *t)
{
	struct runqueue *rq;
	unsigned long flags;

	/* On no list yet: its CPU is chosen by a plain store (Linux's __set_task_cpu()). */
	t->cpu = select_task_rq(t, t->cpu);
	rq = &runqueues[t->cpu];
	t->state = TASK_RUNNING;
	flags = spin_lock_irqsave(&rq->lock);
	t->cpu_next = rq->tasks;
	rq->tasks = t;
	enqueue_task(rq, t, false);
	spin_unlock_irqrestore(&rq->lock, flags);
	smp_send_reschedule(rq - runqueues);
}

struct task *kthread_create(void (*fn)(void *), void *arg, int cpu, const char *name)
{
	struct task *t = alloc_task(name, cpu);
	unsigned long *sp;

	if (!t)
		return NULL;
	t->fn = fn;
	t->arg = arg;
	/* The frame switch_to pops: r15 r14 r13 r12 rbx rbp, then the return address. */
	sp = (unsigned long *)task_top_of_stack(t);
	/* No padding: after switch_to's ret, rsp is the (aligned) top, so task_entry's call
	 * enters task_main with rsp 8 mod 16, as the ABI wants. */
	*--sp = (unsigned long)task_entry;
	*--sp = 0;		  /* rbp */
	*--sp = (unsigned long)t; /* rbx: the task, for task_entry */
	for (int i = 0; i < 4; i++)
		*--sp = 0; /* r12..r15 */
	t->rsp = (unsigned long)sp;
	wake_up_new_task(t);
	return t;
}

void task_exit(void)
{
	struct task *self = current;
	struct runqueue *rq = &runqueues[self->cpu];
	unsigned long flags;

	trace_sched_process_exit(self);
	kretprobe_flush_task(self);
	flags = spin_lock_irqsave(&rq->lock);
	for (struct task **pp = &rq->tasks; *pp; pp = &(*pp)->cpu_next)
		if (*pp == self) {
			*pp = self->cpu_next;
			break;
		}
	self->state = TASK_DEAD;
	sched_task_dead(self);
	spin_unlock_irqrestore(&rq->lock, flags);
	schedule();
	panic("a dead task was scheduled");
}

void yield(void)
{
	current->yielded = true;
	schedule();
}

void sleep_until_woken(void)
{
	schedule();
}

/*
 * A sleep's timer expired (from scheduler_tick, rq lock held): the task runs again. Linux's
 * sleepers have hrtimer_wakeup here; this is the function the timer events name.
 */
/* The sleep ran out: a wakeup like any other, so it is traced as Linux's hrtimer_wakeup() ->
 * wake_up_process() traces it (wakeup-latency histograms start at this sched_waking). */
static noinline void msleep_wakeup(struct task *t)
{
	trace_sched_waking(t);
	t->state = TASK_RUNNING;
	t->wake_at = 0;
	if (runqueues[t->cpu].curr != t)
		activate_task(&runqueues[t->cpu], t);
	/* Linux's ttwu_do_wakeup() asks for the preemption before sched_wakeup: the event's
	 * need-resched flag then says whether the woken task takes the CPU, every time. */
	if (task_preempts(t, runqueues[t->cpu].curr) &&
	    !(rt_policy(t->policy) && runqueues[t->cpu].rt_throttled))
		set_need_resched();
	trace_sched_wakeup(t);
}

void sleep_timer_arm(u64 until)
{
	struct task *self = current;
	bool was_armed = self->wake_at != 0;

	self->wake_at = until;
	trace_hrtimer_start(&self->wake_at, (void *)msleep_wakeup, self->wake_at, HRTIMER_MODE_ABS,
			    was_armed);
}

void msleep(unsigned long ms)
{
	unsigned long flags;

	might_sleep();
	flags = local_irq_save();
	sleep_timer_arm(ktime_get_ns() + ms * 1000000ULL);
	current->state = TASK_SLEEPING;
	local_irq_restore(flags);
	__schedule(false); /* might_sleep() said its word above */
}

/*
 * msleep that a signal ends. The state is set before the signal is looked for: a sender sets its
 * pending bit and then reads the state under the runqueue lock (wake_up_process()), so one of
 * the two sees the other (Linux's set_current_state() then signal_pending_state()). Looked for
 * first, a signal sent in between met a task still running and was slept through: a SIGTERM
 * right after `sleep 30 &` began lasted the 30 s.
 */
void msleep_interruptible(unsigned long ms)
{
	struct task *self = current;
	unsigned long flags;

	might_sleep();
	flags = local_irq_save();
	sleep_timer_arm(ktime_get_ns() + ms * 1000000ULL);
	self->state = TASK_SLEEPING;
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the store above before the load below */
	if (signal_pending(self)) {
		self->state = TASK_RUNNING;
		trace_hrtimer_cancel(&self->wake_at);
		self->wake_at = 0;
		local_irq_restore(flags);
		return;
	}
	local_irq_restore(flags);
	__schedule(false);
}

void wake_up_process(struct task *t)
{
	unsigned long flags = local_irq_save();
	struct runqueue *rq = task_rq_lock(t);
	bool woke, preempt = false;
	int cpu;

	/* Switched out asleep: it may wake on another CPU (kernel/sched/migrate.c). */
	if (t->state == TASK_SLEEPING && rq->curr != t)
		rq = ttwu_select(t, rq);
	woke = t->state == TASK_SLEEPING;
	if (woke) {
		trace_sched_waking(t);
		t->state = TASK_RUNNING;
		if (t->wake_at) /* woken before its sleep ran out: the timer is disarmed */
			trace_hrtimer_cancel(&t->wake_at);
		t->wake_at = 0;
		/* A task that set SLEEPING but has not reached __schedule() yet is still the one this
		 * CPU runs: __schedule() will find it RUNNING and keep it. Once __schedule() has left
		 * it out (rq->curr moved on), it must be enqueued here, even before switch_to(). */
		if (rq->curr != t)
			activate_task(rq, t);
		trace_sched_wakeup(t);
		/* Only a task that beats the running one takes its CPU now (a fair task beats a
		 * fair one: round robin). */
		preempt = task_preempts(t, rq->curr) && !(rt_policy(t->policy) && rq->rt_throttled);
	}
	cpu = rq - runqueues; /* t->cpu may change once the lock is let go */
	spin_unlock(&rq->lock);
	local_irq_restore(flags);
	if (preempt && cpu == smp_processor_id())
		set_need_resched();
	else if (preempt)
		smp_send_reschedule(cpu);
}

/* From the timer interrupt: wake sleepers whose time has come, and time-slice the rest. */
void scheduler_tick(void)
{
	struct percpu *c = this_cpu();
	struct runqueue *rq = &runqueues[c->cpu];
	u64 now = ktime_get_ns();

	spin_lock(&rq->lock);
	for (struct task *t = rq->tasks; t; t = t->cpu_next) {
		if (t->state == TASK_SLEEPING && t->wake_at && t->wake_at <= now) {
			trace_hrtimer_expire_entry(&t->wake_at, now, (void *)msleep_wakeup);
			msleep_wakeup(t);
			trace_hrtimer_expire_exit(&t->wake_at);
		}
	}
	dl_replenish_due(rq, now);
	if (rt_period_tick(rq, c->curr, now) | task_tick(rq, c->curr, now))
		set_need_resched();
	reap_dead(rq);
	spin_unlock(&rq->lock);
}

/* The end of an interrupt, interrupts off: the one place a task is preempted. */
void preempt_schedule_irq(void)
{
	struct percpu *c = this_cpu();

	/*
	 * Not a task on its way to sleep (state set, schedule() a few instructions away): switched
	 * out here it would leave the run queue while perhaps still inside a trampoline, and wait
	 * for a wake-up that may never come; synchronize_rcu_tasks() would wait with it.
	 */
	if (need_resched() && !c->preempt_count && !c->trace_preempt && !c->irq_depth &&
	    !c->nmi_depth && c->curr->state == TASK_RUNNING)
		__schedule(true);
}

void cpu_idle(void)
{
	for (;;) {
		/*
		 * Interrupts are on only inside `sti; hlt` (and at the `cli` after it): the one place an
		 * interrupt can find us, which __schedule() counts on. The interrupt that wakes us may
		 * have made work; schedule() keeps interrupts as they are.
		 */
		local_irq_disable();
		if (!need_resched())
			safe_halt();
		local_irq_disable();
		schedule();
	}
}

struct task *find_task(int pid)
{
	unsigned long seq;
	struct task *found;
	int cpu;

again:
	found = NULL;
	seq = __atomic_load_n(&sched_migrations, __ATOMIC_ACQUIRE);
	for_each_online_cpu(cpu) {
		unsigned long flags = spin_lock_irqsave(&runqueues[cpu].lock);
		for (struct task *t = runqueues[cpu].tasks; t && !found; t = t->cpu_next)
			if (t->pid == pid)
				found = t;
		spin_unlock_irqrestore(&runqueues[cpu].lock, flags);
	}
	/* A task that moved from a list not yet walked to one already walked was missed. */
	if (!found && __atomic_load_n(&sched_migrations, __ATOMIC_ACQUIRE) != seq)
		goto again;
	return found;
}

int kthread_stop(int pid)
{
	struct task *t = find_task(pid);

	if (!t)
		return -1;
	t->should_stop = true;
	wake_up_process(t);
	return 0;
}

void for_each_task(void (*fn)(struct task *t, void *arg), void *arg)
{
	int cpu;

	for_each_online_cpu(cpu) {
		unsigned long flags = spin_lock_irqsave(&runqueues[cpu].lock);
		fn(&idle_tasks[cpu], arg);
		for (struct task *t = runqueues[cpu].tasks; t; t = t->cpu_next)
			fn(t, arg);
		spin_unlock_irqrestore(&runqueues[cpu].lock, flags);
	}
}
