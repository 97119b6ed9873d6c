/* Self-tests of dynamic ftrace: NOP sites, ops with filters, dispatch, regs, IPMODIFY, ftrace_bug. */
#include "kernel/trace/ftrace.h"
#include "arch/x86/text_poke.h"
#include "kernel/kallsyms.h"
#include "kernel/printk/printk.h"
#include "kernel/selftest.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Functions to trace: not inlined, not cloned, each with a call site of its own. */
#define TARGET noinline __attribute__((noclone))
TARGET int ft_target_a(int x)
{
	barrier();
	return x + 1;
}
TARGET int ft_target_b(int x)
{
	barrier();
	return x + 2;
}
TARGET int ft_target_c(int x)
{
	barrier();
	return x + 3;
}
TARGET int ft_target_fixed(int x)
{
	barrier();
	return x * 100;
}
TARGET int ft_victim(int x)
{
	barrier();
	return x - 1;
}

/*
 * What a callback saw. volatile: the compiler cannot know that calling ft_target_a() runs a
 * callback that writes here, and would otherwise keep stale copies in registers.
 */
struct seen {
	volatile unsigned long a, b, c, other;
	volatile unsigned long last_ip, last_parent;
	struct pt_regs *volatile last_regs;
	volatile unsigned long regs_di, regs_ip;
};

static void count_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		       struct pt_regs *regs)
{
	struct seen *s = op->private;

	if (ip == (unsigned long)ft_target_a)
		s->a++;
	else if (ip == (unsigned long)ft_target_b)
		s->b++;
	else if (ip == (unsigned long)ft_target_c)
		s->c++;
	else
		s->other++;
	s->last_ip = ip;
	s->last_parent = parent_ip;
	s->last_regs = regs;
	if (regs) {
		s->regs_di = regs->di;
		s->regs_ip = regs->ip;
	}
}

/* These tests count calls and read call targets: another live ops (func_hits, a tracer) would
 * change both. They run only when nothing else is registered. */
static bool ftrace_quiet(struct ktest *t)
{
	if (ftrace_trace_function == ftrace_stub && !ftrace_disabled)
		return true;
	ktest_skip(t, "another ftrace_ops is live (switch func_hits and tracers off first)");
	return false;
}

static bool site_is_nop(void *fn)
{
	return !memcmp(fn, ftrace_nop5, MCOUNT_INSN_SIZE);
}

static bool site_calls(void *fn, void *target)
{
	return ftrace_call_target((unsigned long)fn) == (unsigned long)target;
}

static void init_ops(struct ftrace_ops *ops, struct seen *s, unsigned long flags)
{
	memset(ops, 0, sizeof(*ops));
	memset((void *)s, 0, sizeof(*s));
	ops->func = count_call;
	ops->private = s;
	ops->flags = flags;
	ops->name = "selftest";
}

SELFTEST_DYNAMIC(ftrace_nop_sites_after_boot)
{
	char why[96];
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;
	unsigned long nops = 0;

	if (!ftrace_quiet(t))
		return;

	KT_ASSERT(t, ftrace_nr_records() > 100);
	KT_EXPECT(t, ftrace_lookup_ip((unsigned long)ft_target_a) != NULL);
	KT_EXPECT(t, site_is_nop(ft_target_a));
	for_each_ftrace_rec(pg, rec) {
		if (!(rec->flags & FTRACE_FL_ENABLED))
			nops += site_is_nop((void *)rec->ip);
		else
			nops++;
	}
	KT_EXPECT_EQ(t, nops, ftrace_nr_records());
	if (ftrace_verify_all_sites(why, sizeof(why)))
		ktest_fail(t, __FILE__, __LINE__, "%s", why);
}

