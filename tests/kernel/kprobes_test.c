/* Self-tests of kprobes: every way a probed instruction is replayed (stepped out of line or
 * emulated) leaves the registers and memory exactly as an unprobed run; refusals; probes on
 * ftrace; re-entry; kretprobes; removal while another CPU is inside the handler. */
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/kprobes_internal.h"
#include "kernel/jump_label_internal.h"
#include "kernel/kallsyms.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/trace/ftrace.h"
#include "lib/errno.h"
#include "lib/string.h"

/* What a test body leaves behind: four registers, flags, the stack pointer before and after,
 * and where its probed instruction is (a local label: a global one would be a symbol of its
 * own, and kprobes would see no function around it). */
struct kpt_state {
	unsigned long ax, bx, cx, dx, flags, sp_before, sp_after;
	u8 *insn;
};

unsigned long kpt_data = 0x1122334455667788UL, kpt_data2;

/* A callee outside any C function: reached by the probed call, never probed itself. */
__asm__(".pushsection .text\n"
	".globl kpt_callee\n"
	"kpt_callee: mov $42, %eax\n"
	"	ret\n"
	".popsection\n");

/* st in rdi throughout; the probed instruction at the label .Lkpt_<name>. */
#define KPT_FN(name, setup, insn, after)                                                           \
	noinline void kpt_##name(struct kpt_state *st)                                             \
	{                                                                                          \
		__asm__ volatile("mov %%rsp, 40(%%rdi)\n"                                          \
				 "xor %%ebx, %%ebx\n xor %%ecx, %%ecx\n xor %%edx, %%edx\n"        \
				 "xor %%eax, %%eax\n" setup ".Lkpt_" #name ": " insn "\n" after    \
				 "mov %%rax, 0(%%rdi)\n"                                           \
				 "mov %%rbx, 8(%%rdi)\n"                                           \
				 "mov %%rcx, 16(%%rdi)\n"                                          \
				 "mov %%rdx, 24(%%rdi)\n"                                          \
				 "pushf\n"                                                         \
				 "pop 32(%%rdi)\n"                                                 \
				 "mov %%rsp, 48(%%rdi)\n"                                          \
				 "lea .Lkpt_" #name "(%%rip), %%rax\n"                             \
				 "mov %%rax, 56(%%rdi)\n"                                          \
				 :                                                                 \
				 : "D"(st)                                                         \
				 : "rax", "rbx", "rcx", "rdx", "rsi", "cc", "memory");             \
	}

KPT_FN(riprel_load, "mov $1, %%rax\n", "mov kpt_data(%%rip), %%rax", "")
KPT_FN(riprel_store, "mov $0x55, %%rax\n", "mov %%rax, kpt_data2(%%rip)",
       "mov kpt_data2(%%rip), %%rbx\n")
KPT_FN(riprel_lea, "", "lea kpt_data(%%rip), %%rax", "")
KPT_FN(alu, "mov $-1, %%rax\n mov $1, %%rbx\n", "add %%rbx, %%rax", "")
KPT_FN(push, "mov $7, %%rbx\n", "push %%rbx", "pop %%rax\n")
KPT_FN(pop, "mov $9, %%rbx\n push %%rbx\n", "pop %%rax", "")
KPT_FN(call, "xor %%eax, %%eax\n", "call kpt_callee", "")
KPT_FN(call_indirect, "lea kpt_callee(%%rip), %%rbx\n xor %%eax, %%eax\n", "call *%%rbx", "")
KPT_FN(jmp_indirect, "lea 1f(%%rip), %%rbx\n mov $1, %%rax\n", "jmp *%%rbx", "mov $2, %%rax\n 1:\n")
KPT_FN(jmp8, "mov $1, %%rax\n", "jmp 1f", "mov $2, %%rax\n 1:\n")
KPT_FN(jmp32, "mov $1, %%rax\n", "%{disp32%} jmp 1f", "mov $2, %%rax\n 1:\n")
KPT_FN(jcc8_taken, "mov $1, %%rax\n cmp $1, %%rax\n", "je 1f", "mov $2, %%rax\n 1:\n")
KPT_FN(jcc8_not_taken, "mov $1, %%rax\n cmp $2, %%rax\n", "je 1f", "mov $2, %%rax\n 1:\n")
KPT_FN(jcc32_taken, "mov $5, %%rax\n cmp $3, %%rax\n", "%{disp32%} jg 1f", "mov $2, %%rax\n 1:\n")
KPT_FN(jcc32_not_taken, "mov $1, %%rax\n cmp $3, %%rax\n", "%{disp32%} jg 1f",
       "mov $2, %%rax\n 1:\n")
