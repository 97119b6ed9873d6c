/* Interrupt and exception entry: the saved register frame and the per-vector handler table. */
#ifndef ARCH_X86_TRAPS_H
#define ARCH_X86_TRAPS_H

#include "lib/types.h"

/*
 * The saved register frame, word for word Linux's x86-64 struct pt_regs (lowest address first:
 * the general registers in Linux's order, orig_ax, then the frame the CPU itself pushed), so a
 * BPF program built for Linux reads the right slot with bpf_tracing.h's PT_REGS_IP() and friends.
 * orig_ax is the system call's number in a system call's frame and -1 in an interrupt's or an
 * exception's; the vector and an exception's error code are not in the frame but passed to
 * do_irq() (as Linux's idtentry passes them to the handler). ftrace_regs_caller uses orig_ax for
 * a direct trampoline to leave to, or 0, as Linux's does.
 */
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di;
	unsigned long orig_ax;
	unsigned long ip, cs, flags, sp, ss;
};

/* Exception vectors. */
enum {
	X86_TRAP_DE = 0,
	X86_TRAP_DB = 1,
	X86_TRAP_NMI = 2,
	X86_TRAP_BP = 3,
	X86_TRAP_OF = 4,
	X86_TRAP_BR = 5,
	X86_TRAP_UD = 6,
	X86_TRAP_NM = 7,
	X86_TRAP_DF = 8,
	X86_TRAP_TS = 10,
	X86_TRAP_NP = 11,
	X86_TRAP_SS = 12,
	X86_TRAP_GP = 13,
	X86_TRAP_PF = 14,
	X86_TRAP_MF = 16,
	X86_TRAP_AC = 17,
	X86_TRAP_MC = 18,
	X86_TRAP_XF = 19,
};

/* Device interrupt vectors. */
#define IRQ_VECTOR_BASE 0x20
#define TIMER_VECTOR 0x20
#define SERIAL_VECTOR 0x24
#define CALL_FUNCTION_VECTOR 0xf1
#define RESCHEDULE_VECTOR 0xf2
#define CALL_FUNCTION_SINGLE_VECTOR 0xf3
#define IRQ_WORK_VECTOR 0xf6 /* Linux's number: kernel/irq_work.c's self-IPI */
#define SPURIOUS_VECTOR 0xff

typedef void (*irq_handler_t)(struct pt_regs *regs);

/* Handlers for vectors 32..255; exceptions are handled in traps.c. */
void set_irq_handler(int vector, irq_handler_t fn);

/* A hook the #BP handler asks first; returns true if it handled the int3 (text_poke_bp uses it). */
extern bool (*int3_hook)(struct pt_regs *regs);
/* Kprobes' hooks (arch/x86/kprobes/core.c): its int3s (asked after int3_hook), the single-step
 * #DB after a probed instruction, and a fault to report at the probed address, not its copy. */
extern bool (*kprobe_int3_hook)(struct pt_regs *regs);
extern bool (*kprobe_debug_hook)(struct pt_regs *regs);
extern void (*kprobe_fault_hook)(struct pt_regs *regs);

void gdt_init(void);
void tss_set_sp0(unsigned long sp0);
/* Ring 3 entry on this CPU: the syscall MSRs, SMEP and SMAP where the CPU has them. */
void syscall_init(void);
extern bool smap_enabled;

/* Where a pt_regs came from: ring 3 has a user code selector. */
static inline bool user_mode(const struct pt_regs *regs)
{
	return (regs->cs & 3) == 3;
}
void idt_init(void);
void idt_load(void);

/* arch/x86/mm/fault.c: true when a #PF was a user page made, a uaccess fixup taken, or a bad
 * user access from ring 3 answered (SIGSEGV to its handler, or the process killed). */
bool do_page_fault(struct pt_regs *regs, unsigned long error_code);
void do_user_trap(struct pt_regs *regs, int trapnr, unsigned long error_code);
/* arch/x86/entry/common.c: what must happen before an interrupt returns to ring 3. */
void irqentry_exit_to_user_mode(struct pt_regs *regs);

/* Prints the registers and a symbolized backtrace of a frame. */
void show_regs(const struct pt_regs *regs);
/* Prints "Call Trace:" and one symbolized line per frame, following the frame pointer chain. */
void show_stack(unsigned long ip, unsigned long bp);
/* A frame pointer we may follow: mapped, aligned, in the kernel half. Reading it must not fault. */
bool frame_ok(unsigned long fp);

/* The number of the exception dump ("[#1]"), for tests that expect exactly one. */
extern int oops_count;

#endif
