/* Self-tests of optimized kprobes: a site becomes a jmp after the optimizer's delay; every register
 * and the stack are what the code left at each hit and after it, the hit count is the int3 path's;
 * refused ranges stay int3 with their reason; a probe landing inside a range unoptimizes it; and
 * sites go to the jmp and back under load while other CPUs run the code. */
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/kprobes_internal.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/string.h"

/* What opt_regs leaves: the stack pointer and rbp at the probe, then every register after the
 * range (rax rbx rcx rdx rsi rdi r8..r15 in that order), and the word it pushed, popped. */
struct opt_state {
	unsigned long seed, sp, bp, after[14], canary, sp_after;
	u8 *probe;
};

/*
 * seed in rsi, st in rdi. Each register gets seed + its number, a canary (the seed) is pushed,
 * and the probed range (.Lopt_regs: two 4-byte adds, a 5-byte jmp's worth) runs; then everything
 * is stored for the caller to check.
 */
noinline void opt_regs(struct opt_state *st, unsigned long seed)
{
	__asm__ volatile("push %%rsi\n"
			 "mov %%rsp, 8(%%rdi)\n"
			 "mov %%rbp, 16(%%rdi)\n"
			 "lea 1(%%rsi), %%rax\n lea 2(%%rsi), %%rbx\n lea 3(%%rsi), %%rcx\n"
			 "lea 4(%%rsi), %%rdx\n lea 8(%%rsi), %%r8\n lea 9(%%rsi), %%r9\n"
			 "lea 10(%%rsi), %%r10\n lea 11(%%rsi), %%r11\n lea 12(%%rsi), %%r12\n"
			 "lea 13(%%rsi), %%r13\n lea 14(%%rsi), %%r14\n lea 15(%%rsi), %%r15\n"
			 ".Lopt_regs: add $0x10, %%rax\n add $0x20, %%rbx\n"
			 "mov %%rax, 24(%%rdi)\n mov %%rbx, 32(%%rdi)\n mov %%rcx, 40(%%rdi)\n"
			 "mov %%rdx, 48(%%rdi)\n mov %%rsi, 56(%%rdi)\n mov %%rdi, 64(%%rdi)\n"
			 "mov %%r8, 72(%%rdi)\n mov %%r9, 80(%%rdi)\n mov %%r10, 88(%%rdi)\n"
			 "mov %%r11, 96(%%rdi)\n mov %%r12, 104(%%rdi)\n mov %%r13, 112(%%rdi)\n"
			 "mov %%r14, 120(%%rdi)\n mov %%r15, 128(%%rdi)\n"
			 "pop 136(%%rdi)\n"
			 "mov %%rsp, 144(%%rdi)\n"
			 :
			 : "D"(st), "S"(seed)
			 : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13",
			   "r14", "r15", "cc", "memory");
}

static u8 *opt_regs_probe(void)
{
	u8 *p;

	__asm__ volatile("lea .Lopt_regs(%%rip), %0" : "=r"(p));
	return p;
}

/* Where opt_regs's registers must be after the range, from the seed. */
static bool opt_state_ok(const struct opt_state *st)
{
	static const unsigned long add[14] = {
		0x11, 0x22, 3, 4, 0, 0, 8, 9, 10, 11, 12, 13, 14, 15
	};

	for (int i = 0; i < 14; i++) {
		unsigned long want = i == 5 ? (unsigned long)st : st->seed + add[i];

		if (st->after[i] != want)
			return false;
	}
	return st->canary == st->seed && st->sp_after == st->sp + 8;
}

static volatile unsigned long opt_hits, opt_bad_hits;

/* At each hit: every register as opt_regs set it, the canary on top of the stack, ip past the
 * probed byte. */
