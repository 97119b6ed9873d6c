/* fault (test mode only): raise an exception on purpose, to prove a fault is loud and ends the run;
 * corrupt a call site, to prove ftrace notices and the kernel lives on; or sleep with a spinlock
 * held, to prove might_sleep() reports it. */
#include "kernel/shell/shell.h"
#include "arch/x86/text_poke.h"
#include "kernel/kallsyms.h"
#include "kernel/trace/ftrace.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/spinlock.h"
#include "lib/string.h"

/* Each fault lives in its own non-inlined function so the backtrace names it. */
/* Kept in a variable so the compiler cannot see (and warn about) the bad pointer. */
static volatile unsigned long bad_addr = 0x10;

static noinline void fault_page(void)
{
	*(volatile int *)bad_addr = 1; /* nothing is mapped at the bottom of the address space */
}

static noinline void fault_text_write(void)
{
	/* W^X: kernel text is read-only, even for the kernel. */
	*(volatile u8 *)(void *)fault_page = 0xcc;
}

static noinline void fault_gp(void)
{
	*(volatile u64 *)0x8000000000000000UL = 1; /* non-canonical address: #GP, not #PF */
}

static noinline void fault_ud(void)
{
	__asm__ volatile("ud2");
}

static noinline void fault_de(void)
{
	unsigned long zero = 0;
	__asm__ volatile("xor %%edx, %%edx; div %1" : : "a"(1UL), "r"(zero) : "rdx");
}

/*
 * `fault site FUNC`: five one-byte NOPs over FUNC's fentry site, behind ftrace's back (valid code,
 * but not the bytes ftrace recorded), so the next update of that site is an ftrace_bug. Pick a
 * function nothing runs meanwhile: the write is not the int3 protocol.
 */
static int fault_site(const char *name)
{
	static const u8 nops[MCOUNT_INSN_SIZE] = { 0x90, 0x90, 0x90, 0x90, 0x90 };
	unsigned long ip = kallsyms_lookup_name(name);

	if (!ip || !ftrace_lookup_ip(ip)) {
		cprintf("fault: %s: not a function with an fentry site\n", name);
		return 1;
	}
	text_poke((void *)ip, nops, MCOUNT_INSN_SIZE);
	return 0;
}

/* `fault sleep`: the bug might_sleep() exists for, on a lock nobody else uses; the shell lives on. */
static noinline void fault_sleep_locked(void)
{
	static DEFINE_SPINLOCK(fault_lock);

	spin_lock(&fault_lock);
	msleep(1);
	spin_unlock(&fault_lock);
	cprintf("fault: slept 1 ms holding a spinlock\n");
}

static int cmd_fault(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} kinds[] = { { "pf", fault_page },
		      { "wx", fault_text_write },
		      { "gp", fault_gp },
		      { "ud", fault_ud },
		      { "de", fault_de } };

	if (argc == 2 && !strcmp(argv[1], "panic"))
		panic("fault command");
	if (argc == 2 && !strcmp(argv[1], "sleep")) {
		fault_sleep_locked();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "site"))
		return fault_site(argv[2]);
	for (size_t i = 0; argc == 2 && i < ARRAY_SIZE(kinds); i++) {
		if (!strcmp(argv[1], kinds[i].name)) {
			kinds[i].fn();
			cprintf("fault: %s returned?\n", argv[1]);
			return 1;
		}
	}
	cprintf("usage: fault pf|wx|gp|ud|de|panic|sleep, or fault site FUNCTION\n");
	return 2;
}
SHELL_TEST_CMD(fault, cmd_fault,
	       "fault pf|wx|gp|ud|de|panic: crash on purpose; fault sleep: msleep holding a "
	       "spinlock; fault site FUNC: corrupt its call site (test mode)");