KPT_FN(loop, "xor %%eax, %%eax\n mov $3, %%rcx\n 1: add $1, %%rax\n", "loop 1b", "")
KPT_FN(pushf, "", "pushf", "pop %%rax\n")
KPT_FN(cli_sti, "pushf\n", "cli", "pushf\n pop %%rax\n popf\n")

static const struct kpt_case {
	const char *name;
	void (*fn)(struct kpt_state *st);
	enum kprobe_replay replay;
	int hits;
} kpt_cases[] = {
	{ "riprel_load", kpt_riprel_load, KP_STEP, 1 },
	{ "riprel_store", kpt_riprel_store, KP_STEP, 1 },
	{ "riprel_lea", kpt_riprel_lea, KP_STEP, 1 },
	{ "alu", kpt_alu, KP_STEP, 1 },
	{ "push", kpt_push, KP_EMU_PUSH, 1 },
	{ "pop", kpt_pop, KP_STEP, 1 },
	{ "call", kpt_call, KP_EMU_CALL, 1 },
	{ "call_indirect", kpt_call_indirect, KP_STEP_CALL_INDIRECT, 1 },
	{ "jmp_indirect", kpt_jmp_indirect, KP_STEP_ABS, 1 },
	{ "jmp8", kpt_jmp8, KP_EMU_JMP, 1 },
	{ "jmp32", kpt_jmp32, KP_EMU_JMP, 1 },
	{ "jcc8_taken", kpt_jcc8_taken, KP_EMU_JCC, 1 },
	{ "jcc8_not_taken", kpt_jcc8_not_taken, KP_EMU_JCC, 1 },
	{ "jcc32_taken", kpt_jcc32_taken, KP_EMU_JCC, 1 },
	{ "jcc32_not_taken", kpt_jcc32_not_taken, KP_EMU_JCC, 1 },
	{ "loop", kpt_loop, KP_EMU_LOOP, 3 },
	{ "pushf", kpt_pushf, KP_EMU_IF, 1 },
	{ "cli_sti", kpt_cli_sti, KP_EMU_IF, 1 },
};

/* Volatile: the compiler cannot see that an int3 in the middle of a call changes them. */
static volatile int kpt_pre_hits, kpt_post_hits;
static volatile unsigned long kpt_pre_ip;

static int kpt_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpt_pre_hits++;
	kpt_pre_ip = regs->ip;
	return 0;
}

static void kpt_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	kpt_post_hits++;
}

static void expect_same(struct ktest *t, const char *name, const struct kpt_state *a,
			const struct kpt_state *b)
{
	if (a->ax != b->ax || a->bx != b->bx || a->cx != b->cx || a->dx != b->dx ||
	    a->flags != b->flags || a->sp_after - a->sp_before != b->sp_after - b->sp_before)
		ktest_fail(t, __FILE__, __LINE__,
			   "%s: probed ax=%lx bx=%lx cx=%lx dx=%lx fl=%lx dsp=%ld, unprobed "
			   "ax=%lx bx=%lx cx=%lx dx=%lx fl=%lx dsp=%ld",
			   name, b->ax, b->bx, b->cx, b->dx, b->flags, b->sp_after - b->sp_before,
			   a->ax, a->bx, a->cx, a->dx, a->flags, a->sp_after - a->sp_before);
}

