/* Self-tests of the irqflags sites: local_irq_*() whose cli or sti is itself the key's patch site. */
#include "arch/x86/cpu.h"
#include "arch/x86/text_patch.h"
#include "kernel/irqflags.h"
#include "kernel/jump_label_internal.h"
#include "kernel/kallsyms.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trace/events/preemptirq.h"
#include "kernel/trace/ftrace.h"
#include "lib/string.h"

void irq_disable_thunk(void);
void irq_save_thunk(void);
void irq_enable_thunk(void);

noinline void ift_pair(void)
{
	local_irq_disable();
	local_irq_enable();
}

/* A save inside a save: only the outer pair changes the flag, so only it may reach a hook. */
noinline void ift_nested_save(void)
{
	unsigned long f = local_irq_save(), g = local_irq_save();

	local_irq_restore(g);
	local_irq_restore(f);
}

static unsigned long fn_size(void *fn)
{
	unsigned long size = 0, off;

	return kallsyms_lookup((unsigned long)fn, &size, &off) && !off ? size : 0;
}

/* The sites of the key in fn, in address order (the key's run is sorted by address). */
static int sites_in(void *fn, const struct jump_entry **out, int max)
{
	struct static_key *key = &trace_irqflags_key.key;
	unsigned long size = fn_size(fn);
	int n = 0;

	for (const struct jump_entry *e = key->entries;
	     e && e < __stop___jump_table && jump_entry_key(e) == key; e++)
		if (jump_entry_code(e) - (unsigned long)fn < size && n < max)
			out[n++] = e;
	return n;
}

static u8 shape_of(const struct jump_entry *e)
{
	return jump_site_info[jump_entry_index(e)] & JUMP_SITE_SHAPE;
}

/* The site holds its off form (the padded instruction) or its on form (call target). */
static bool holds(const struct jump_entry *e, bool on)
{
	u8 want[5];

	return !jump_site_insn(e, shape_of(e), on, want) &&
	       !memcmp((void *)jump_entry_code(e), want, IRQ_SITE_INSN_SIZE);
}

/* What the probes saw from one function: events whose ip lies in it, and the last such ip. */
static struct {
	unsigned long fn, size;
	volatile u64 off, on;
	volatile unsigned long off_ip, on_ip;
} seen;

static void probe_off(void *data, unsigned long ip, unsigned long parent_ip)
{
	if (ip - seen.fn < seen.size) {
		seen.off_ip = ip;
		__atomic_add_fetch(&seen.off, 1, __ATOMIC_RELAXED);
	}
}

static void probe_on(void *data, unsigned long ip, unsigned long parent_ip)
{
	if (ip - seen.fn < seen.size) {
		seen.on_ip = ip;
		__atomic_add_fetch(&seen.on, 1, __ATOMIC_RELAXED);
	}
}

/* The two probes: the first one registered takes trace_irqflags_key (the events' regfunc). */
static int probes_attach(void)
{
	int err = tracepoint_probe_register(&__tracepoint_irq_disable, probe_off, NULL);

	if (err)
		return err;
	err = tracepoint_probe_register(&__tracepoint_irq_enable, probe_on, NULL);
	if (err)
		tracepoint_probe_unregister(&__tracepoint_irq_disable, probe_off, NULL);
	return err;
}

static void probes_detach(void)
{
	tracepoint_probe_unregister(&__tracepoint_irq_enable, probe_on, NULL);
	tracepoint_probe_unregister(&__tracepoint_irq_disable, probe_off, NULL);
	tracepoint_synchronize_unregister();
}

static void expect_all_sites_match(struct ktest *t, const char *when)
{
	char why[128];

	if (jump_label_verify_all_sites(why, sizeof(why)))
		ktest_fail(t, __FILE__, __LINE__, "%s: %s", when, why);
}

