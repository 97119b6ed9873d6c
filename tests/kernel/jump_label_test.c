/* Self-tests of jump labels: boot conversion, flips and their bytes, counts, a corrupt site, and
 * flipping while another CPU runs the branch. */
#include "arch/x86/cpu.h"
#include "arch/x86/text_patch.h"
#include "kernel/jump_label_internal.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trace/ftrace.h"
#include "lib/string.h"

static DEFINE_STATIC_KEY_TRUE(jlt_true);
static DEFINE_STATIC_KEY_FALSE(jlt_false);
static DEFINE_STATIC_KEY_FALSE(jlt_victim);

noinline int jlt_true_likely(void)
{
	return static_branch_likely(&jlt_true) ? 1 : 2;
}

noinline int jlt_true_unlikely(void)
{
	return static_branch_unlikely(&jlt_true) ? 1 : 2;
}

noinline int jlt_false_likely(void)
{
	return static_branch_likely(&jlt_false) ? 1 : 2;
}

noinline int jlt_false_unlikely(void)
{
	return static_branch_unlikely(&jlt_false) ? 1 : 2;
}

/* A key inside a bigger object, as trace events embed one in struct tracepoint: listed by
 * /proc/jump_labels as jlt_tracepoint+0x8, tested through the containing object's address. */
struct jlt_fake_tracepoint {
	const char *name;
	struct static_key_false key;
};
struct jlt_fake_tracepoint jlt_tracepoint = { "jlt", STATIC_KEY_FALSE_INIT };

noinline int jlt_tracepoint_hit(void)
{
	return static_branch_unlikely(&jlt_tracepoint.key) ? 1 : 2;
}

noinline int jlt_victim_a(void)
{
	return static_branch_unlikely(&jlt_victim) ? 1 : 2;
}

noinline int jlt_victim_b(void)
{
	return static_branch_unlikely(&jlt_victim) ? 1 : 2;
}

static void expect_sites_match(struct ktest *t, const char *when)
{
	char why[128];

	if (jump_label_verify_all_sites(why, sizeof(why)))
		ktest_fail(t, __FILE__, __LINE__, "%s: %s", when, why);
}

/* The one site of key inside fn (the test functions have one use each). */
static const struct jump_entry *site_in(struct static_key *key, void *fn)
{
	for (const struct jump_entry *e = key->entries;
	     e && e < __stop___jump_table && jump_entry_key(e) == key; e++)
		if (jump_entry_code(e) - (unsigned long)fn < 64)
			return e;
	return NULL;
}

static bool site_is(const struct jump_entry *e, bool jmp)
{
	u8 want[5], shape = jump_site_info[jump_entry_index(e)] & JUMP_SITE_SHAPE;

	return !jump_site_insn(e, shape, jmp, want) &&
	       !memcmp((void *)jump_entry_code(e), want, shape & JUMP_SITE_LEN);
}

SELFTEST(jump_label_sites_after_boot)
{
	const struct jump_entry *e, *start = __start___jump_table, *stop = __stop___jump_table;
	unsigned long two = 0, five = 0;

	KT_ASSERT(t, stop - start >= 8);
	KT_EXPECT_EQ(t, jump_label_nr_sites, stop - start);
	for (e = start; e < stop; e++) {
		u8 info = jump_site_info[e - start];
		struct static_key *key = jump_entry_key(e);
		two += (info & JUMP_SITE_LEN) == 2;
		five += (info & JUMP_SITE_LEN) == 5;
		/* Sorted by key, then address; each key points at the first of its run. */
		if (e > start &&
		    (jump_entry_key(e - 1) > key || (jump_entry_key(e - 1) == key &&
						     jump_entry_code(e - 1) >= jump_entry_code(e))))
			ktest_fail(t, __FILE__, __LINE__, "entry %ld out of order",
				   (long)(e - start));
		if (e == start || jump_entry_key(e - 1) != key)
			KT_EXPECT(t, key->entries == e);
		KT_EXPECT(t, jump_label_lookup(jump_entry_code(e)) == e);
		KT_EXPECT(t, !(info & JUMP_SITE_BAD) || jump_label_bug_count);
	}
	KT_EXPECT_EQ(t, two + five, stop - start);
	KT_EXPECT(t, two > 0 && five > 0); /* the demo has one of each */
	KT_EXPECT(t, jump_label_lookup((unsigned long)jump_label_demo) == NULL);
	expect_sites_match(t, "after boot");
}