SELFTEST(kprobes_every_replay_matches_an_unprobed_run)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(kpt_cases); i++) {
		const struct kpt_case *c = &kpt_cases[i];
		struct kprobe kp = { .pre_handler = kpt_pre, .post_handler = kpt_post };
		struct kpt_state plain = { 0 }, probed = { 0 };
		u8 before;
		int err;

		kpt_data2 = 0;
		c->fn(&plain);
		kpt_data2 = 0;
		kp.addr = plain.insn;
		before = plain.insn[0];
		err = register_kprobe(&kp);
		if (err) {
			ktest_fail(t, __FILE__, __LINE__, "%s: register_kprobe: %d", c->name, err);
			continue;
		}
		KT_EXPECT_EQ(t, plain.insn[0], INT3_INSN_OPCODE);
		KT_EXPECT_EQ(t, kp.site->ainsn.replay, c->replay);
		kpt_pre_hits = kpt_post_hits = 0;
		c->fn(&probed);
		unregister_kprobe(&kp);
		KT_EXPECT_EQ(t, plain.insn[0], before);
		expect_same(t, c->name, &plain, &probed);
		KT_EXPECT_EQ(t, kpt_pre_hits, c->hits);
		KT_EXPECT_EQ(t, kpt_post_hits, c->hits);
		KT_EXPECT_EQ(t, kpt_pre_ip, (unsigned long)plain.insn + 1);
	}
}

/* --- refusals --------------------------------------------------------------------------------- */

noinline int kpt_add_one(int x)
{
	return x + 1;
}

static int (*volatile kpt_add_one_ptr)(int) = kpt_add_one;

/* Never called: only its int3 is looked at. */
noinline void kpt_has_int3(struct kpt_state *st)
{
	__asm__ volatile("lea .Lkpt_int3(%%rip), %%rax\n mov %%rax, 56(%%rdi)\n ret\n"
			 ".Lkpt_int3: int3\n"
			 :
			 : "D"(st)
			 : "rax", "memory");
}

/* The offset of the n-th instruction after the fentry site (n = 0: the first one). */
static unsigned int insn_offset(void *fn, int n)
{
	unsigned int off = 5;
	struct insn in;

	while (n-- > 0 && !insn_decode(&in, (u8 *)fn + off, MAX_INSN_SIZE))
		off += in.length;
	return off;
}

static int try_register(const char *sym, void *addr, unsigned int offset)
{
	struct kprobe kp = {
		.symbol_name = sym, .addr = addr, .offset = offset, .pre_handler = kpt_pre
	};
	int err = register_kprobe(&kp);

	if (!err)
		unregister_kprobe(&kp);
	return err;
}

SELFTEST_DYNAMIC(kprobes_refusals)
{
	struct kprobe kp = { .symbol_name = "kpt_add_one", .pre_handler = kpt_pre };
	struct kpt_state st = { 0 };
	u8 fentry[5];

	memcpy(fentry, (void *)kpt_add_one, 5);
	KT_EXPECT_EQ(t, try_register("kpt_no_such_function", NULL, 0), -ENOENT);
	KT_EXPECT_EQ(t, try_register("kpt_add_one", NULL, 1), -EILSEQ); /* inside fentry */
	KT_EXPECT_EQ(t, try_register("kpt_add_one", NULL, insn_offset(kpt_add_one, 1) + 1),
		     -EILSEQ);
	KT_EXPECT_EQ(t, try_register("memcpy", NULL, 0), -EINVAL); /* notrace: lib/ */
	KT_EXPECT_EQ(t, try_register("do_irq", NULL, 0), -EINVAL); /* entry path */
	KT_EXPECT_EQ(t, try_register("kprobe_site_lookup", NULL, 0), -EINVAL);
	KT_EXPECT_EQ(
		t, try_register(NULL, (void *)jump_entry_code(jump_label_demo_key.key.entries), 0),
		-EBUSY);
	__asm__ volatile("lea .Lkpt_int3(%%rip), %%rax\n mov %%rax, 56(%%rdi)\n"
			 :
			 : "D"(&st)
			 : "rax", "memory");
	KT_EXPECT_EQ(t, try_register(NULL, st.insn, 0), -EINVAL);
	KT_ASSERT(t, register_kprobe(&kp) == 0);
	KT_EXPECT_EQ(t, register_kprobe(&kp), -EEXIST);
	unregister_kprobe(&kp);
	/* Nothing was left behind: the site bytes and the probe table are as before. */
	KT_EXPECT(t, !memcmp(fentry, (void *)kpt_add_one, 5));
	KT_EXPECT(t, get_kprobe(kpt_add_one) == NULL);
}

