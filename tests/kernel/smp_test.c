/* Self-tests of SMP: every CPU ticks, IPIs and NMIs reach, stop_machine holds, int3 patching. */
#include "arch/x86/cpu.h"
#include "arch/x86/text_patch.h"
#include "kernel/kallsyms.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/stop_machine.h"
#include "kernel/time.h"
#include "kernel/trace/ftrace.h"
#include "kernel/trace/events/sched.h"
#include "kernel/tracepoint.h"
#include "lib/string.h"

static bool need_cpus(struct ktest *t, int n)
{
	if (num_online_cpus() >= n)
		return true;
	ktest_skip(t, "needs more CPUs (boot with -smp 2 or more)");
	return false;
}

/* A bounded wait in TSC time: generous, because TCG runs guests at uneven speeds. */
static bool wait_for(volatile u64 *v, u64 target, unsigned long ms)
{
	u64 end = rdtsc() + tsc_khz * ms;
	while (*v < target && rdtsc() < end)
		cpu_relax();
	return *v >= target;
}

SELFTEST(smp_every_cpu_ticks)
{
	int cpu;

	for_each_online_cpu(cpu) {
		u64 start = percpu_area[cpu].ticks;
		if (!wait_for(&percpu_area[cpu].ticks, start + 2, 5000))
			ktest_fail(t, __FILE__, __LINE__, "CPU %d does not tick", cpu);
	}
}

static volatile u64 ran_on[NR_CPUS];

static void mark_cpu(void *info)
{
	ran_on[smp_processor_id()] += (unsigned long)info;
}

SELFTEST(smp_call_function_reaches_each_cpu)
{
	int cpu, self;

	if (!need_cpus(t, 2))
		return;
	memset((void *)ran_on, 0, sizeof(ran_on));
	preempt_disable();
	self = smp_processor_id();
	smp_call_function(mark_cpu, (void *)1UL, true);
	preempt_enable_no_resched();
	for_each_online_cpu(cpu)
		KT_EXPECT_EQ(t, ran_on[cpu], cpu == self ? 0 : 1);
	smp_call_function_single(num_online_cpus() - 1, mark_cpu, (void *)10UL, true);
	KT_EXPECT_EQ(t, ran_on[num_online_cpus() - 1], 11);
}

static volatile bool nmi_flag, nmi_hit_handler;
static volatile u64 nmi_seen[NR_CPUS], nmi_spinning;

static void spin_irqs_off(void *info)
{
	/* We are in an IPI handler: interrupts are off until we return. Only an NMI gets in. */
	nmi_spinning = 1;
	while (!nmi_flag)
		cpu_relax();
}

static void nmi_mark(void *info)
{
	int cpu = smp_processor_id();

	nmi_seen[cpu]++;
	if (cpu != 1)
		return; /* the other CPUs' NMIs must not end CPU 1's spin before its own NMI comes */
	/* The NMI came while the handler spun, so it interrupted the handler (docs/07: `Z`). */
	nmi_hit_handler = nmi_spinning && this_cpu()->irq_depth;
	nmi_flag = true;
}

SELFTEST(smp_nmi_reaches_cpu_with_irqs_off)
{
	if (!need_cpus(t, 2))
		return;
	nmi_flag = nmi_hit_handler = false;
	nmi_spinning = 0;
	memset((void *)nmi_seen, 0, sizeof(nmi_seen));
	smp_call_function_single(1, spin_irqs_off, NULL, false);
	/* Not before the handler spins: an NMI sent earlier would find CPU 1 idle, not in a handler. */
	if (!wait_for(&nmi_spinning, 1, 5000)) {
		nmi_flag = true;
		ktest_fail(t, __FILE__, __LINE__, "CPU 1 never ran the IPI handler");
		return;
	}
	nmi_call_function(nmi_mark, NULL);
	KT_EXPECT_EQ(t, nmi_seen[1], 1);
	KT_EXPECT(t, nmi_flag);
	KT_EXPECT(t, nmi_hit_handler);
}