static int opt_check_pre(struct kprobe *p, struct pt_regs *regs)
{
	const struct opt_state *st = (const struct opt_state *)regs->di;
	unsigned long s = regs->si;
	bool ok = s == st->seed && regs->ax == s + 1 && regs->bx == s + 2 && regs->cx == s + 3 &&
		  regs->dx == s + 4 && regs->r8 == s + 8 && regs->r9 == s + 9 &&
		  regs->r10 == s + 10 && regs->r11 == s + 11 && regs->r12 == s + 12 &&
		  regs->r13 == s + 13 && regs->r14 == s + 14 && regs->r15 == s + 15 &&
		  regs->sp == st->sp && *(unsigned long *)regs->sp == s && regs->bp == st->bp &&
		  regs->ip == (unsigned long)p->addr + 1;

	__atomic_add_fetch(&opt_hits, 1, __ATOMIC_RELAXED);
	if (!ok)
		__atomic_add_fetch(&opt_bad_hits, 1, __ATOMIC_RELAXED);
	return 0;
}

/* n runs of opt_regs from seed on; how many left a state ok() refuses. */
static int opt_run_checked(int n, unsigned long seed, bool (*ok)(const struct opt_state *))
{
	struct opt_state st;
	int bad = 0;

	for (int i = 0; i < n; i++) {
		st.seed = seed + i * 0x100;
		opt_regs(&st, st.seed);
		bad += !ok(&st);
	}
	return bad;
}

static int opt_run(int n, unsigned long seed)
{
	return opt_run_checked(n, seed, opt_state_ok);
}

static bool site_is_jmp(const struct kprobe *p)
{
	return p->addr[0] == JMP32_INSN_OPCODE && kprobe_optimized(p) &&
	       p->site->opt_state == KPROBE_OPT_JUMP;
}

SELFTEST_DYNAMIC(optprobes_hit_counts_and_registers)
{
	struct kprobe kp = { .addr = opt_regs_probe(), .pre_handler = opt_check_pre };
	u8 orig[JMP32_INSN_SIZE];
	unsigned long int3_hits;

	memcpy(orig, kp.addr, sizeof(orig));
	opt_hits = opt_bad_hits = 0;
	kprobes_set_optimization(0);
	KT_ASSERT(t, register_kprobe(&kp) == 0);
	KT_EXPECT_EQ(t, kp.addr[0], INT3_INSN_OPCODE);
	KT_EXPECT_EQ(t, opt_run(500, 0x1000), 0);
	int3_hits = opt_hits;
	KT_EXPECT_EQ(t, int3_hits, 500);
	kprobes_set_optimization(1);
	wait_for_kprobe_optimizer();
	KT_EXPECT(t, site_is_jmp(&kp));
	KT_EXPECT_EQ(t, opt_run(500, 0x7000000), 0);
	KT_EXPECT_EQ(t, opt_hits - int3_hits, int3_hits);
	KT_EXPECT_EQ(t, opt_bad_hits, 0);
	unregister_kprobe(&kp);
	KT_EXPECT(t, !memcmp(orig, kp.addr, sizeof(orig)));
	KT_EXPECT_EQ(t, opt_run(10, 0x30), 0);
}

/* A handler that changes registers and moves ip past both adds, returning 1 as Linux asks of one
 * that changes the path: r12 (callee-saved: C would have kept the old value) and rcx come back
 * as it set them, and rax and rbx as the skipped adds left them. */
static int opt_skip_pre(struct kprobe *p, struct pt_regs *regs)
{
	__atomic_add_fetch(&opt_hits, 1, __ATOMIC_RELAXED);
	regs->r12 = regs->si + 0x1200;
	regs->cx = regs->si + 0x300;
	regs->ip = (unsigned long)p->addr + 8; /* past add $0x10,%rax; add $0x20,%rbx */
	return 1;
}

/* After opt_skip_pre: the adds skipped, rcx and r12 as the handler set them, the rest as they were. */
static bool opt_skipped_ok(const struct opt_state *st)
{
	return st->after[0] == st->seed + 1 && st->after[1] == st->seed + 2 &&
	       st->after[2] == st->seed + 0x300 && st->after[10] == st->seed + 0x1200 &&
	       st->after[11] == st->seed + 13 && st->canary == st->seed &&
	       st->sp_after == st->sp + 8;
}