/* --- on ftrace, beside the function tracer, and re-entered -------------------------------------- */

static volatile unsigned long kpt_post_ip;
static volatile int kpt_fn_calls;

static void kpt_post_ip_rec(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	kpt_post_hits++;
	kpt_post_ip = regs->ip;
}

static void kpt_count_calls(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			    struct pt_regs *regs)
{
	kpt_fn_calls++;
}

SELFTEST_DYNAMIC(kprobes_on_ftrace_beside_the_function_tracer)
{
	unsigned long fn = (unsigned long)kpt_add_one;
	struct kprobe entry = { .addr = (void *)fn,
				.pre_handler = kpt_pre,
				.post_handler = kpt_post_ip_rec };
	struct kprobe inner = { .addr = (void *)fn,
				.offset = insn_offset(kpt_add_one, 1),
				.pre_handler = kpt_pre };
	struct ftrace_ops ops = { .func = kpt_count_calls, .name = "kpt" };
	u8 site[5];

	memcpy(site, (void *)fn, 5);
	KT_ASSERT(t, ftrace_set_filter_ip(&ops, fn, false, true) == 0);
	KT_ASSERT(t, register_ftrace_function(&ops) == 0);
	KT_ASSERT(t, register_kprobe(&entry) == 0);
	KT_ASSERT(t, register_kprobe(&inner) == 0);
	KT_EXPECT(t, kprobe_ftrace(&entry) && !kprobe_ftrace(&inner));
	KT_EXPECT(t, *(u8 *)fn == 0xe8); /* the fentry site calls a trampoline: no int3 there */
	kpt_pre_hits = kpt_post_hits = kpt_fn_calls = 0;
	for (int i = 0; i < 10; i++)
		KT_EXPECT_EQ(t, kpt_add_one_ptr(i), i + 1);
	KT_EXPECT_EQ(t, kpt_fn_calls, 10);
	KT_EXPECT_EQ(t, kpt_pre_hits, 20);
	KT_EXPECT_EQ(t, kpt_post_hits, 10);
	KT_EXPECT_EQ(t, kpt_post_ip, fn + 5); /* past the "stepped" 5-byte site */
	unregister_kprobe(&inner);
	unregister_kprobe(&entry);
	unregister_ftrace_function(&ops);
	KT_EXPECT(t, !memcmp(site, (void *)fn, 5));
}

static struct kprobe kpt_inner_probe;

/* A pre handler that calls a probed function: that hit is missed, not handled. */
static int kpt_pre_calls_probed(struct kprobe *p, struct pt_regs *regs)
{
	kpt_pre_hits++;
	kpt_post_ip = kpt_add_one_ptr(41);
	return 0;
}

SELFTEST_DYNAMIC(kprobes_hit_inside_a_handler_is_missed)
{
	struct kprobe outer = { .symbol_name = "kpt_loop",
				.offset = insn_offset(kpt_loop, 1),
				.pre_handler = kpt_pre_calls_probed };
	struct kprobe entry = { .symbol_name = "kpt_add_one", .pre_handler = kpt_pre };
	struct kpt_state st;

	kpt_inner_probe = (struct kprobe){ .symbol_name = "kpt_add_one",
					   .offset = insn_offset(kpt_add_one, 1),
					   .pre_handler = kpt_pre };
	KT_ASSERT(t, register_kprobe(&kpt_inner_probe) == 0);
	KT_ASSERT(t, register_kprobe(&entry) == 0);
	KT_ASSERT(t, register_kprobe(&outer) == 0);
	kpt_pre_hits = 0;
	kpt_loop(&st);
	KT_EXPECT_EQ(t, kpt_pre_hits, 1); /* only the outer handler ran */
	KT_EXPECT_EQ(t, kpt_post_ip, 42); /* the inner function still worked */
	KT_EXPECT_EQ(t, st.ax, 3);
	KT_EXPECT_EQ(t, kpt_inner_probe.nmissed, 1); /* int3 kind, re-entered */
	KT_EXPECT_EQ(t, entry.nmissed, 1);	     /* ftrace kind */
	unregister_kprobe(&outer);
	unregister_kprobe(&entry);
	unregister_kprobe(&kpt_inner_probe);
}