SELFTEST(jump_label_likely_unlikely_both_key_kinds)
{
	KT_EXPECT_EQ(t, jlt_true_likely(), 1);
	KT_EXPECT_EQ(t, jlt_true_unlikely(), 1);
	KT_EXPECT_EQ(t, jlt_false_likely(), 2);
	KT_EXPECT_EQ(t, jlt_false_unlikely(), 2);
	/* Each use starts in the form its key wants: likely-on-true and unlikely-on-false as NOPs. */
	KT_EXPECT(t, site_is(site_in(&jlt_true.key, jlt_true_likely), false));
	KT_EXPECT(t, site_is(site_in(&jlt_true.key, jlt_true_unlikely), true));
	KT_EXPECT(t, site_is(site_in(&jlt_false.key, jlt_false_likely), true));
	KT_EXPECT(t, site_is(site_in(&jlt_false.key, jlt_false_unlikely), false));

	static_branch_disable(&jlt_true);
	static_branch_enable(&jlt_false);
	KT_EXPECT_EQ(t, jlt_true_likely(), 2);
	KT_EXPECT_EQ(t, jlt_true_unlikely(), 2);
	KT_EXPECT_EQ(t, jlt_false_likely(), 1);
	KT_EXPECT_EQ(t, jlt_false_unlikely(), 1);
	expect_sites_match(t, "flipped");

	static_branch_enable(&jlt_true);
	static_branch_disable(&jlt_false);
	KT_EXPECT_EQ(t, jlt_true_likely() * 10 + jlt_true_unlikely(), 11);
	KT_EXPECT_EQ(t, jlt_false_likely() * 10 + jlt_false_unlikely(), 22);
	expect_sites_match(t, "back");
}

SELFTEST(jump_label_key_inside_a_struct)
{
	struct static_key *key = &jlt_tracepoint.key.key;

	KT_ASSERT(t, site_in(key, jlt_tracepoint_hit) != NULL);
	KT_EXPECT_EQ(t, jlt_tracepoint_hit(), 2);
	static_key_slow_inc(key);
	KT_EXPECT_EQ(t, jlt_tracepoint_hit(), 1);
	static_key_slow_dec(key);
	KT_EXPECT_EQ(t, jlt_tracepoint_hit(), 2);
	expect_sites_match(t, "after inc/dec");
}

SELFTEST(jump_label_flip_demo_bytes)
{
	struct static_key *key = &jump_label_demo_key.key;
	unsigned long batches = text_patch_batches;

	KT_ASSERT(t, !static_key_enabled(key));
	KT_EXPECT_EQ(t, jump_label_demo(5), 5);
	for (int m = 0; m < NR_PATCH_METHODS; m++) {
		ftrace_set_patch_method(m);
		static_branch_enable(&jump_label_demo_key);
		KT_EXPECT_EQ(t, jump_label_demo(5), 1006);
		for (const struct jump_entry *e = key->entries; jump_entry_key(e) == key; e++)
			KT_EXPECT(t, site_is(e, jump_label_type(e)) &&
					     site_is(e, !jump_entry_is_branch(e)));
		static_branch_disable(&jump_label_demo_key);
		KT_EXPECT_EQ(t, jump_label_demo(5), 5);
		expect_sites_match(t, patch_method_names[m]);
	}
	ftrace_set_patch_method(PATCH_BREAKPOINT);
	KT_EXPECT_EQ(t, text_patch_batches - batches, 2 * NR_PATCH_METHODS); /* one per flip */
}

SELFTEST(jump_label_refcount)
{
	struct static_key *key = &jump_label_demo_key.key;
	unsigned long batches = text_patch_batches;

	static_key_slow_inc(key);
	static_key_slow_inc(key);
	KT_EXPECT_EQ(t, key->enabled, 2);
	KT_EXPECT_EQ(t, text_patch_batches - batches, 1); /* only the first inc patches */
	static_key_disable(key);			  /* others hold it: stays on */
	KT_EXPECT(t, static_key_enabled(key));
	static_key_slow_dec(key);
	KT_EXPECT_EQ(t, jump_label_demo(0), 1001);
	static_key_slow_dec(key);
	KT_EXPECT_EQ(t, key->enabled, 0);
	KT_EXPECT_EQ(t, jump_label_demo(0), 0);
	KT_EXPECT_EQ(t, text_patch_batches - batches, 2);
	static_branch_inc(&jump_label_demo_key);
	static_branch_dec(&jump_label_demo_key);
	KT_EXPECT_EQ(t, jump_label_demo(0), 0);
	expect_sites_match(t, "after inc/dec");
}