SELFTEST_DYNAMIC(ftrace_ops_filter_calls_callback)
{
	static struct ftrace_ops ops;
	static struct seen s;
	unsigned long pos0 = text_poke_count;
	unsigned long size, off;

	if (!ftrace_quiet(t))
		return;

	init_ops(&ops, &s, 0);
	KT_ASSERT(t, ftrace_set_filter(&ops, "ft_target_a", true) == 0);
	KT_ASSERT(t, register_ftrace_function(&ops) == 0);
	/* Alone on the site: the site calls the ops's own trampoline, which calls the callback. */
	KT_ASSERT(t, ops.trampoline != 0);
	KT_EXPECT(t, site_calls(ft_target_a, (void *)ops.trampoline));
	KT_EXPECT(t, site_is_nop(ft_target_b));
	KT_EXPECT(t, text_poke_count > pos0); /* the change went through text_poke */
	for (int i = 0; i < 3; i++)
		ft_target_a(i);
	ft_target_b(0);
	KT_EXPECT_EQ(t, s.a, 3);
	KT_EXPECT_EQ(t, s.b, 0);
	KT_EXPECT_EQ(t, s.last_ip, (unsigned long)ft_target_a);
	KT_EXPECT(t, s.last_regs == NULL);
	/* parent_ip is the return address in the function that called ft_target_a: this test. */
	const char *caller = kallsyms_lookup(s.last_parent, &size, &off);
	KT_EXPECT(t, caller && !strcmp(caller, "__selftest_fn_ftrace_ops_filter_calls_callback"));
	KT_EXPECT_EQ(t, unregister_ftrace_function(&ops), 0);
	KT_EXPECT(t, site_is_nop(ft_target_a));
	ft_target_a(0);
	KT_EXPECT_EQ(t, s.a, 3);
	free_ftrace_hash(ops.local_hash.filter_hash);
}

SELFTEST(ftrace_two_ops_overlap)
{
	static struct ftrace_ops o1, o2;
	static struct seen s1, s2;

	if (!ftrace_quiet(t))
		return;

	init_ops(&o1, &s1, 0);
	init_ops(&o2, &s2, 0);
	KT_ASSERT(t, ftrace_set_filter(&o1, "ft_target_a ft_target_b", true) == 0);
	KT_ASSERT(t, ftrace_set_filter(&o2, "ft_target_b ft_target_c", true) == 0);
	KT_ASSERT(t, register_ftrace_function(&o1) == 0);
	/* One ops: called directly; the static build always goes through the list, which filters. */
	KT_EXPECT(t, FTRACE_STATIC || ftrace_trace_function != ftrace_ops_list_func);
	KT_ASSERT(t, register_ftrace_function(&o2) == 0);
	KT_EXPECT(t, ftrace_trace_function == ftrace_ops_list_func);
	KT_EXPECT_EQ(t, ftrace_rec_count(ftrace_lookup_ip((unsigned long)ft_target_b)), 2);
	ft_target_a(1);
	ft_target_b(1);
	ft_target_c(1);
	KT_EXPECT(t, s1.a == 1 && s1.b == 1 && s1.c == 0 && s1.other == 0);
	KT_EXPECT(t, s2.a == 0 && s2.b == 1 && s2.c == 1 && s2.other == 0);
	/* The shared site calls the list (through ftrace_caller); the others their own trampolines.
	 * The static build has no patched sites: the counts above are all it can show. */
	KT_EXPECT(t, FTRACE_STATIC || site_calls(ft_target_b, ftrace_caller));
	KT_EXPECT(t, FTRACE_STATIC || site_calls(ft_target_a, (void *)o1.trampoline));
	KT_EXPECT(t, FTRACE_STATIC || site_calls(ft_target_c, (void *)o2.trampoline));
	unregister_ftrace_function(&o2);
	KT_EXPECT(t, FTRACE_STATIC || site_is_nop(ft_target_c));
	KT_EXPECT(t, FTRACE_STATIC || site_calls(ft_target_b, (void *)o1.trampoline)); /* one ops */
	unregister_ftrace_function(&o1);
	KT_EXPECT(t, FTRACE_STATIC || (site_is_nop(ft_target_a) && site_is_nop(ft_target_b)));
	KT_EXPECT(t, ftrace_trace_function == ftrace_stub);
	free_ftrace_hash(o1.local_hash.filter_hash);
	free_ftrace_hash(o2.local_hash.filter_hash);
}

