/* The software PMU: cpu-clock, task-clock, context-switches, page-faults, counted where they happen.
 *
 *   __schedule()       -> perf_sw_context_switch()  context-switches; the clocks of the task
 *                                                    leaving stop, those of the task coming start
 *   timer_tick()       -> perf_sw_timer_tick()      a clock event that samples takes its sample
 *   do_page_fault()    -> perf_sw_page_fault()      page-faults (every one is minor here)
 *
 * cpu-migrations stays 0: a task never leaves the CPU it was made for in this kernel.
 * Linux: kernel/events/core.c (perf_swevent_*, cpu_clock_event_*, task_clock_event_*); Linux
 * samples its clocks from an hrtimer at the period asked for, we from the HZ tick.
 */
#include "kernel/events/perf_event.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

#define TICK_NSEC (NSEC_PER_SEC / HZ)

int perf_sw_events;
/* One list per software event, newest first; changed under perf_mutex (core.c), walked with
 * interrupts off. */
static struct perf_event *sw_list[PERF_COUNT_SW_MAX];
static DEFINE_SPINLOCK(clock_lock); /* a clock's running state: its task's CPU and an ioctl */

void perf_sw_add(struct perf_event *e)
{
	e->hook_next = sw_list[e->attr.config];
	WRITE_ONCE(sw_list[e->attr.config], e);
	WRITE_ONCE(perf_sw_events, perf_sw_events + 1);
}

/* The caller waits (tracepoint_synchronize_unregister) before e may go. */
void perf_sw_del(struct perf_event *e)
{
	struct perf_event **pp = &sw_list[e->attr.config];

	while (*pp && *pp != e)
		pp = &(*pp)->hook_next;
	if (!*pp)
		return;
	WRITE_ONCE(*pp, e->hook_next);
	WRITE_ONCE(perf_sw_events, perf_sw_events - 1);
}

/* Is the task e counts on a CPU right now? (CPU-wide clocks always run: wall time.) */
static bool clock_task_running(const struct perf_event *e)
{
	if (e->pid < 0)
		return true;
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct task *t = READ_ONCE(percpu_area[cpu].curr);
		if (percpu_area[cpu].online && t && t->pid == e->pid)
			return e->cpu < 0 || e->cpu == cpu;
	}
	return false;
}

static void clock_stop_locked(struct perf_event *e, u64 now)
{
	if (!e->clock_running)
		return;
	__atomic_add_fetch(&e->count, now - e->clock_start, __ATOMIC_RELAXED);
	e->clock_running = false;
}

static void clock_start_locked(struct perf_event *e, u64 now)
{
	e->clock_start = now;
	e->clock_running = true;
}

void perf_sw_clock_start(struct perf_event *e)
{
	unsigned long flags = spin_lock_irqsave(&clock_lock);

	if (!e->clock_running && clock_task_running(e))
		clock_start_locked(e, ktime_get_ns());
	spin_unlock_irqrestore(&clock_lock, flags);
}

void perf_sw_clock_stop(struct perf_event *e)
{
	unsigned long flags = spin_lock_irqsave(&clock_lock);

	clock_stop_locked(e, ktime_get_ns());
	spin_unlock_irqrestore(&clock_lock, flags);
}

static void clock_switch(struct perf_event *e, struct task *prev, struct task *next, u64 now)
{
	for (; e; e = READ_ONCE(e->hook_next)) {
		if (e->pid < 0 || READ_ONCE(e->state) != PERF_EVENT_STATE_ACTIVE)
			continue;
		if (e->pid == prev->pid)
			clock_stop_locked(e, now);
		if (e->pid == next->pid && (e->cpu < 0 || e->cpu == smp_processor_id()))
			clock_start_locked(e, now);
	}
}

/* Linux's perf_exclude_event(): an event that excludes a mode sees nothing that happens in it. */
static bool excluded(const struct perf_event *e, bool user)
{
	return user ? e->attr.exclude_user : e->attr.exclude_kernel;
}

/* Interrupts off, before switch_to(): current is still prev. */
void perf_sw_context_switch(struct task *prev, struct task *next)
{
	struct perf_sample_data d = { .ip = (unsigned long)__builtin_return_address(0) };
	u64 now = ktime_get_ns();

	spin_lock(&clock_lock);
	clock_switch(READ_ONCE(sw_list[PERF_COUNT_SW_CPU_CLOCK]), prev, next, now);
	clock_switch(READ_ONCE(sw_list[PERF_COUNT_SW_TASK_CLOCK]), prev, next, now);
	spin_unlock(&clock_lock);
	for (struct perf_event *e = READ_ONCE(sw_list[PERF_COUNT_SW_CONTEXT_SWITCHES]); e;
	     e = READ_ONCE(e->hook_next))
		if (perf_event_matches(e) && !excluded(e, false))
			perf_event_count(e, 1, &d);
}

/* A clock that samples: every tick it runs through counts TICK_NSEC of its period. */
static void clock_tick(struct perf_event *e, struct pt_regs *regs)
{
	struct perf_sample_data d = { .ip = regs->ip, .regs = regs };

	for (; e; e = READ_ONCE(e->hook_next)) {
		if (!e->sample_period || !perf_event_matches(e) || excluded(e, user_mode(regs)))
			continue;
		if (e->period_left > TICK_NSEC) {
			e->period_left -= TICK_NSEC;
			continue;
		}
		/* the period that has run out, or one tick when the period is shorter */
		d.period = e->sample_period > TICK_NSEC ? e->sample_period : TICK_NSEC;
		e->period_left = e->sample_period;
		perf_output_sample(e, &d);
	}
}

/* From the timer interrupt, interrupts off. */
void perf_sw_timer_tick(struct pt_regs *regs)
{
	clock_tick(READ_ONCE(sw_list[PERF_COUNT_SW_CPU_CLOCK]), regs);
	clock_tick(READ_ONCE(sw_list[PERF_COUNT_SW_TASK_CLOCK]), regs);
}

static void fault_count(struct perf_event *e, struct perf_sample_data *d, bool user)
{
	for (; e; e = READ_ONCE(e->hook_next))
		if (perf_event_matches(e) && !excluded(e, user))
			perf_event_count(e, 1, d);
}

/* A fault on a user address, before it is handled (Linux counts in do_user_addr_fault()). */
void perf_sw_page_fault(const struct pt_regs *regs)
{
	struct perf_sample_data d = { .ip = regs->ip, .regs = regs };
	unsigned long flags = local_irq_save();

	fault_count(READ_ONCE(sw_list[PERF_COUNT_SW_PAGE_FAULTS]), &d, user_mode(regs));
	fault_count(READ_ONCE(sw_list[PERF_COUNT_SW_PAGE_FAULTS_MIN]), &d, user_mode(regs));
	local_irq_restore(flags);
}
