/* Self-tests of per-ops trampolines, direct calls and the quiescence wait that frees trampolines. */
#include "kernel/trace/ftrace.h"
#include "arch/x86/cpu.h"
#include "arch/x86/text_poke.h"
#include "kernel/kallsyms.h"
#include "kernel/livepatch/livepatch.h"
#include "kernel/work/workloads.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/string.h"

#define TARGET __attribute__((noipa))
TARGET int tr_probe_a(int x)
{
	return x + 1;
}
TARGET int tr_probe_b(int x)
{
	return x + 2;
}

struct tr_seen {
	volatile unsigned long calls, last_ip, last_parent;
};

static void tr_count(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		     struct pt_regs *regs)
{
	struct tr_seen *s = op->private;

	__atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
	s->last_ip = ip;
	s->last_parent = parent_ip;
}

static void tr_init(struct ftrace_ops *ops, struct tr_seen *s, unsigned long flags, const char *f)
{
	memset(ops, 0, sizeof(*ops));
	memset((void *)s, 0, sizeof(*s));
	ops->func = tr_count;
	ops->private = s;
	ops->flags = flags;
	ops->name = "tr_selftest";
	ftrace_set_filter(ops, f, true);
}

static void tr_release(struct ftrace_ops *ops)
{
	free_ftrace_hash(ops->local_hash.filter_hash);
	ops->local_hash.filter_hash = NULL;
}

static bool tr_quiet(struct ktest *t)
{
	if (ftrace_trace_function == ftrace_stub && !ftrace_disabled)
		return true;
	ktest_skip(t, "another ftrace_ops is live (switch func_hits and tracers off first)");
	return false;
}

static bool calls(void *fn, unsigned long target)
{
	return ftrace_call_target((unsigned long)fn) == target;
}

static bool all_int3(unsigned long addr, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (((const u8 *)addr)[i] != INT3_INSN_OPCODE)
			return false;
	return true;
}

/* The copy of ftrace_caller: same bytes but the op load (reads the slot after the code) and the
 * call (goes to the callback); the slot holds the ops. */
SELFTEST_DYNAMIC(trampoline_bytes_op_ptr_and_call)
{
	static struct ftrace_ops ops;
	static struct tr_seen s;
	unsigned long code = ftrace_caller_end - ftrace_caller;
	unsigned long op_off = ftrace_caller_op_ptr - ftrace_caller,
		      call_off = ftrace_call - ftrace_caller;
	unsigned long tramp, off, size;
	const u8 *p;
	s32 disp;

	if (!tr_quiet(t))
		return;
	tr_init(&ops, &s, FTRACE_OPS_FL_RECURSION, "tr_probe_a");
	KT_ASSERT(t, register_ftrace_function(&ops) == 0);
	tramp = ops.trampoline;
	p = (const u8 *)tramp;
	KT_ASSERT(t, tramp && is_execmem(tramp));
	KT_EXPECT(t, calls(tr_probe_a, tramp));
	KT_EXPECT(t, !memcmp(p, ftrace_caller, op_off + 3));
	memcpy(&disp, p + op_off + 3, 4);
	KT_EXPECT_EQ(t, tramp + op_off + 7 + disp,
		     tramp + ALIGN(code, 8)); /* the slot after the code */
	KT_EXPECT(t, *(struct ftrace_ops **)(tramp + op_off + 7 + disp) == &ops);
	KT_EXPECT(t, !memcmp(p + op_off + 7, ftrace_caller_op_ptr + 7, call_off - op_off - 7));
	KT_EXPECT(t, calls((void *)(tramp + call_off),
			   (unsigned long)tr_count)); /* RECURSION: direct */
	KT_EXPECT(t, !memcmp(p + call_off + 5, ftrace_call + 5, code - call_off - 5));
	KT_EXPECT(t, arch_ftrace_trampoline_func(ops.trampoline, false) == (unsigned long)tr_count);
	KT_EXPECT(t, all_int3(tramp + ALIGN(code, 8) + 8, PAGE_SIZE - ALIGN(code, 8) - 8));
	const char *name = kallsyms_lookup(tramp + 3, &size, &off);
	KT_EXPECT(t, name && !strcmp(name, "ftrace_trampoline") && off == 3);
	KT_EXPECT_EQ(t, size, ops.trampoline_size);

	/* The callback sees the traced function and its caller, as through ftrace_caller. */
	KT_EXPECT_EQ(t, tr_probe_a(1), 2);
	KT_EXPECT_EQ(t, s.calls, 1);
	KT_EXPECT_EQ(t, s.last_ip, (unsigned long)tr_probe_a);
	name = kallsyms_lookup(s.last_parent, NULL, NULL);
	KT_EXPECT(t, name && !strcmp(name, "__selftest_fn_trampoline_bytes_op_ptr_and_call"));

	/* Freed only after the wait; then every byte of the page is int3, and it has no name. */
	KT_EXPECT_EQ(t, unregister_ftrace_function(&ops), 0);
	KT_EXPECT_EQ(t, ops.trampoline, 0);
	KT_EXPECT(t, all_int3(tramp, PAGE_SIZE));
	KT_EXPECT(t, kallsyms_lookup(tramp, NULL, NULL) == NULL);
	tr_release(&ops);
}