SELFTEST_DYNAMIC(ftrace_notrace_wins)
{
	static struct ftrace_ops ops;
	static struct seen s;

	if (!ftrace_quiet(t))
		return;

	init_ops(&ops, &s, 0);
	KT_ASSERT(t, ftrace_set_filter(&ops, "ft_target_*", true) == 0);
	KT_ASSERT(t, ftrace_set_notrace(&ops, "ft_target_b", true) == 0);
	KT_ASSERT(t, register_ftrace_function(&ops) == 0);
	KT_EXPECT(t, site_is_nop(ft_target_b));
	KT_EXPECT(t, site_calls(ft_target_c, (void *)ops.trampoline));
	ft_target_a(0);
	ft_target_b(0);
	KT_EXPECT(t, s.a == 1 && s.b == 0);
	unregister_ftrace_function(&ops);
	free_ftrace_hash(ops.local_hash.filter_hash);
	free_ftrace_hash(ops.local_hash.notrace_hash);
}

/* The same pt_regs from ftrace_regs_caller itself and from an ops's copy of it. */
SELFTEST_DYNAMIC(ftrace_regs_caller_frame)
{
	static struct ftrace_ops ops;
	static struct seen s;

	if (!ftrace_quiet(t))
		return;

	for (int own = 0; own < 2; own++) {
		init_ops(&ops, &s, FTRACE_OPS_FL_SAVE_REGS | (own ? 0 : FTRACE_OPS_FL_NO_TRAMP));
		KT_ASSERT(t, ftrace_set_filter(&ops, "ft_target_c", true) == 0);
		KT_ASSERT(t, register_ftrace_function(&ops) == 0);
		KT_EXPECT(t, site_calls(ft_target_c,
					own ? (void *)ops.trampoline : ftrace_regs_caller));
		KT_EXPECT_EQ(t, ft_target_c(41),
			     44); /* the function still runs, with its argument */
		KT_EXPECT(t, s.last_regs != NULL);
		KT_EXPECT_EQ(t, s.regs_di, 41);
		KT_EXPECT_EQ(t, s.regs_ip, (unsigned long)ft_target_c + MCOUNT_INSN_SIZE);
		unregister_ftrace_function(&ops);
		KT_EXPECT(t, site_is_nop(ft_target_c));
		free_ftrace_hash(ops.local_hash.filter_hash);
	}
}

static void redirect_to_fixed(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			      struct pt_regs *regs)
{
	regs->ip = (unsigned long)ft_target_fixed;
}

SELFTEST_DYNAMIC(ftrace_ipmodify_redirects)
{
	static struct ftrace_ops ops, second;
	static struct seen s;

	if (!ftrace_quiet(t))
		return;

	init_ops(&ops, &s, FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY);
	ops.func = redirect_to_fixed;
	KT_ASSERT(t, ftrace_set_filter(&ops, "ft_target_a", true) == 0);
	KT_EXPECT_EQ(t, ft_target_a(5), 6);
	KT_ASSERT(t, register_ftrace_function(&ops) == 0);
	KT_EXPECT_EQ(t, ft_target_a(5), 500); /* the call ran the replacement */
	/* A second ip-modifying ops on the same function is refused. */
	init_ops(&second, &s, FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY);
	KT_ASSERT(t, ftrace_set_filter(&second, "ft_target_a", true) == 0);
	KT_EXPECT_EQ(t, register_ftrace_function(&second), -EBUSY);
	KT_EXPECT_EQ(t, unregister_ftrace_function(&ops), 0);
	KT_EXPECT_EQ(t, ft_target_a(5), 6);
	free_ftrace_hash(ops.local_hash.filter_hash);
	free_ftrace_hash(second.local_hash.filter_hash);
}

static volatile unsigned long nested_outer;

static void call_traced_inside(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			       struct pt_regs *regs)
{
	nested_outer++;
	ft_target_b(0); /* traced too: must not re-enter this callback */
}