SELFTEST(irqflags_site_is_the_instruction)
{
	struct static_key *key = &trace_irqflags_key.key;
	const struct jump_entry *s[4];
	unsigned long cli = 0, sti = 0, other = 0, all = 0;

	KT_ASSERT(t, !static_key_enabled(key)); /* no latency tracer, no preemptirq event */
	for (const struct jump_entry *e = key->entries;
	     e && e < __stop___jump_table && jump_entry_key(e) == key; e++) {
		all++;
		if (shape_of(e) == (IRQ_SITE_INSN_SIZE | JUMP_SITE_CLI))
			cli++;
		else if (shape_of(e) == (IRQ_SITE_INSN_SIZE | JUMP_SITE_STI))
			sti++;
		else if (shape_of(e) == JUMP_LABEL_NOP_SIZE) /* safe_halt(), the entry code's */
			other++;
		KT_EXPECT(t, holds(e, false) || shape_of(e) == JUMP_LABEL_NOP_SIZE);
	}
	KT_EXPECT(t, cli > 0 && sti > 0 && other > 0);
	KT_EXPECT_EQ(t, cli + sti + other, all); /* no site of another shape */

	/* ift_pair: the cli site, then at once the sti site; nothing between them, no NOP. */
	KT_ASSERT(t, sites_in(ift_pair, s, 4) == 2);
	KT_EXPECT_EQ(t, shape_of(s[0]), IRQ_SITE_INSN_SIZE | JUMP_SITE_CLI);
	KT_EXPECT_EQ(t, shape_of(s[1]), IRQ_SITE_INSN_SIZE | JUMP_SITE_STI);
	KT_EXPECT_EQ(t, jump_entry_code(s[1]), jump_entry_code(s[0]) + IRQ_SITE_INSN_SIZE);
	KT_EXPECT_EQ(t, jump_entry_target(s[0]), (unsigned long)irq_disable_thunk);
	KT_EXPECT_EQ(t, jump_entry_target(s[1]), (unsigned long)irq_enable_thunk);
	KT_EXPECT(t, holds(s[0], false) && holds(s[1], false));
	KT_EXPECT(t, text_insn_irq_site((u8 *)jump_entry_code(s[0])) == CLI_INSN_OPCODE);
	ift_pair();
	KT_EXPECT(t, !irqs_disabled());

	/* ift_nested_save: the outer save's cli and restore's sti are sites, to irq_save_thunk. */
	KT_ASSERT(t, sites_in(ift_nested_save, s, 4) >= 2);
	KT_EXPECT_EQ(t, jump_entry_target(s[0]), (unsigned long)irq_save_thunk);
	ift_nested_save();
	KT_EXPECT(t, !irqs_disabled());
}

SELFTEST(irqflags_site_calls_the_hook_only_on_a_change)
{
	const struct jump_entry *s[4];

	KT_ASSERT(t, sites_in(ift_pair, s, 4) == 2);
	memset((void *)&seen, 0, sizeof(seen));
	seen.fn = (unsigned long)ift_pair;
	seen.size = fn_size(ift_pair);
	KT_ASSERT(t, probes_attach() == 0);
	KT_EXPECT(t, holds(s[0], true) && holds(s[1], true));

	/*
	 * The thunk hands the hook the site's return address: its ip, as the NOP's hook had it. The
	 * first pair puts the hooks' state right (a raw sti may have left it "off"); no task switch
	 * comes between it and the measured one, and an interrupt leaves the state as it found it.
	 */
	preempt_disable();
	local_irq_disable();
	local_irq_enable();
	ift_pair();
	preempt_enable_no_resched();
	KT_EXPECT(t, !irqs_disabled());
	KT_EXPECT_EQ(t, seen.off, 1);
	KT_EXPECT_EQ(t, seen.on, 1);
	KT_EXPECT_EQ(t, seen.off_ip, jump_entry_code(s[0]) + IRQ_SITE_INSN_SIZE);
	KT_EXPECT_EQ(t, seen.on_ip, jump_entry_code(s[1]) + IRQ_SITE_INSN_SIZE);

	/* Nested saves: one section, opened by the outer save and closed by the outer restore. */
	seen.fn = (unsigned long)ift_nested_save;
	seen.size = fn_size(ift_nested_save);
	seen.off = seen.on = 0;
	preempt_disable();
	local_irq_disable();
	local_irq_enable();
	ift_nested_save();
	preempt_enable_no_resched();
	KT_EXPECT(t, !irqs_disabled());
	KT_EXPECT_EQ(t, seen.off, 1);
	KT_EXPECT_EQ(t, seen.on, 1);

	/* With interrupts already off, a save changes nothing and calls nothing. */
	seen.off = seen.on = 0;
	raw_local_irq_disable();
	ift_nested_save();
	KT_EXPECT(t, irqs_disabled());
	raw_local_irq_enable();
	KT_EXPECT_EQ(t, seen.off, 0);
	KT_EXPECT_EQ(t, seen.on, 0);

	probes_detach();
	KT_EXPECT(t, holds(s[0], false) && holds(s[1], false));
	seen.off = 0;
	seen.fn = (unsigned long)ift_pair;
	seen.size = fn_size(ift_pair);
	ift_pair();
	KT_EXPECT_EQ(t, seen.off, 0);
	expect_all_sites_match(t, "after");
}

/* The workers: every other CPU (three at most) runs the sites and checks what each one did. */
#define IFT_WORKERS 3
static volatile u64 ift_rounds[IFT_WORKERS], ift_errors;
static volatile bool ift_stop;
static volatile int ift_running;