/* Without RECURSION the trampoline calls the assist function, which guards the callback. */
SELFTEST_DYNAMIC(trampoline_calls_assist_func_without_recursion_flag)
{
	static struct ftrace_ops ops;
	static struct tr_seen s;

	if (!tr_quiet(t))
		return;
	tr_init(&ops, &s, 0, "tr_probe_a");
	KT_ASSERT(t, register_ftrace_function(&ops) == 0);
	KT_EXPECT_EQ(t, arch_ftrace_trampoline_func(ops.trampoline, false),
		     (unsigned long)ftrace_ops_assist_func);
	tr_probe_a(0);
	KT_EXPECT_EQ(t, s.calls, 1);
	KT_EXPECT_EQ(t, unregister_ftrace_function(&ops), 0);
	tr_release(&ops);
}

/* One ops: its trampoline. A second on the same function: the list, via ftrace_caller. Back. */
SELFTEST_DYNAMIC(trampoline_shared_site_falls_back_to_list)
{
	static struct ftrace_ops a, b;
	static struct tr_seen sa, sb;
	char why[96];

	if (!tr_quiet(t))
		return;
	tr_init(&a, &sa, FTRACE_OPS_FL_RECURSION, "tr_probe_a tr_probe_b");
	tr_init(&b, &sb, FTRACE_OPS_FL_RECURSION, "tr_probe_b");
	KT_ASSERT(t, register_ftrace_function(&a) == 0);
	KT_EXPECT(t, calls(tr_probe_a, a.trampoline) && calls(tr_probe_b, a.trampoline));
	KT_ASSERT(t, register_ftrace_function(&b) == 0);
	KT_EXPECT(t, calls(tr_probe_a, a.trampoline));
	KT_EXPECT(t, calls(tr_probe_b, (unsigned long)ftrace_caller));
	KT_EXPECT(t, ftrace_trace_function == ftrace_ops_list_func);
	tr_probe_a(0);
	tr_probe_b(0);
	KT_EXPECT(t, sa.calls == 2 && sb.calls == 1);
	KT_EXPECT_EQ(t, sb.last_ip, (unsigned long)tr_probe_b);
	const char *name = kallsyms_lookup(sb.last_parent, NULL, NULL);
	KT_EXPECT(t,
		  name && !strcmp(name, "__selftest_fn_trampoline_shared_site_falls_back_to_list"));
	if (ftrace_verify_all_sites(why, sizeof(why)))
		ktest_fail(t, __FILE__, __LINE__, "%s", why);
	KT_EXPECT_EQ(t, unregister_ftrace_function(&a), 0);
	KT_EXPECT(t, calls(tr_probe_b, b.trampoline)); /* b alone now: its own trampoline */
	KT_EXPECT(t, !memcmp((void *)tr_probe_a, ftrace_nop5, MCOUNT_INSN_SIZE));
	tr_probe_b(0);
	KT_EXPECT(t, sa.calls == 2 && sb.calls == 2);
	KT_EXPECT_EQ(t, unregister_ftrace_function(&b), 0);
	tr_release(&a);
	tr_release(&b);
}