SELFTEST(ftrace_recursion_guard)
{
	static struct ftrace_ops ops;
	static struct seen s;

	if (!ftrace_quiet(t))
		return;

	init_ops(&ops, &s, 0);
	ops.func = call_traced_inside;
	nested_outer = 0;
	KT_ASSERT(t, ftrace_set_filter(&ops, "ft_target_a ft_target_b", true) == 0);
	KT_ASSERT(t, register_ftrace_function(&ops) == 0);
	ft_target_a(0);
	KT_EXPECT_EQ(t, nested_outer, 1);
	ft_target_b(0);
	KT_EXPECT_EQ(t, nested_outer, 2);
	unregister_ftrace_function(&ops);
	free_ftrace_hash(ops.local_hash.filter_hash);
}

SELFTEST_DYNAMIC(ftrace_enabled_kill_switch)
{
	static struct ftrace_ops ops;
	static struct seen s;

	if (!ftrace_quiet(t))
		return;

	init_ops(&ops, &s, 0);
	KT_ASSERT(t, ftrace_set_filter(&ops, "ft_target_a", true) == 0);
	KT_ASSERT(t, register_ftrace_function(&ops) == 0);
	KT_EXPECT_EQ(t, ftrace_set_enabled(0), 0);
	KT_EXPECT(t, site_is_nop(ft_target_a));
	ft_target_a(0);
	KT_EXPECT_EQ(t, s.a, 0);
	KT_EXPECT_EQ(t, ftrace_set_enabled(1), 0);
	KT_EXPECT(t, site_calls(ft_target_a, (void *)ops.trampoline));
	ft_target_a(0);
	KT_EXPECT_EQ(t, s.a, 1);
	unregister_ftrace_function(&ops);
	free_ftrace_hash(ops.local_hash.filter_hash);
}

static long filter_count(const char *text)
{
	struct ftrace_hash *h = alloc_ftrace_hash(0);
	long n = ftrace_match_records(h, text);

	if (!n)
		n = h->count;
	free_ftrace_hash(h);
	return n;
}

SELFTEST(ftrace_filter_syntax)
{
	KT_EXPECT_EQ(t, filter_count("ft_target_a"), 1);
	KT_EXPECT_EQ(t, filter_count("ft_target_*"), 4);
	KT_EXPECT_EQ(t, filter_count("*_target_fixed"), 1);
	KT_EXPECT_EQ(t, filter_count("*target_*"), 4);
	KT_EXPECT_EQ(t, filter_count("ft_target_?"), 3);
	KT_EXPECT_EQ(t, filter_count("ft_target_[ab]"), 2);
	KT_EXPECT_EQ(t, filter_count("ft_target_* !ft_target_b"), 3);
	KT_EXPECT_EQ(t, filter_count("ft_target_a\tft_target_c\n"), 2);
	KT_EXPECT_EQ(t, filter_count("1"), 1);
	KT_EXPECT_EQ(t, filter_count("no_such_function"), -EINVAL);
	KT_EXPECT_EQ(t, filter_count("ft_target_a no_such_function"), -EINVAL);
	KT_EXPECT_EQ(t, filter_count("ft_target_[ab"), -EINVAL);
	KT_EXPECT_EQ(t, filter_count("0"), -EINVAL);
	KT_EXPECT_EQ(t, filter_count("999999"), -EINVAL);
	KT_EXPECT_EQ(t, filter_count("!"), -EINVAL);
	KT_EXPECT_EQ(t, filter_count("ft_target_a:traceoff"), -EINVAL);
}

SELFTEST(ftrace_filter_error_keeps_set)
{
	static struct ftrace_ops ops;
	static struct seen s;

	init_ops(&ops, &s, 0);
	KT_ASSERT(t, ftrace_set_filter(&ops, "ft_target_a ft_target_b", true) == 0);
	KT_EXPECT_EQ(t, ftrace_set_filter(&ops, "ft_target_c nonexistent", true), -EINVAL);
	KT_EXPECT_EQ(t, ops.local_hash.filter_hash->count, 2);
	KT_EXPECT(t, ftrace_lookup_hash(ops.local_hash.filter_hash, (unsigned long)ft_target_a));
	free_ftrace_hash(ops.local_hash.filter_hash);
}

