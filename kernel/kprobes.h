/* Kprobes: a handler run at (almost) any instruction of the running kernel, and kretprobes, a
 * handler run when a function returns. Linux's names and calling conventions.
 *
 *   register_kprobe(p)      symbol+offset -> address, checked to be an instruction boundary in
 *                           probe-able text; the original instruction is decoded and prepared
 *   (armed)                 offset 0 of a traced function: an ftrace_ops with SAVE_REGS calls us
 *                           anywhere else: an int3 over the first byte (kernel/kprobes.c,
 *                           arch/x86/kprobes/core.c)
 *   hit                     pre_handler(p, regs); the original instruction runs out of line
 *                           (single-stepped in a slot) or is emulated; post_handler(p, regs, 0)
 *
 *   (optimized)             a while after arming, an int3 site whose instructions can run
 *                           elsewhere becomes a jmp to a detour buffer (kernel/kprobes_opt.c,
 *                           arch/x86/kprobes/opt.c); it is an int3 again before it is removed
 *
 * Several probes may share one address: they share the int3 (or the ftrace call, or the jmp) and
 * are run in the order they were registered.
 */
#ifndef KERNEL_KPROBES_H
#define KERNEL_KPROBES_H

#include "lib/types.h"

struct pt_regs;
struct kprobe;
struct kprobe_site;
struct seq_file;

typedef u8 kprobe_opcode_t;

/* Returns nonzero if it changed regs->ip itself: the probed instruction is then not run. */
typedef int (*kprobe_pre_handler_t)(struct kprobe *p, struct pt_regs *regs);
/* Runs after the probed instruction, on the registers it left. */
typedef void (*kprobe_post_handler_t)(struct kprobe *p, struct pt_regs *regs, unsigned long flags);

/* kprobe->flags */
#define KPROBE_FLAG_GONE 1U	 /* Linux's: never set here (no modules to unload) */
#define KPROBE_FLAG_DISABLED 2U	 /* registered, not armed */
#define KPROBE_FLAG_OPTIMIZED 4U /* the site is a jmp to a detour buffer, not an int3 */
#define KPROBE_FLAG_FTRACE 8U	 /* rides on the function's ftrace site (offset 0), no int3 */

struct kprobe {
	/* Set by the caller: a symbol and offset, or an address (offset then added to it). */
	const char *symbol_name;
	unsigned int offset;
	kprobe_opcode_t *addr; /* the probed address, once registered */
	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	/* Kept by kprobes. */
	unsigned long nmissed; /* hits not handled: the CPU was already inside a kprobe handler */
	unsigned int flags;    /* KPROBE_FLAG_*; DISABLED may be set before registering */
	struct kprobe_site *site;
	struct kprobe *next_at_site;
};

/*
 * Registers p; armed at once unless p->flags has KPROBE_FLAG_DISABLED. Returns 0 or:
 *   -ENOENT  no such symbol, or the address is not in kernel text
 *   -EILSEQ  offset is not an instruction boundary (decoded from the function's start)
 *   -EINVAL  the address may not be probed (kprobes' own code, the exception and patching
 *            paths), or the instruction cannot run out of line (int3, iret, hlt, ...)
 *   -EBUSY   the bytes belong to another patching client (a jump label site), or the ftrace
 *            site is not available
 *   -EEXIST  p is already registered
 *   -ENOMEM
 * Nothing is left half-registered on error.
 */
int register_kprobe(struct kprobe *p);
/* Disarms (if this was the site's last armed probe) and waits until no CPU can still be
 * running p's handlers; p may be freed when it returns. May sleep. */
void unregister_kprobe(struct kprobe *p);
/* Arm / disarm a registered probe; 0 or -errno. The probe stays registered either way. */
int enable_kprobe(struct kprobe *p);
int disable_kprobe(struct kprobe *p);
static inline bool kprobe_disabled(const struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_DISABLED;
}
static inline bool kprobe_optimized(const struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_OPTIMIZED;
}
static inline bool kprobe_ftrace(const struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_FTRACE;
}

/* Kretprobes ------------------------------------------------------------------------------ */

struct kretprobe;
struct kretprobe_holder;

