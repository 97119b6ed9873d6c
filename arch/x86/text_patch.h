/* The code patcher every client shares (ftrace, jump labels, later kprobes): a batch of
 * (address, old bytes, new bytes), checked as it is queued and applied with one method.
 *
 *   client (knows what the bytes mean)          patcher (knows only bytes and CPUs)
 *   text_patch_begin(&b)           ---------->  takes text_mutex: one batch in the text at a time
 *   text_patch_queue(&b, addr, old, new, len)   old == memory? queue : b->mismatch(site, actual)
 *   text_patch_commit(&b)          ---------->  early / one CPU / stop_machine / int3 protocol
 *
 * Nothing here knows who the client is: a mismatch is handed back through the batch's callback,
 * and the client reports it in its own words (ftrace_bug, the jump label bug report).
 */
#ifndef ARCH_X86_TEXT_PATCH_H
#define ARCH_X86_TEXT_PATCH_H

#include "lib/types.h"
#include "arch/x86/text_poke.h"

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
/* Takes text_mutex (may wait for another client's batch) and empties the batch. */
void text_patch_begin(struct text_patch_batch *b);
/*
 * Checks that addr holds old (len bytes, 1..15) now; if so, queues the change and returns 0
 * (nothing is queued when old == new), else calls b->mismatch and returns -EINVAL. Outside
 * begin/commit the change is a batch of its own, applied before we return.
 */
int text_patch_queue(struct text_patch_batch *b, void *addr, const u8 *old, const u8 *new, int len,
		     void *cookie);
/* Applies what was queued with the method in force, and releases text_mutex. */
void text_patch_commit(struct text_patch_batch *b);
/* Changes the method; waits until no batch is being applied. */
void text_patch_set_method(enum patch_method m);

/*
 * patch_step (kernel/lab/patch_step.c) holds a batch between two steps of the int3 protocol,
 * with text_mutex and ftrace_lock taken, until the shell writes `next`: a write from the shell that
 * would patch code answers -EBUSY instead of waiting for a lock only the shell can free.
 */
extern volatile bool text_patch_held;
/* patch_step: called before a stop_machine batch is written (step 0: false drops the batch,
 * nothing written) and after it (step 1, the rendezvous over: stop_machine_last is this batch's). */
extern bool (*text_patch_stop_hook)(int step, const struct text_poke_loc *tp, int nr);

/* Batches applied so far, and how many with each path (self-tests, bench). */
extern unsigned long text_patch_batches;

#endif