/* --- kretprobes ------------------------------------------------------------------------------- */

static volatile int kpt_ret_hits;
static volatile unsigned long kpt_retval, kpt_ret_to;

static int kpt_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpt_ret_hits++;
	kpt_retval = regs->ax;
	kpt_ret_to = get_kretprobe_retaddr(ri);
	return 0;
}

noinline int kpt_depth(int n);
static int (*volatile kpt_depth_ptr)(int) = kpt_depth;

/* Recursion through a volatile pointer: gcc may not turn it into a loop. */
noinline int kpt_depth(int n)
{
	return n ? kpt_add_one_ptr(0) + kpt_depth_ptr(n - 1) : 0;
}

SELFTEST_DYNAMIC(kretprobe_sees_the_return_value_and_counts_misses)
{
	struct kretprobe rp = { .kp.symbol_name = "kpt_add_one", .handler = kpt_ret_handler };
	struct kretprobe deep = { .kp.symbol_name = "kpt_depth",
				  .handler = kpt_ret_handler,
				  .maxactive = 2 };
	struct kretprobe bad = { .kp.symbol_name = "kpt_add_one",
				 .kp.offset = 5,
				 .handler = kpt_ret_handler };
	unsigned long off;
	const char *caller;

	KT_EXPECT_EQ(t, register_kretprobe(&bad), -EINVAL);
	KT_ASSERT(t, register_kretprobe(&rp) == 0);
	kpt_ret_hits = 0;
	KT_EXPECT_EQ(t, kpt_add_one_ptr(99), 100);
	KT_EXPECT_EQ(t, kpt_ret_hits, 1);
	KT_EXPECT_EQ(t, kpt_retval, 100);
	caller = kallsyms_lookup(kpt_ret_to, NULL, &off);
	KT_EXPECT(t, caller && strstr(caller, "kretprobe_sees_the_return_value"));
	unregister_kretprobe(&rp);
	KT_EXPECT_EQ(t, kpt_add_one_ptr(1), 2);
	KT_EXPECT_EQ(t, kpt_ret_hits, 1);

	/* Four nested calls, two instances: the two outer calls are watched, the inner two missed. */
	KT_ASSERT(t, register_kretprobe(&deep) == 0);
	kpt_ret_hits = 0;
	KT_EXPECT_EQ(t, kpt_depth_ptr(3), 3);
	KT_EXPECT_EQ(t, kpt_ret_hits, 2);
	KT_EXPECT_EQ(t, deep.nmissed, 2);
	unregister_kretprobe(&deep);
	KT_EXPECT(t, current->kretprobe_instances == NULL);
}

/* --- several CPUs ------------------------------------------------------------------------------ */

static volatile bool kpt_stop, kpt_hold;
static volatile int kpt_inside, kpt_errors;
static volatile unsigned long kpt_calls;

static void kpt_worker(void *arg)
{
	for (int i = 0; !kpt_stop; i++) {
		if (kpt_add_one_ptr(i) != i + 1)
			kpt_errors++;
		kpt_calls++;
		if (!(i & 63))
			cond_resched();
	}
}

/* Holds the CPU inside the handler for a while, the first time round only. */
static int kpt_pre_hold(struct kprobe *p, struct pt_regs *regs)
{
	kpt_pre_hits++;
	if (kpt_hold && smp_processor_id() != 0) {
		kpt_hold = false;
		kpt_inside = 1;
		for (volatile long i = 0; i < 3000000; i++)
			;
		kpt_inside = 0;
	}
	return 0;
}