/* Direct: alone, the site calls the NASM counter; shared, ftrace_regs_caller leaves to it. */
SELFTEST_DYNAMIC(direct_call_counts_exactly)
{
	static struct ftrace_ops d, o, d2, ip;
	static struct tr_seen so, s2;
	u64 c0;

	if (!tr_quiet(t))
		return;
	tr_init(&d, &s2, 0, "tr_probe_b");
	KT_ASSERT(t, register_ftrace_direct(&d, (unsigned long)direct_count_tramp) == 0);
	KT_EXPECT(t, calls(tr_probe_b, (unsigned long)direct_count_tramp));
	KT_EXPECT_EQ(t, d.trampoline, 0);
	c0 = direct_count_calls;
	for (int i = 0; i < 1000; i++)
		KT_EXPECT_EQ(t, tr_probe_b(i), i + 2);
	KT_EXPECT_EQ(t, direct_count_calls - c0, 1000);
	KT_EXPECT_EQ(t, direct_count_last_arg, 999);

	tr_init(&o, &so, FTRACE_OPS_FL_RECURSION, "tr_probe_b");
	KT_ASSERT(t, register_ftrace_function(&o) == 0);
	KT_EXPECT(t, calls(tr_probe_b, (unsigned long)ftrace_regs_caller));
	c0 = direct_count_calls;
	for (int i = 0; i < 1000; i++)
		KT_EXPECT_EQ(t, tr_probe_b(i), i + 2);
	KT_EXPECT_EQ(t, direct_count_calls - c0, 1000);
	KT_EXPECT_EQ(t, so.calls, 1000);
	KT_EXPECT_EQ(t, unregister_ftrace_function(&o), 0);
	KT_EXPECT(t, calls(tr_probe_b, (unsigned long)direct_count_tramp));

	/* A second direct call, or an ip-modifying ops, on the same function: refused. */
	tr_init(&d2, &s2, 0, "tr_probe_b");
	KT_EXPECT_EQ(t, register_ftrace_direct(&d2, (unsigned long)direct_count_tramp), -EBUSY);
	tr_init(&ip, &s2, FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY, "tr_probe_b");
	KT_EXPECT_EQ(t, register_ftrace_function(&ip), -EBUSY);
	KT_EXPECT(t, calls(tr_probe_b, (unsigned long)direct_count_tramp));
	/* Nor can a live IPMODIFY ops move onto it by a filter change: refused, nothing moves. */
	tr_release(&ip);
	tr_init(&ip, &s2, FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY, "tr_probe_a");
	KT_ASSERT(t, register_ftrace_function(&ip) == 0);
	KT_EXPECT_EQ(t, ftrace_set_filter_ip(&ip, (unsigned long)tr_probe_b, false, false), -EBUSY);
	KT_EXPECT(t, calls(tr_probe_b, (unsigned long)direct_count_tramp));
	KT_EXPECT(t, calls(tr_probe_a, ip.trampoline));
	KT_EXPECT_EQ(t, unregister_ftrace_function(&ip), 0);
	KT_EXPECT_EQ(t, unregister_ftrace_direct(&d, (unsigned long)direct_count_tramp), 0);
	KT_EXPECT(t, !memcmp((void *)tr_probe_b, ftrace_nop5, MCOUNT_INSN_SIZE));
	tr_release(&d);
	tr_release(&o);
	tr_release(&d2);
	tr_release(&ip);
}

/* synchronize_rcu_tasks() may not return while a task that was running has not yet passed a
 * voluntary switch or cond_resched(). */
static volatile bool rt_release, rt_stop, rt_done, rt_spinning;

static void rt_spinner(void *arg)
{
	rt_spinning = true;
	while (!rt_release)
		cpu_relax(); /* no quiescent state here */
	while (!rt_stop)
		cond_resched();
}

static void rt_waiter(void *arg)
{
	synchronize_rcu_tasks();
	rt_done = true;
}

