/* The code patcher every client shares (ftrace, jump labels, later kprobes): a batch of
 * (address, old bytes, new bytes), checked as it is queued and applied with one method.
 *
 *   client (knows what the bytes mean)          patcher (knows only bytes and CPUs)
 *   err = text_patch_begin(&b)     ---------->  -EBUSY if the observer holds a batch, else takes
 *                                               text_mutex: one batch in the text at a time
 *   text_patch_queue(&b, addr, old, new, len)   old == memory? queue : b->mismatch(site, actual)
 *   text_patch_commit(&b)          ---------->  early / one CPU / stop_machine / int3 protocol
 *
 * Nothing here knows who the client is: a mismatch is handed back through the batch's callback,
 * and the client reports it in its own words (ftrace_bug, the jump label bug report). Nothing here
 * knows who watches either: one optional observer (struct text_patch_observer) is told each step.
 */
#ifndef ARCH_X86_TEXT_PATCH_H
#define ARCH_X86_TEXT_PATCH_H

#include "lib/types.h"
#include "arch/x86/text_poke.h"
#include "lib/compiler.h"

/* How run-time changes reach the text once several CPUs run (the patch_method file). */
enum patch_method { PATCH_BREAKPOINT, PATCH_STOP_MACHINE, NR_PATCH_METHODS };
extern enum patch_method text_patch_method;
extern const char *const patch_method_names[];

struct text_patch_batch {
	struct text_poke_loc *vec; /* grows as sites are queued; kept between batches */
	int nr, cap;
	bool open;	    /* between begin and commit: text_mutex is held */
	const char *client; /* only a name, for the text_patch events ("ftrace", "jump_label") */
	/* A site did not hold old: called at queue time, nothing queued for it. May be NULL. */
	void (*mismatch)(const struct text_poke_loc *site, const u8 *actual, void *cookie);
};

/* A hint from a client that knows how many sites its next batch holds (boot: every one). */
void text_patch_reserve(struct text_patch_batch *b, int n);
/*
 * Takes text_mutex (may sleep while another client's batch is applied) and empties the batch; 0.
 * -EBUSY, nothing taken, while the observer holds a batch and does not admit the caller: the one
 * place that refusal is made, so every writer of code answers it the same way and none can wait
 * for a batch that only its own shell could release.
 */
int __must_check text_patch_begin(struct text_patch_batch *b);
/* Applies what is queued so far and keeps the batch open (ftrace's update: one batch a step). */
void text_patch_apply(struct text_patch_batch *b);
/*
 * Checks that addr holds old (len bytes, 1..15) now; if so, queues the change and returns 0
 * (nothing is queued when old == new), else calls b->mismatch and returns -EINVAL. Outside
 * begin/commit the change is a batch of its own, applied before we return (or -EBUSY).
 */
int text_patch_queue(struct text_patch_batch *b, void *addr, const u8 *old, const u8 *new, int len,
		     void *cookie);
/* Applies what was queued with the method in force, and releases text_mutex. */
void text_patch_commit(struct text_patch_batch *b);
/* Changes the method once no batch is being applied; -EBUSY as text_patch_begin(). */
int text_patch_set_method(enum patch_method m);

/*
 * The one observer of the patcher (Linux has none: ours is for the lab and the tests). patch_step
 * (kernel/lab/patch_step.c) holds a batch between two steps, with text_mutex and ftrace_lock
 * taken, until the shell writes `next`; self-tests hold one to race it. Every hook may be NULL.
 */
struct text_patch_observer {
	/* The int3 protocol (text_poke_bp.c): before anything is written (0), after each step's
	 * sync (1: int3 written, 2: tail, 3: new first byte, the commit). May sleep. */
	void (*bp_step)(int step, const struct text_poke_loc *tp, int nr);
	/* stop_machine (text_patch.c): before the batch is written (0: false drops it, nothing
	 * written) and after (1, the rendezvous over: stop_machine_last is this batch's). */
	bool (*stop_step)(int step, const struct text_poke_loc *tp, int nr);
	/* Asked by text_patch_begin() in the caller's task: false makes it -EBUSY. patch_step admits
	 * only its own thread; NULL admits everyone (who may then wait for text_mutex). */
	bool (*admit)(void);
};

/* Installs obs (-EBUSY if another one is installed), or with NULL removes the one installed. */
int text_patch_set_observer(const struct text_patch_observer *obs);
extern const struct text_patch_observer *volatile text_patch_observer;
/*
 * What text_patch_begin() would answer now, without taking anything: for a command that is about
 * to make many changes (selftest, bench, a tracer switch) and would rather refuse before the first
 * than stop between two. The refusal that counts is still begin's.
 */
bool text_patch_busy(void);

/* Batches applied so far, and how many with each path (self-tests, bench). */
extern unsigned long text_patch_batches;

#endif
