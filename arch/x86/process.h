/* What a task switch changes beyond the kernel stack: the user's state (Linux: process_64.c). */
#ifndef ARCH_X86_PROCESS_H
#define ARCH_X86_PROCESS_H

struct task;

/* Called by __schedule() just before switch_to(), interrupts off. */
void __switch_to_xtra(struct task *prev, struct task *next);
/* The FPU/SSE state a new program starts with (exec), and a copy of the current one (fork). */
int fpu_init_task(struct task *t);
int fpu_copy_current(struct task *child);

#endif