static volatile u64 ticks_before[NR_CPUS], ticks_after[NR_CPUS];
static volatile int stop_fn_runs;

static int observe_others(void *data)
{
	int cpu;

	stop_fn_runs++;
	for_each_online_cpu(cpu)
		ticks_before[cpu] = percpu_area[cpu].ticks;
	udelay(30000); /* three timer periods: a CPU with interrupts on would have ticked */
	for_each_online_cpu(cpu)
		ticks_after[cpu] = percpu_area[cpu].ticks;
	return 42;
}

static volatile u64 sleeper_rounds;
static volatile bool sleeper_stop;

static bool wait_until_sleeping(struct task *task, unsigned long ms)
{
	u64 end = rdtsc() + tsc_khz * ms;

	while (READ_ONCE(task->state) != TASK_SLEEPING && rdtsc() < end)
		cpu_relax();
	return READ_ONCE(task->state) == TASK_SLEEPING;
}

/* Sleeps and counts each wake-up, the pattern every kthread of ours sleeps by. */
static void sleeper(void *arg)
{
	while (!READ_ONCE(sleeper_stop)) {
		unsigned long flags = local_irq_save();

		current->state = TASK_SLEEPING;
		local_irq_restore(flags);
		schedule();
		sleeper_rounds++;
	}
}

/* On sched_switch, between __schedule()'s choice and switch_to(): widens that window as a
 * tracer's probe there does (osnoise's, the wakeup tracers'), so the test meets it every time. */
static void slow_switch_probe(void *data, bool preempt, struct task *prev, struct task *next)
{
	u64 end = rdtsc() + tsc_khz / 10; /* 100 us */

	while (rdtsc() < end)
		cpu_relax();
}

/*
 * CPU 0 wakes a task on CPU 1 the moment it has said it sleeps, so the wake-up lands anywhere in
 * CPU 1's way through __schedule(): before it takes the run queue's lock, or (slow_switch_probe()
 * holding it there) after it has left the task out but before switch_to(). A waker that judged by the per-CPU curr there enqueued nothing,
 * and the task never ran again (ftracetest's tracer switch once waited forever for a thread so).
 */
SELFTEST(wake_up_process_is_never_lost)
{
	struct task *task;
	bool lost = false;

	if (!need_cpus(t, 2))
		return;
	sleeper_rounds = 0;
	sleeper_stop = false;
	task = kthread_create(sleeper, NULL, 1, "sleeper");
	KT_ASSERT(t, task != NULL);
	KT_ASSERT(t, tracepoint_probe_register(&__tracepoint_sched_switch, slow_switch_probe,
					       NULL) == 0);
	for (u64 i = 0; i < 200 && !lost; i++) {
		KT_ASSERT(t, wait_until_sleeping(task, 5000));
		wake_up_process(task);
		lost = !wait_for(&sleeper_rounds, i + 1, 5000);
		KT_EXPECT(t, !lost);
	}
	tracepoint_probe_unregister(&__tracepoint_sched_switch, slow_switch_probe, NULL);
	if (lost)
		return; /* RUNNING and on no run queue: nothing can stop it now */
	sleeper_stop = true;
	KT_ASSERT(t, wait_until_sleeping(task, 5000));
	wake_up_process(task);
}

SELFTEST(stop_machine_holds_every_cpu)
{
	int cpu;

	stop_fn_runs = 0;
	KT_EXPECT_EQ(t, stop_machine(observe_others, NULL), 42);
	KT_EXPECT_EQ(t, stop_fn_runs, 1);
	KT_EXPECT_EQ(t, stop_machine_last.runs, 1);
	KT_EXPECT_EQ(t, stop_machine_last.num_cpus, num_online_cpus());
	for_each_online_cpu(cpu)
		if (ticks_after[cpu] != ticks_before[cpu])
			ktest_fail(t, __FILE__, __LINE__, "CPU %d took timer interrupts", cpu);
}

static int do_nothing(void *data)
{
	return 0;
}