noinline void ift_worker_round(void)
{
	unsigned long f, g;

	local_irq_disable();
	if (!irqs_disabled())
		__atomic_add_fetch(&ift_errors, 1, __ATOMIC_RELAXED);
	local_irq_enable();
	if (irqs_disabled())
		__atomic_add_fetch(&ift_errors, 1, __ATOMIC_RELAXED);
	f = local_irq_save();
	g = local_irq_save();
	if (!(f & X86_EFLAGS_IF) || (g & X86_EFLAGS_IF) || !irqs_disabled())
		__atomic_add_fetch(&ift_errors, 1, __ATOMIC_RELAXED);
	local_irq_restore(g);
	if (!irqs_disabled())
		__atomic_add_fetch(&ift_errors, 1, __ATOMIC_RELAXED);
	local_irq_restore(f);
	if (irqs_disabled())
		__atomic_add_fetch(&ift_errors, 1, __ATOMIC_RELAXED);
}

static void ift_worker(void *arg)
{
	long i = (long)arg;

	while (!ift_stop) {
		ift_worker_round();
		ift_rounds[i]++;
		cond_resched();
	}
	__atomic_sub_fetch(&ift_running, 1, __ATOMIC_SEQ_CST);
}

static u64 ift_total(void)
{
	u64 n = 0;

	for (int i = 0; i < IFT_WORKERS; i++)
		n += ift_rounds[i];
	return n;
}

static bool ift_wait(u64 target, unsigned long ms)
{
	u64 end = rdtsc() + tsc_khz * ms;

	while (ift_total() < target && rdtsc() < end)
		cpu_relax();
	return ift_total() >= target;
}

static volatile u64 ift_held;

/* After step 1 every site of the key starts with int3: hold there until the workers ran through
 * theirs, so each of their cli, sti and calls is emulated by the int3 handler at least once. */
static void ift_hold(int step, const struct text_poke_loc *tp, int nr)
{
	const struct jump_entry *e = jump_label_lookup((unsigned long)tp[0].addr);
	u64 start = ift_total();

	if (step != 1 || !e || jump_entry_key(e) != &trace_irqflags_key.key)
		return;
	ift_wait(start + 20, 5000);
	ift_held += ift_total() - start;
}

static const struct text_patch_observer ift_observer = { .bp_step = ift_hold };

SELFTEST(irqflags_key_flips_while_cpus_run_sites)
{
	unsigned long hits0 = text_poke_bp_hits;
	int workers = MIN(num_online_cpus() - 1, IFT_WORKERS);
	u64 seen_on = 0;

	if (workers < 1) {
		ktest_skip(t, "needs more CPUs (boot with -smp 2 or more; 4 for three workers)");
		return;
	}
	memset((void *)ift_rounds, 0, sizeof(ift_rounds));
	ift_errors = ift_held = 0;
	ift_stop = false;
	ift_running = workers;
	memset((void *)&seen, 0, sizeof(seen));
	seen.fn = (unsigned long)ift_worker_round;
	seen.size = fn_size(ift_worker_round);
	for (long i = 0; i < workers; i++)
		KT_ASSERT(t, kthread_create(ift_worker, (void *)i, (int)i + 1, "ift-loop") != NULL);
	KT_ASSERT(t, ift_wait(100, 5000));
	for (int m = 0; m < NR_PATCH_METHODS; m++) {
		ftrace_set_patch_method(m);
		if (m == PATCH_BREAKPOINT)
			KT_ASSERT(t, text_patch_set_observer(&ift_observer) == 0);
		for (int i = 0; i < 10; i++) {
			u64 c = ift_total(), off0 = seen.off;
			KT_ASSERT(t, probes_attach() == 0);
			ift_wait(c + 3 * workers, 2000);
			seen_on += seen.off - off0;
			probes_detach();
			c = ift_total();
			ift_wait(c + 3 * workers, 2000);
		}
		if (m == PATCH_BREAKPOINT)
			text_patch_set_observer(NULL);
		expect_all_sites_match(t, patch_method_names[m]);
	}
	ftrace_set_patch_method(PATCH_BREAKPOINT);
	ift_stop = true;
	while (__atomic_load_n(&ift_running, __ATOMIC_SEQ_CST))
		cond_resched();
	for (int i = 0; i < workers; i++)
		KT_EXPECT(t, ift_rounds[i] > 0);
	KT_EXPECT_EQ(t, ift_errors, 0);
	KT_EXPECT(t, seen_on > 0); /* the hook ran from the workers' sites while the key was on */
	KT_EXPECT(t, ift_held >= 20); /* rounds run through int3-trapped sites */
	KT_EXPECT(t, text_poke_bp_hits - hits0 > 0);
	KT_EXPECT(t, !irqs_disabled());
	expect_all_sites_match(t, "after");
}