SELFTEST_DYNAMIC(optprobes_handler_moves_ip_and_changes_registers)
{
	struct kprobe kp = { .addr = opt_regs_probe(), .pre_handler = opt_skip_pre };

	opt_hits = 0;
	kprobes_set_optimization(1);
	KT_ASSERT(t, register_kprobe(&kp) == 0);
	wait_for_kprobe_optimizer();
	KT_EXPECT(t, site_is_jmp(&kp));
	KT_EXPECT_EQ(t, opt_run_checked(200, 0x5000, opt_skipped_ok), 0);
	KT_EXPECT_EQ(t, opt_hits, 200);
	unregister_kprobe(&kp);
	KT_EXPECT_EQ(t, opt_run(10, 0x30), 0);
}

/* --- refused ranges ---------------------------------------------------------------------------- */

/* Never called: each has a probe-able first instruction whose range cannot move. */
noinline void opt_refuse_call(void)
{
	__asm__ volatile(".Lopt_call: nop\n call kpt_callee\n" ::: "rax", "memory");
}

noinline void opt_refuse_jump_in(void)
{
	__asm__ volatile(".Lopt_jin: add $1, %%rax\n 1: add $1, %%rbx\n"
			 "cmp $5, %%rax\n jne 1b\n" ::
				 : "rax", "rbx", "cc");
}

noinline void opt_refuse_jcc(void)
{
	__asm__ volatile(".Lopt_jcc: add $1, %%rax\n je 1f\n add $1, %%rbx\n 1:\n" ::
				 : "rax", "rbx", "cc");
}

noinline void opt_refuse_indirect(void)
{
	__asm__ volatile(".Lopt_ind: add $1, %%rax\n add $1, %%rbx\n lea 1f(%%rip), %%rcx\n"
			 "jmp *%%rcx\n 1:\n" ::
				 : "rax", "rbx", "rcx", "cc");
}

/* A lea 2 GiB below the text: in reach of where it is, out of reach of execmem's buffers. */
noinline void opt_refuse_riprel(void)
{
	__asm__ volatile(".Lopt_rip: nop\n lea -0x7ff00000(%%rip), %%rax\n" ::: "rax");
}

static const char *refusal_of(u8 *addr)
{
	struct kprobe kp = { .addr = addr, .pre_handler = opt_check_pre };
	const char *why = "(registered: none)";

	if (register_kprobe(&kp))
		return "(not registered)";
	wait_for_kprobe_optimizer();
	if (kp.addr[0] != INT3_INSN_OPCODE || kprobe_optimized(&kp))
		why = "(optimized)";
	else if (kp.site->optinsn.why_not)
		why = kp.site->optinsn.why_not;
	unregister_kprobe(&kp);
	return why;
}

#define LABEL(l)                                                                                   \
	({                                                                                         \
		u8 *__p;                                                                           \
		__asm__ volatile("lea " l "(%%rip), %0" : "=r"(__p));                              \
		__p;                                                                               \
	})

SELFTEST_DYNAMIC(optprobes_refused_ranges_stay_int3)
{
	KT_EXPECT_STREQ(t, refusal_of(LABEL(".Lopt_call")),
			"a call in the range (its return address would point into the buffer)");
	KT_EXPECT_STREQ(t, refusal_of(LABEL(".Lopt_jin")),
			"a jump in the function lands inside the range");
	KT_EXPECT_STREQ(t, refusal_of(LABEL(".Lopt_jcc")), "a conditional jump in the range");
	KT_EXPECT_STREQ(t, refusal_of(LABEL(".Lopt_ind")),
			"an indirect jump in the function (a jump table may lead into the range)");
	KT_EXPECT_STREQ(t, refusal_of(LABEL(".Lopt_rip")),
			"a rip-relative target out of the buffer's reach");
}

/* A post handler needs the step a jump does not have; a second probe inside the range needs its
 * own int3 there: either turns the jmp back into the int3 first. */
static void opt_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

static volatile unsigned long opt_inner_hits;