/* The record patch_step shows: every CPU arrived once, in some order, and walked the states in order. */
SELFTEST(stop_machine_records_the_rendezvous)
{
	const struct stop_machine_record *r = &stop_machine_last;
	int cpu, seen = 0;

	KT_EXPECT_EQ(t, stop_machine(do_nothing, NULL), 0);
	KT_EXPECT_EQ(t, r->active_cpu, smp_processor_id());
	KT_EXPECT_EQ(t, r->num_cpus, num_online_cpus());
	for_each_online_cpu(cpu) {
		const struct stop_machine_cpu *c = &r->cpu[cpu];

		KT_ASSERT(t, c->arrived >= 1 && c->arrived <= r->num_cpus);
		seen |= 1 << (c->arrived - 1);
		KT_EXPECT(t, c->stopped_at != 0);
		for (int s = 1; s < SM_NR_ACKS; s++)
			KT_EXPECT(t, c->ack[s] >= c->ack[s - 1]);
	}
	KT_EXPECT_EQ(t, seen, (1 << r->num_cpus) - 1);
	/* The caller was stopped where it called: in this test. */
	KT_EXPECT(t, r->cpu[r->active_cpu].stopped_at >=
			     (unsigned long)__selftest_fn_stop_machine_records_the_rendezvous);
}

/* The function CPU 1 keeps calling while CPU 0 patches its first instruction. */
noinline __attribute__((noclone)) int int3_target(int x)
{
	barrier();
	return x * 3;
}

static volatile u64 loop_calls, loop_errors;
static volatile bool loop_stop;

static void call_in_loop(void *arg)
{
	for (int i = 0; !loop_stop; i++) {
		if (int3_target(i) != i * 3)
			loop_errors++;
		loop_calls++;
		cond_resched(); /* lets an unregister's synchronize_rcu_tasks() see us outside */
	}
}

static volatile u64 hold_calls_seen;
static volatile u8 hold_byte;

/* After step 1 the site starts with 0xcc: keep it so until the other CPU ran through it. */
static void hold_at_int3(int step, const struct text_poke_loc *tp, int nr)
{
	bool ours = false;

	for (int i = 0; i < nr; i++)
		ours |= tp[i].addr == (void *)int3_target;
	if (step != 1 || !ours)
		return;
	u64 start = loop_calls, end;
	unsigned long hits = text_poke_bp_hits;
	wait_for(&loop_calls, start + 200, 5000);
	/* Under TCG the looping CPU may go on running a block translated before the int3 was
	 * written (text_poke_bp.c): hold on until one of its calls has trapped. The bound is that
	 * CPU's progress (fifty million calls), not the clock: on a loaded host its vCPU can go
	 * unscheduled for seconds (20 s of TSC once ran out at load 20). The clock is a backstop
	 * only, so that a CPU that stopped calling cannot hang the test. */
	end = rdtsc() + tsc_khz * 300000;
	while (READ_ONCE(text_poke_bp_hits) == hits && READ_ONCE(loop_calls) - start < 50000000 &&
	       rdtsc() < end)
		cpu_relax();
	hold_calls_seen = loop_calls - start;
	hold_byte = *(volatile u8 *)int3_target;
}

static const struct text_patch_observer hold_at_int3_observer = { .bp_step = hold_at_int3 };

static volatile u64 cb_calls;

static void count_cb(unsigned long ip, unsigned long pip, struct ftrace_ops *op, struct pt_regs *r)
{
	cb_calls++;
}

