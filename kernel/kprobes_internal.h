/* What kernel/kprobes.c (the table of probed sites, registration, arming) and arch/x86/kprobes/
 * (decoding, int3 and single-step handling) share, and nobody else sees. */
#ifndef KERNEL_KPROBES_INTERNAL_H
#define KERNEL_KPROBES_INTERNAL_H

#include "kernel/kprobes.h"
#include "arch/x86/insn.h"
#include "arch/x86/text_patch.h"

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

/*
 * One probed address. Found by the int3 and ftrace handlers with interrupts off and no lock:
 * published (hash chain, probe list) with release stores, unlinked under kprobe_mutex, freed
 * only after kprobes_synchronize().
 */
struct kprobe_site {
	struct kprobe_site *hnext;
	kprobe_opcode_t *addr;
	struct kprobe *probes;	/* registered here, oldest first */
	bool ftrace;		/* offset 0 of a traced function: no int3, an ftrace_ops calls us */
	bool armed;		/* int3 in the text, or the ip in the ops's filter */
	struct ftrace_ops *ops; /* the ops we are armed through (ftrace sites) */
	kprobe_opcode_t opcode; /* the byte the int3 covers */
	struct arch_specific_insn ainsn;
};

/* Where a CPU is in a hit (Linux's kprobe_status), kept per CPU by arch/x86/kprobes/core.c. */
enum kprobe_status {
	KPROBE_HIT_ACTIVE = 1,
	KPROBE_HIT_SS,
	KPROBE_REENTER,
	KPROBE_HIT_SSDONE,
	KPROBE_STALE_SS, /* ours: stepping in place after an int3 that is gone (core.c) */
};
/* The site whose handlers run on this CPU now (NULL: none), and how far the hit is. */
void kprobe_set_current(struct kprobe_site *s, enum kprobe_status status);
/* arch/x86/kprobes/emulate.c: replays a KP_EMU_* instruction on regs (ip included). */
void kprobe_emulate(struct kprobe_site *s, struct pt_regs *regs);
/* cli, sti, pushf or popf (op) on regs; ip untouched. */
void kprobe_emulate_if(struct pt_regs *regs, u8 op);

/* kernel/kprobes.c */
struct kprobe_site *kprobe_site_lookup(const void *addr);
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

/* kernel/kretprobes.c: the pre handler a kretprobe's kprobe runs (and `list` prints as r). */
int pre_handler_kretprobe(struct kprobe *p, struct pt_regs *regs);

#endif