/* The second add's probe: rax already moved on, so only counted. */
static int opt_count_pre(struct kprobe *p, struct pt_regs *regs)
{
	__atomic_add_fetch(&opt_hits, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&opt_inner_hits, 1, __ATOMIC_RELAXED);
	return 0;
}

SELFTEST_DYNAMIC(optprobes_probe_in_range_unoptimizes_first)
{
	struct kprobe kp = { .addr = opt_regs_probe(), .pre_handler = opt_check_pre };
	struct kprobe inner = { .addr = opt_regs_probe() + 4, .pre_handler = opt_count_pre };
	struct kprobe post = { .addr = opt_regs_probe(), .post_handler = opt_post };
	u8 orig[JMP32_INSN_SIZE];

	memcpy(orig, kp.addr, sizeof(orig));
	KT_ASSERT(t, register_kprobe(&kp) == 0);
	wait_for_kprobe_optimizer();
	KT_ASSERT(t, site_is_jmp(&kp));
	KT_ASSERT(t, register_kprobe(&inner) == 0);
	KT_EXPECT(t, !kprobe_optimized(&kp));
	KT_EXPECT_EQ(t, kp.addr[0], INT3_INSN_OPCODE);
	KT_EXPECT_EQ(t, inner.addr[0], INT3_INSN_OPCODE);
	KT_EXPECT(t, !memcmp(kp.addr + 1, orig + 1, 3));
	wait_for_kprobe_optimizer();
	KT_EXPECT(t, !kprobe_optimized(&kp));
	KT_EXPECT_STREQ(t, kp.site->optinsn.why_not ? kp.site->optinsn.why_not : "(none)",
			"another probe inside the range");
	opt_hits = opt_bad_hits = opt_inner_hits = 0;
	KT_EXPECT_EQ(t, opt_run(20, 0x500), 0);
	KT_EXPECT_EQ(t, opt_hits, 40); /* both probes, each call */
	KT_EXPECT_EQ(t, opt_inner_hits, 20);
	unregister_kprobe(&inner);
	wait_for_kprobe_optimizer();
	KT_EXPECT(t, site_is_jmp(&kp));
	KT_ASSERT(t, register_kprobe(&post) == 0);
	KT_EXPECT(t, !kprobe_optimized(&kp));
	KT_EXPECT_EQ(t, kp.addr[0], INT3_INSN_OPCODE);
	unregister_kprobe(&post);
	unregister_kprobe(&kp);
	KT_EXPECT(t, !memcmp(orig, kp.addr, sizeof(orig)));
	KT_EXPECT_EQ(t, opt_bad_hits, 0);
}

/* --- under load ------------------------------------------------------------------------------- */

static volatile bool opt_stop;
static volatile unsigned long opt_calls, opt_errors;

static void opt_worker(void *arg)
{
	unsigned long seed = (unsigned long)arg << 32;

	for (int i = 0; !opt_stop; i++) {
		__atomic_add_fetch(&opt_errors, opt_run(1, seed + i * 0x100), __ATOMIC_RELAXED);
		__atomic_add_fetch(&opt_calls, 1, __ATOMIC_RELAXED);
		if (!(i & 63))
			cond_resched();
	}
}

/*
 * Other CPUs run opt_regs in a loop while this one turns its site into a jmp and back, through
 * the sysctl as a user would. 50 rounds on 4 CPUs (tests/integration/test_optprobes.py boots
 * them; each waits for the optimizer's pass, so 200 made that module the slowest of make test),
 * 20 in the shared 2-CPU run of every self-test.
 */
