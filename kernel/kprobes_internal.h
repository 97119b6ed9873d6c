/* What kernel/kprobes.c (the table of probed sites, registration, arming) and arch/x86/kprobes/
 * (decoding, int3 and single-step handling) share, and nobody else sees. */
#ifndef KERNEL_KPROBES_INTERNAL_H
#define KERNEL_KPROBES_INTERNAL_H

#include "kernel/kprobes.h"
#include "arch/x86/insn.h"
#include "arch/x86/text_patch.h"
#include "kernel/spinlock.h"
#include "kernel/locking/mutex.h"

struct ftrace_ops;

/* How the probed instruction is replayed once the handlers have run. */
enum kprobe_replay {
	KP_STEP,	       /* copied to a slot, run there with TF set; ip moved back after */
	KP_STEP_CALL_INDIRECT, /* ff /2: as KP_STEP, and the pushed return address moved back */
	KP_STEP_ABS,	       /* ff /4 (jmp indirect): ip is the absolute target, left alone */
	KP_EMU_CALL,	       /* e8: push next, jump */
	KP_EMU_JMP,	       /* e9, eb */
	KP_EMU_JCC,	       /* 7x, 0f 8x: jump if the condition holds on the saved flags */
	KP_EMU_LOOP,	       /* e0-e3: loopne, loope, loop, jrcxz */
	KP_EMU_RET,	       /* c3, c2 iw */
	KP_EMU_PUSH,	       /* 50+r: push a register */
	KP_EMU_IF,	       /* cli, sti, pushf, popf: they touch IF, which stepping hides */
};

struct arch_specific_insn {
	u8 insn[MAX_INSN_SIZE]; /* the original instruction, as decoded */
	u8 len;
	u8 replay; /* enum kprobe_replay */
	u8 opcode; /* the opcode byte the emulation switches on */
	u8 reg;	   /* KP_EMU_PUSH: register number 0..15; KP_EMU_JCC: condition */
	s64 rel;   /* jumps: target - next; KP_EMU_RET: bytes popped after ip */
	u8 *slot;  /* KP_STEP*: the out-of-line copy in execmem */
};

/* Where an int3 site stands with respect to its jump (arch/x86/kprobes/opt.c). */
enum kprobe_opt_state {
	KPROBE_OPT_NONE,   /* int3; the probed instruction stepped or emulated */
	KPROBE_OPT_DETOUR, /* int3; after the handlers, the detour buffer's copy of the range runs */
	KPROBE_OPT_JUMP,   /* a 5-byte jmp to the detour buffer: optimized */
};

#define DISP32_SIZE 4
/* The range a jmp replaces: whole instructions, at least JMP32_INSN_SIZE bytes. */
#define MAX_OPTIMIZED_LENGTH (JMP32_INSN_SIZE - 1 + MAX_INSN_SIZE)

/* Linux's arch_optimized_insn: the detour buffer of one site, and what its jmp covers. */
struct arch_optimized_insn {
	u8 copied_insn[DISP32_SIZE]; /* the original bytes under the jmp's rel32 */
	u8 *insn;		     /* the detour buffer (execmem), or NULL */
	u8 size;		     /* bytes of whole instructions the jmp replaces */
	bool refused;		     /* never: the code itself forbids it (why_not says why) */
	const char *why_not;	     /* the last reason the site stayed an int3, or NULL */
	bool queued;		     /* the optimizer's pass: its jmp went into the batch */
	struct kprobe_site *next;    /* the optimizer's pass: the sites it is optimizing */
};

/*
 * One probed address. Found by the int3 and ftrace handlers with interrupts off and no lock:
 * published (hash chain, probe list) with release stores, unlinked under kprobe_mutex, freed
 * only after kprobes_synchronize().
 */
struct kprobe_site {
	struct kprobe_site *hnext;
	kprobe_opcode_t *addr;
	struct kprobe *probes; /* registered here, oldest first */
	/* What an optimized hit calls, never NULL once a probe is here: the site's one probe when
	 * it is alone, armed and has a pre handler, or else walk, whose pre handler runs the list.
	 * Set under kprobe_mutex by update_only_probe(). */
	struct kprobe *only;
	struct kprobe walk;
	bool ftrace;		/* offset 0 of a traced function: no int3, an ftrace_ops calls us */
	bool armed;		/* int3 in the text, or the ip in the ops's filter */
	struct ftrace_ops *ops; /* the ops we are armed through (ftrace sites) */
	kprobe_opcode_t opcode; /* the byte the int3 covers */
	u8 opt_state;		/* enum kprobe_opt_state; read by the int3 handler */
	struct arch_specific_insn ainsn;
	struct arch_optimized_insn optinsn;
};

/* Linux's kprobe_insn_cache: slots of execmem (kernel/kprobes_slots.c). A freed slot is filled
 * with int3 first; free only after no CPU can be running in it. */