SELFTEST(jump_label_bug_on_corrupt_site)
{
	static const u8 garbage[5] = { 0x90, 0x90, 0x90, 0x90, 0x90 };
	const struct jump_entry *a = site_in(&jlt_victim.key, jlt_victim_a);
	const struct jump_entry *b = site_in(&jlt_victim.key, jlt_victim_b);
	unsigned long bugs = jump_label_bug_count;
	u8 saved[5];
	int len;

	KT_ASSERT(t, a && b);
	len = jump_site_info[jump_entry_index(a)] & JUMP_SITE_LEN;
	memcpy(saved, (void *)jump_entry_code(a), len);
	/* Someone else wrote the site: valid code (single-byte NOPs), but not what the key left. */
	text_poke((void *)jump_entry_code(a), garbage, len);
	cprintf("# jump_label_bug_on_corrupt_site: a jump label bug report follows, on purpose\n");
	static_branch_enable(&jlt_victim);
	KT_EXPECT_EQ(t, jump_label_bug_count, bugs + 1);
	KT_EXPECT(t, jump_site_info[jump_entry_index(a)] & JUMP_SITE_BAD);
	KT_EXPECT(t, !memcmp((void *)jump_entry_code(a), garbage, len)); /* left alone */
	KT_EXPECT_EQ(t, jlt_victim_a(), 2);				 /* still runs */
	KT_EXPECT_EQ(t, jlt_victim_b(), 1);				 /* the rest flipped */
	expect_sites_match(t, "with a bad site");
	static_branch_disable(&jlt_victim);
	KT_EXPECT_EQ(t, jlt_victim_b(), 2);

	/* Undo, through a test-only door: the key works on both sites again. */
	text_poke((void *)jump_entry_code(a), saved, len);
	jump_label_selftest_revive(a);
	static_branch_enable(&jlt_victim);
	KT_EXPECT_EQ(t, jlt_victim_a() * 10 + jlt_victim_b(), 11);
	static_branch_disable(&jlt_victim);
	KT_EXPECT_EQ(t, jlt_victim_a() * 10 + jlt_victim_b(), 22);
	KT_EXPECT_EQ(t, jump_label_bug_count, bugs + 1);
	expect_sites_match(t, "after revive");
}

/* CPU 1 calls the demo in a loop while CPU 0 flips its key. */
static volatile u64 jl_calls, jl_errors;
static volatile bool jl_stop;

static void demo_loop(void *arg)
{
	for (int i = 0; !jl_stop; i++) {
		int r = jump_label_demo(i) - i;
		/* 1 and 1000: one site switched, the other not yet (a flip in progress). */
		if (r != 0 && r != 1 && r != 1000 && r != 1001)
			jl_errors++;
		jl_calls++;
		cond_resched();
	}
}

static volatile u64 held_calls;

static bool wait_calls(u64 target, unsigned long ms)
{
	u64 end = rdtsc() + tsc_khz * ms;
	while (jl_calls < target && rdtsc() < end)
		cpu_relax();
	return jl_calls >= target;
}

/* After step 1 both demo sites start with int3: hold until CPU 1 ran through them. */
static void hold_demo(int step, const struct text_poke_loc *tp, int nr)
{
	u64 start = jl_calls;

	if (step != 1 || tp[0].addr != (void *)jump_entry_code(jump_label_demo_key.key.entries))
		return;
	wait_calls(start + 100, 5000);
	held_calls += jl_calls - start;
}

static const struct text_patch_observer hold_demo_observer = { .bp_step = hold_demo };

SELFTEST(jump_label_flip_while_other_cpu_runs_it)
{
	unsigned long hits0 = text_poke_bp_hits;
	struct task *worker;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs more CPUs (boot with -smp 2 or more)");
		return;
	}
	jl_calls = jl_errors = held_calls = 0;
	jl_stop = false;
	worker = kthread_create(demo_loop, NULL, 1, "jl-loop");
	KT_ASSERT(t, worker != NULL);
	KT_ASSERT(t, wait_calls(100, 5000));
	for (int m = 0; m < NR_PATCH_METHODS; m++) {
		ftrace_set_patch_method(m);
		if (m == PATCH_BREAKPOINT)
			KT_ASSERT(t, text_patch_set_observer(&hold_demo_observer) == 0);
		for (int i = 0; i < 20; i++) {
			u64 c = jl_calls;
			static_branch_enable(&jump_label_demo_key);
			expect_sites_match(t, "on");
			wait_calls(c + 5, 2000);
			static_branch_disable(&jump_label_demo_key);
			expect_sites_match(t, "off");
		}
		if (m == PATCH_BREAKPOINT)
			text_patch_set_observer(NULL);
		expect_sites_match(t, patch_method_names[m]);
	}
	ftrace_set_patch_method(PATCH_BREAKPOINT);
	jl_stop = true;
	/* Calls held at int3 were emulated (some may have run a stale TCG block: see text_poke_bp.c). */
	KT_EXPECT(t, held_calls >= 100);
	KT_EXPECT(t, text_poke_bp_hits - hits0 > 0);
	KT_EXPECT_EQ(t, jl_errors, 0);
	KT_EXPECT_EQ(t, jump_label_demo(7), 7);
}

SELFTEST(jump_label_sites_match_keys)
{
	expect_sites_match(t, "now");
}