SELFTEST_DYNAMIC(optprobes_optimized_and_unoptimized_under_load)
{
	struct kprobe kp = { .addr = opt_regs_probe(), .pre_handler = opt_check_pre };
	int rounds = num_online_cpus() >= 4 ? 50 : 20, optimized = 0;
	u8 orig[JMP32_INSN_SIZE];

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs more CPUs (boot with -smp 2 or more)");
		return;
	}
	memcpy(orig, kp.addr, sizeof(orig));
	opt_stop = false;
	opt_calls = opt_errors = opt_hits = opt_bad_hits = 0;
	for (unsigned long cpu = 1; cpu < (unsigned long)num_online_cpus(); cpu++)
		kthread_create(opt_worker, (void *)cpu, cpu, "opt-loop");
	while (opt_calls < 100)
		cpu_relax();
	KT_ASSERT(t, register_kprobe(&kp) == 0);
	for (int i = 0; i < rounds; i++) {
		unsigned long c;

		kprobes_set_optimization(1);
		wait_for_kprobe_optimizer();
		optimized += site_is_jmp(&kp);
		c = opt_calls;
		while (opt_calls < c + 3)
			cpu_relax();
		kprobes_set_optimization(0);
		if (kp.addr[0] != INT3_INSN_OPCODE || memcmp(kp.addr + 1, orig + 1, 4)) {
			ktest_fail(t, __FILE__, __LINE__, "round %d: the site is not its int3", i);
			break;
		}
	}
	kprobes_set_optimization(1);
	unregister_kprobe(&kp);
	opt_stop = true;
	KT_EXPECT_EQ(t, optimized, rounds);
	KT_EXPECT(t, !memcmp(orig, kp.addr, sizeof(orig)));
	KT_EXPECT_EQ(t, opt_errors, 0);
	KT_EXPECT_EQ(t, opt_bad_hits, 0);
	KT_EXPECT(t, opt_hits > 0);
}

static volatile unsigned long opt_nested_bad;

/* Runs the probed code again from inside the handler: that hit is nested (the buffer finds this
 * CPU inside a kprobe), so it runs no handler, counts a miss, and still leaves every register as
 * the code set it. */
static int opt_nest_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct opt_state st;

	__atomic_add_fetch(&opt_hits, 1, __ATOMIC_RELAXED);
	st.seed = regs->si + 0x55;
	opt_regs(&st, st.seed);
	if (!opt_state_ok(&st))
		__atomic_add_fetch(&opt_nested_bad, 1, __ATOMIC_RELAXED);
	return 0;
}

/* The buffer's two ways besides the common one: a nested hit (optimized_callback() counts it),
 * and two probes on the site (its `only` is the site's walk, which calls both). */
SELFTEST_DYNAMIC(optprobes_nested_hit_missed_two_probes_walked)
{
	struct kprobe kp = { .addr = opt_regs_probe(), .pre_handler = opt_nest_pre };
	struct kprobe second = { .addr = opt_regs_probe(), .pre_handler = opt_check_pre };

	opt_hits = opt_bad_hits = opt_nested_bad = 0;
	KT_ASSERT(t, register_kprobe(&kp) == 0);
	wait_for_kprobe_optimizer();
	KT_ASSERT(t, site_is_jmp(&kp));
	KT_EXPECT_EQ(t, opt_run(100, 0x2000), 0);
	KT_EXPECT_EQ(t, opt_hits, 100);
	KT_EXPECT_EQ(t, kp.nmissed, 100);
	KT_EXPECT_EQ(t, opt_nested_bad, 0);
	KT_ASSERT(t, register_kprobe(&second) == 0);
	wait_for_kprobe_optimizer();
	KT_EXPECT(t, site_is_jmp(&kp));
	KT_EXPECT(t, kp.site->only == &kp.site->walk);
	opt_hits = 0;
	KT_EXPECT_EQ(t, opt_run(50, 0x9000), 0);
	KT_EXPECT_EQ(t, opt_hits, 100); /* both probes, each call */
	KT_EXPECT_EQ(t, kp.nmissed, 150);
	KT_EXPECT_EQ(t, second.nmissed, 50);
	KT_EXPECT_EQ(t, opt_bad_hits, 0);
	KT_EXPECT_EQ(t, opt_nested_bad, 0);
	unregister_kprobe(&second);
	unregister_kprobe(&kp);
	KT_EXPECT_EQ(t, opt_run(10, 0x40), 0);
}