static bool wait_for(volatile unsigned long *counter, unsigned long target)
{
	for (long spins = 0; *counter < target; spins++) {
		if (spins > 200000000L)
			return false;
		cpu_relax();
	}
	return true;
}

/* A worker calling kpt_add_one on every CPU but this one. */
static struct task *start_workers(struct ktest *t)
{
	struct task *w = NULL;

	kpt_stop = false;
	kpt_calls = kpt_errors = 0;
	for (int cpu = 1; cpu < num_online_cpus(); cpu++)
		w = kthread_create(kpt_worker, NULL, cpu, "kpt-loop");
	if (w && !wait_for(&kpt_calls, 100))
		ktest_fail(t, __FILE__, __LINE__, "the workers never ran");
	return w;
}

SELFTEST(kprobes_unregister_waits_for_a_handler_on_another_cpu)
{
	struct kprobe kp = { .symbol_name = "kpt_add_one",
			     .offset = insn_offset(kpt_add_one, 1),
			     .pre_handler = kpt_pre_hold };

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs more CPUs (boot with -smp 2 or more)");
		return;
	}
	KT_ASSERT(t, start_workers(t) != NULL);
	kpt_inside = 0;
	KT_ASSERT(t, register_kprobe(&kp) == 0);
	/* Only now: arming waits for the other CPU, so a hold during it would be over already. */
	kpt_hold = true;
	while (!kpt_inside)
		cpu_relax();
	unregister_kprobe(&kp);
	/* It returned: the other CPU has left the handler, and the probe is out of the text. */
	KT_EXPECT_EQ(t, kpt_inside, 0);
	KT_EXPECT(t, get_kprobe(kp.addr) == NULL);
	kpt_stop = true;
	KT_EXPECT_EQ(t, kpt_errors, 0);
}

/* 60 rounds: the self-tests share one time limit (tests/integration/test_kprobe_events.py does
 * 200 on 4 CPUs through kprobe_events). */
SELFTEST_DYNAMIC(kprobes_armed_and_disarmed_under_load)
{
	struct kprobe step = { .symbol_name = "kpt_add_one",
			       .offset = insn_offset(kpt_add_one, 2),
			       .pre_handler = kpt_pre };
	struct kprobe emu = { .symbol_name = "kpt_add_one",
			      .offset = insn_offset(kpt_add_one, 0),
			      .pre_handler = kpt_pre };
	struct kprobe entry = { .symbol_name = "kpt_add_one", .pre_handler = kpt_pre };
	struct ftrace_ops ops = { .func = kpt_count_calls, .name = "kpt" };
	u8 text[16];
	int hit_rounds = 0;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs more CPUs (boot with -smp 2 or more)");
		return;
	}
	memcpy(text, (void *)kpt_add_one, sizeof(text));
	KT_ASSERT(t, start_workers(t) != NULL);
	KT_ASSERT(t, ftrace_set_filter_ip(&ops, (unsigned long)kpt_add_one, false, true) == 0);
	for (int i = 0; i < 60; i++) {
		struct kprobe *kp = i % 10 == 9 ? &entry : i & 1 ? &emu : &step;
		bool tracer = i % 20 == 19; /* the fentry site changes under the probe on it */
		unsigned long c;
		int h0 = kpt_pre_hits;

		if (register_kprobe(kp)) {
			ktest_fail(t, __FILE__, __LINE__, "round %d: register_kprobe failed", i);
			break;
		}
		if (tracer)
			register_ftrace_function(&ops);
		c = kpt_calls;
		wait_for(&kpt_calls, c + 3);
		if (tracer)
			unregister_ftrace_function(&ops);
		unregister_kprobe(kp);
		hit_rounds += kpt_pre_hits > h0;
	}
	kpt_stop = true;
	KT_EXPECT_EQ(t, kpt_errors, 0);
	KT_EXPECT(t, hit_rounds >= 45); /* the workers met most probes while they were armed */
	KT_EXPECT(t, !memcmp(text, (void *)kpt_add_one, sizeof(text)));
}