SELFTEST_DYNAMIC(text_poke_bp_emulates_call_and_nop)
{
	static struct ftrace_ops ops = { .func = count_cb, .flags = FTRACE_OPS_FL_RECURSION };
	enum patch_method saved = text_patch_method;
	unsigned long hits0 = text_poke_bp_hits;
	struct task *worker;

	if (!need_cpus(t, 2))
		return;
	if (ftrace_trace_function != ftrace_stub) {
		ktest_skip(t, "another ftrace_ops is live");
		return;
	}
	loop_calls = loop_errors = 0;
	loop_stop = false;
	worker = kthread_create(call_in_loop, NULL, 1, "int3-loop");
	KT_ASSERT(t, worker != NULL);
	KT_ASSERT(t, wait_for(&loop_calls, 100, 5000));
	ftrace_set_patch_method(PATCH_BREAKPOINT);
	KT_ASSERT(t, ftrace_set_filter(&ops, "int3_target", true) == 0);

	/* NOP -> call: while held at int3, each call is an emulated call of the ops's trampoline. */
	cb_calls = 0;
	KT_ASSERT(t, text_patch_set_observer(&hold_at_int3_observer) == 0);
	KT_EXPECT_EQ(t, register_ftrace_function(&ops), 0);
	text_patch_set_observer(NULL);
	/*
	 * On hardware every one of those calls would trap. QEMU's TCG may run some of them through
	 * a block it translated before the int3 was written (see text_poke_bp.c), so we ask that
	 * calls did trap while held, and that every emulated call reached the callback.
	 */
	KT_EXPECT(t, hold_calls_seen >= 200);
	KT_EXPECT_EQ(t, hold_byte, INT3_INSN_OPCODE);
	KT_EXPECT(t, text_poke_bp_hits - hits0 > 0);
	KT_EXPECT(t, cb_calls >= text_poke_bp_hits - hits0);
	KT_EXPECT(t, ops.trampoline &&
			     ftrace_call_target((unsigned long)int3_target) == ops.trampoline);

	/* call -> NOP: held at int3, each call skips the 5 bytes: no callback. */
	KT_ASSERT(t, text_patch_set_observer(&hold_at_int3_observer) == 0);
	unsigned long hits1 = text_poke_bp_hits;
	KT_EXPECT_EQ(t, unregister_ftrace_function(&ops), 0);
	text_patch_set_observer(NULL);
	u64 cb_after = cb_calls;
	KT_EXPECT(t, text_poke_bp_hits - hits1 > 0);
	KT_EXPECT(t, !memcmp((void *)int3_target, ftrace_nop5, MCOUNT_INSN_SIZE));
	u64 c = loop_calls;
	wait_for(&loop_calls, c + 100, 5000);
	KT_EXPECT_EQ(t, cb_calls, cb_after);

	loop_stop = true;
	KT_EXPECT_EQ(t, loop_errors, 0);
	ftrace_set_patch_method(saved);
	free_ftrace_hash(ops.local_hash.filter_hash);
	ops.local_hash.filter_hash = NULL;
}

SELFTEST_DYNAMIC(patch_methods_agree_on_bytes)
{
	static struct ftrace_ops ops = { .func = count_cb, .flags = FTRACE_OPS_FL_RECURSION };
	enum patch_method saved = text_patch_method;
	char why[96];

	for (int m = 0; m < NR_PATCH_METHODS; m++) {
		ftrace_set_patch_method(m);
		KT_ASSERT(t, ftrace_set_filter(&ops, "compute_* hash_* vfs_*", true) == 0);
		KT_EXPECT_EQ(t, register_ftrace_function(&ops), 0);
		KT_EXPECT(t, ops.trampoline && ftrace_call_target(kallsyms_lookup_name(
						       "vfs_read")) == ops.trampoline);
		if (ftrace_verify_all_sites(why, sizeof(why)))
			ktest_fail(t, __FILE__, __LINE__, "%s: %s", patch_method_names[m], why);
		KT_EXPECT_EQ(t, unregister_ftrace_function(&ops), 0);
		KT_EXPECT(t, !memcmp((void *)kallsyms_lookup_name("vfs_read"), ftrace_nop5, 5));
		if (ftrace_verify_all_sites(why, sizeof(why)))
			ktest_fail(t, __FILE__, __LINE__, "%s: %s", patch_method_names[m], why);
	}
	ftrace_set_patch_method(saved);
	free_ftrace_hash(ops.local_hash.filter_hash);
	ops.local_hash.filter_hash = NULL;
}