SELFTEST(rcu_tasks_waits_for_running_task)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	rt_release = rt_stop = rt_done = rt_spinning = false;
	KT_ASSERT(t, kthread_create(rt_spinner, NULL, 1, "rt-spin") != NULL);
	for (int i = 0; i < 500 && !rt_spinning; i++)
		msleep(2);
	KT_ASSERT(t, rt_spinning);
	KT_ASSERT(t, kthread_create(rt_waiter, NULL, 0, "rt-wait") != NULL);
	msleep(100);
	KT_EXPECT(t, !rt_done); /* the spinner has not passed a quiescent state */
	rt_release = true;
	for (int i = 0; i < 1000 && !rt_done; i++)
		msleep(2);
	KT_EXPECT(t, rt_done);
	rt_stop = true;
}

/*
 * Ops come and go 24 times: two with trampolines (one plain, one SAVE_REGS), a direct call and
 * an ip-modifying one, on functions the workloads call (run them on the other CPUs first: see
 * tests/integration/test_trampolines.py). Sites move between NOP, trampolines, the list and the
 * direct call, with both patch methods. Each freed trampoline must be int3 at once; at the end
 * every site and trampoline must match its record, and no execmem page may be left over.
 */
static void tr_redirect(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			struct pt_regs *regs)
{
	regs->ip = (unsigned long)demo_greeting_fixed;
}

static int tr_unregister(struct ktest *t, struct ftrace_ops *op)
{
	unsigned long tramp = op->trampoline;
	int err = op->flags & FTRACE_OPS_FL_DIRECT
			  ? unregister_ftrace_direct(op, (unsigned long)direct_count_tramp)
			  : unregister_ftrace_function(op);

	if (tramp && !all_int3(tramp, PAGE_SIZE))
		ktest_fail(t, __FILE__, __LINE__, "freed trampoline 0x%lx is not int3", tramp);
	return err;
}

SELFTEST_DYNAMIC(trampoline_ops_come_and_go)
{
	static struct ftrace_ops ops[4];
	static struct tr_seen seen[4];
	enum patch_method saved = text_patch_method;
	size_t pages0 = execmem_pages_in_use();
	char why[128];
	int err = 0;

	if (!tr_quiet(t))
		return;
	tr_init(&ops[0], &seen[0], FTRACE_OPS_FL_RECURSION,
		"stress_target demo_greeting compute_*");
	tr_init(&ops[1], &seen[1], FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_SAVE_REGS,
		"stress_target hash_*");
	tr_init(&ops[2], &seen[2], 0, "vfs_read");
	tr_init(&ops[3], &seen[3],
		FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
		"demo_greeting");
	ops[3].func = tr_redirect;
	/* 8 rounds: each of the four orders of leaving (two per patch method) twice. It was 24, six
	 * times each; the same mixes, a third of the time, in every boot that runs the self-tests
	 * (make check, UEFI, Bochs) and under test_trampolines.py's load. */
	for (int i = 0; i < 8 && !err; i++) {
		if (num_online_cpus() > 1)
			ftrace_set_patch_method(i % NR_PATCH_METHODS);
		for (int k = 0; k < 4 && !err; k++)
			err = k == 2 ? register_ftrace_direct(&ops[k],
							      (unsigned long)direct_count_tramp)
				     : register_ftrace_function(&ops[k]);
		if (!err && i % 3 == 0 && ftrace_verify_all_sites(why, sizeof(why)))
			ktest_fail(t, __FILE__, __LINE__, "round %d: %s", i, why);
		/* While all four are on: the list reaches ops 0, the IPMODIFY ops redirects. */
		unsigned long c0 = seen[0].calls;
		if (!err && (stress_target(1) != 2 || seen[0].calls == c0 ||
			     demo_greeting() != demo_greeting_fixed()))
			ktest_fail(t, __FILE__, __LINE__, "round %d: a call went wrong", i);
		/* Leave in a different order each round, so sites pass through every mix. */
		for (int k = 0; k < 4 && !err; k++)
			err = tr_unregister(t, &ops[(k + i) % 4]);
	}
	KT_EXPECT_EQ(t, err, 0);
	ftrace_set_patch_method(saved);
	if (ftrace_verify_all_sites(why, sizeof(why)))
		ktest_fail(t, __FILE__, __LINE__, "%s", why);
	KT_EXPECT_EQ(t, execmem_pages_in_use(), pages0);
	for (int k = 0; k < 4; k++)
		tr_release(&ops[k]);
}