/* One function call being watched: taken from the kretprobe's pool at entry, kept on the
 * task's list until the function returns through kretprobe_trampoline. */
struct kretprobe_instance {
	struct kretprobe_instance *next; /* the pool's free list, or the task's list */
	struct kretprobe_holder *rph;
	unsigned long ret_addr; /* where the function really returns to */
	unsigned long *frame;	/* the stack slot that held ret_addr */
	char data[];		/* rp->data_size bytes for the handlers */
};

typedef int (*kretprobe_handler_t)(struct kretprobe_instance *ri, struct pt_regs *regs);

struct kretprobe {
	struct kprobe kp;		   /* at the function's entry: symbol_name, offset 0 */
	kretprobe_handler_t handler;	   /* at return: regs->ax holds the return value */
	kretprobe_handler_t entry_handler; /* at entry; nonzero: don't watch this call */
	int maxactive;			   /* calls watched at once; 0: a default for NR_CPUS */
	unsigned long nmissed;		   /* calls not watched: every instance was in use */
	size_t data_size;
	struct kretprobe_holder *rph; /* the instance pool; outlives rp while calls are open */
};

/* The function a kretprobe instance watches, and where it returns to. */
static inline unsigned long get_kretprobe_retaddr(const struct kretprobe_instance *ri)
{
	return ri->ret_addr;
}

/* As register_kprobe, and -EINVAL unless kp is a function's first byte. */
int register_kretprobe(struct kretprobe *rp);
/* Open calls keep their instances; they return normally, without the handler. May sleep. */
void unregister_kretprobe(struct kretprobe *rp);
/*
 * The return hook alone, for a caller with its own entry hook (fprobe.c; Linux's rethook):
 * kretprobe_alloc_pool() makes rp's instances (maxactive, handler and data_size set); at a
 * function's entry, interrupts off, regs->sp at the return address, kretprobe_hook_return()
 * swaps it for the trampoline and returns the instance (NULL: none free, rp->nmissed counted);
 * the handler then runs at the return, get_kretprobe() finding rp. kretprobe_release_pool()
 * waits out running handlers; open calls return without one.
 */
int kretprobe_alloc_pool(struct kretprobe *rp);
struct kretprobe_instance *kretprobe_hook_return(struct kretprobe *rp, struct pt_regs *regs);
struct kretprobe *get_kretprobe(struct kretprobe_instance *ri);
void kretprobe_release_pool(struct kretprobe *rp);
static inline int enable_kretprobe(struct kretprobe *rp)
{
	return enable_kprobe(&rp->kp);
}
static inline int disable_kretprobe(struct kretprobe *rp)
{
	return disable_kprobe(&rp->kp);
}

/* What kprobes knows for the rest of the kernel ------------------------------------------- */

/* The probe(s) at addr, or NULL: the first of the site's list. */
struct kprobe *get_kprobe(const void *addr);
/* True if addr is inside a site's int3 byte: the byte in memory is not the text's own. */
bool kprobe_text_poked(unsigned long addr, u8 *orig_byte);
/* /sys/kernel/debug/kprobes/list, one line per probe (Linux's report_probe format). */
void kprobes_list_show(struct seq_file *m);
/* Probes run on this CPU right now (a kprobe handler is active): a hit now counts as missed. */
bool kprobe_running(void);

/* Gives back the instances of calls a task will never return from (it is exiting). */
struct task;
void kretprobe_flush_task(struct task *t);

/* /proc/sys/debug/kprobes-optimization (Linux's sysctl): 0 keeps every site an int3. */
extern unsigned long kprobes_optimization;
/* The same switch without the sysctl's message (self-tests, bench); true if it changed. */
bool kprobes_set_optimization(bool v);
/* Linux's wait_for_kprobe_optimizer(): returns once no optimization is waiting or under way. */
void wait_for_kprobe_optimizer(void);
/* kprobes/enabled: arm again every probe not disabled (0 or -EBUSY), or disarm all. */
int arm_all_kprobes(void);
void disarm_all_kprobes(void);
extern bool kprobes_all_disarmed;

void kprobes_init(void);

#endif