SELFTEST_DYNAMIC(ftrace_bug_on_corrupt_site)
{
	static const u8 garbage[MCOUNT_INSN_SIZE] = { 0x90, 0x90, 0x90, 0x90, 0x90 };
	static struct ftrace_ops ops, other;
	static struct seen s;
	struct dyn_ftrace *rec = ftrace_lookup_ip((unsigned long)ft_victim);
	unsigned long bugs = ftrace_bug_count;
	char why[96];

	if (!ftrace_quiet(t))
		return;

	KT_ASSERT(t, rec != NULL);
	init_ops(&ops, &s, 0);
	KT_ASSERT(t, ftrace_set_filter(&ops, "ft_victim ft_target_a ft_target_c", true) == 0);
	/* Someone else wrote the site behind ftrace's back: valid code, but not the NOP. */
	text_poke((void *)ft_victim, garbage, MCOUNT_INSN_SIZE);
	cprintf("# ftrace_bug_on_corrupt_site: an ftrace bug report follows, on purpose\n");
	KT_EXPECT_EQ(t, register_ftrace_function(&ops), -EINVAL);
	KT_EXPECT_EQ(t, ftrace_bug_count, bugs + 1);
	KT_EXPECT(t, ftrace_disabled);
	KT_EXPECT(t, rec->flags & FTRACE_FL_DISABLED);
	KT_EXPECT(t, !memcmp((void *)ft_victim, garbage, MCOUNT_INSN_SIZE)); /* left alone */
	KT_EXPECT_EQ(t, ft_victim(1), 0);				     /* still runs */
	init_ops(&other, &s, 0);
	KT_EXPECT_EQ(t, register_ftrace_function(&other), -ENODEV);
	/* Every other site holds exactly what its flags say. */
	if (ftrace_verify_all_sites(why, sizeof(why)))
		ktest_fail(t, __FILE__, __LINE__, "%s", why);

	/* Undo, so later tests have a working ftrace: a test-only door. */
	text_poke((void *)ft_victim, ftrace_nop5, MCOUNT_INSN_SIZE);
	ftrace_selftest_revive(rec);
	KT_EXPECT_EQ(t, unregister_ftrace_function(&ops), 0);
	KT_EXPECT(t,
		  site_is_nop(ft_target_a) && site_is_nop(ft_target_c) && site_is_nop(ft_victim));
	if (ftrace_verify_all_sites(why, sizeof(why)))
		ktest_fail(t, __FILE__, __LINE__, "after revive: %s", why);
	free_ftrace_hash(ops.local_hash.filter_hash);
}

/* A hash grows while it is built (two entries a bucket on average), and loses nothing doing so;
 * copies and removals see every entry where it now hashes. */
SELFTEST(ftrace_hash_grows_while_built)
{
	enum { N = 5000 };
	struct ftrace_hash *h = alloc_ftrace_hash(0), *copy;
	unsigned long base = 0xffffffff80200000UL;
	bool all = true;

	KT_ASSERT(t, h != NULL);
	for (unsigned long i = 0; i < N; i++)
		KT_EXPECT_EQ(t, ftrace_hash_add(h, base + i * 16), 0);
	KT_EXPECT_EQ(t, h->count, N);
	KT_EXPECT(t, h->size_bits >= 11); /* 5000 / 2048 < 2.5 entries a bucket */
	for (unsigned long i = 0; i < N; i++)
		all &= ftrace_lookup_hash(h, base + i * 16);
	KT_EXPECT(t, all);
	KT_EXPECT(t, !ftrace_lookup_hash(h, base + 8));
	copy = alloc_and_copy_ftrace_hash(h);
	KT_ASSERT(t, copy != NULL);
	KT_EXPECT_EQ(t, copy->count, N);
	for (unsigned long i = 0; i < N; i += 2)
		ftrace_hash_remove(copy, base + i * 16);
	KT_EXPECT_EQ(t, copy->count, N / 2);
	KT_EXPECT(t, !ftrace_lookup_hash(copy, base) && ftrace_lookup_hash(copy, base + 16));
	free_ftrace_hash(copy);
	free_ftrace_hash(h);
}