#define KPROBE_CACHE_PAGES 8
#define OPTINSN_SLOT_SIZE 512
struct kprobe_insn_page {
	u8 *page;
	unsigned long used[2]; /* one bit a slot: 128 slots of 32 bytes fill a page */
};
struct kprobe_insn_cache {
	unsigned int slot_size;
	unsigned int next; /* next fit: a slot just freed is the last to be used again */
	spinlock_t lock;
	struct kprobe_insn_page pages[KPROBE_CACHE_PAGES];
};
extern struct kprobe_insn_cache kprobe_insn_slots, kprobe_optinsn_slots;
u8 *__get_insn_slot(struct kprobe_insn_cache *c);
void __free_insn_slot(struct kprobe_insn_cache *c, u8 *slot);

/* Where a CPU is in a hit (Linux's kprobe_status), kept per CPU by arch/x86/kprobes/core.c. */
enum kprobe_status {
	KPROBE_HIT_ACTIVE = 1,
	KPROBE_HIT_SS,
	KPROBE_REENTER,
	KPROBE_HIT_SSDONE,
	KPROBE_STALE_SS, /* ours: stepping in place after an int3 that is gone (core.c) */
};
/* The site whose handlers run on this CPU now, and how far the hit is; NULL: none, and status
 * then KPROBE_HIT_SSDONE (arch/x86/kprobes/ctlblk.h: what an optimized hit finds there). */
void kprobe_set_current(struct kprobe_site *s, enum kprobe_status status);
/* arch/x86/kprobes/emulate.c: replays a KP_EMU_* instruction on regs (ip included). */
void kprobe_emulate(struct kprobe_site *s, struct pt_regs *regs);
/* cli, sti, pushf or popf (op) on regs; ip untouched. */
void kprobe_emulate_if(struct pt_regs *regs, u8 op);

/* kernel/kprobes.c */
/* Every change to the table, a site's list, its armed or optimized state. A mutex: arming a site
 * patches code, which waits for other CPUs. */
extern struct mutex kprobe_mutex;
struct kprobe_site *kprobe_site_lookup(const void *addr);
/* Calls fn on every site (kprobe_mutex held); fn may not unlink it. */
void kprobe_for_each_site(void (*fn)(struct kprobe_site *s, void *arg), void *arg);
/* n bytes at addr as the compiler left them: our int3s and jmps replaced by what they cover. */
void kprobe_read_orig(unsigned long addr, u8 *buf, int n);
/* Runs the pre handlers of the site's armed probes; nonzero: one of them moved regs->ip. */
int kprobe_run_pre_handlers(struct kprobe_site *s, struct pt_regs *regs);
void kprobe_run_post_handlers(struct kprobe_site *s, struct pt_regs *regs);
void kprobe_site_missed(struct kprobe_site *s);
/* Waits until no CPU can still be in a handler, or a slot, that began before the call. */
void kprobes_synchronize(void);

/* arch/x86/kprobes/prepare.c: decodes s->ainsn.insn (already holding the original bytes),
 * decides how to replay it and fills a slot; 0, or -EINVAL with *why set. */
int arch_prepare_kprobe(struct kprobe_site *s, const char **why);
void arch_remove_kprobe(struct kprobe_site *s);
/* arch/x86/kprobes/core.c */
void arch_kprobes_init(void);
/* arch/x86/kprobes/ftrace.c: the callback of the ops ftrace sites are armed through. */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *ops,
			   struct pt_regs *regs);

/* kernel/kprobes_opt.c, kprobe_mutex held. After s was armed or its probes changed: unoptimize it
 * if it may no longer be, or have the optimizer look at it. */
void kprobe_opt_check(struct kprobe_site *s);
/* Back to the int3, at once (the int3 protocol or stop_machine), if it was a jmp. */
void kprobe_unoptimize(struct kprobe_site *s);
void kick_kprobe_optimizer(void);
/* Kicks it only if some armed int3 site may still become a jmp (no thread for nothing). */
void kick_kprobe_candidates(void);
/* /proc/sys/debug/kprobes-optimization written v (0 or 1); 0. The same without its message:
 * true if it changed anything. */
int kprobes_optimization_set(void *data, unsigned long v);
/* kernel/kprobes_files.c: list, enabled, blacklist, the sysctl. */
void kprobes_files_init(void);

/* arch/x86/kprobes/opt.c. prepare: the detour buffer built (0), or -errno with *why. */
int arch_prepare_optimized_kprobe(struct kprobe_site *s, const char **why);
void arch_remove_optimized_kprobe(struct kprobe_site *s);
bool arch_optimized_range_busy(const struct kprobe_site *s);
/* Where the buffer's copy of the range starts: where an int3 hit goes in KPROBE_OPT_DETOUR. */
unsigned long arch_optimized_copy(const struct kprobe_site *s);
void arch_optimized_forms(const struct kprobe_site *s, u8 *int3_form, u8 *jmp_form);
int optimized_callback(struct kprobe_site *s, struct pt_regs *regs);

/* kernel/kretprobes.c: the pre handler a kretprobe's kprobe runs (and `list` prints as r). */
int pre_handler_kretprobe(struct kprobe *p, struct pt_regs *regs);

#endif
