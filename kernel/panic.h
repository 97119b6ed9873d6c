/* panic() and the assertions that lead to it. */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "lib/compiler.h"
#include "lib/types.h"

/* Prints "Kernel panic - not syncing: msg" and stops; in test mode ends QEMU with a failure code. */
void panic(const char *fmt, ...) __noreturn __printf(1, 2);

#define BUG_ON(cond)                                                                               \
	do {                                                                                       \
		if (unlikely(cond))                                                                \
			panic("BUG at %s:%d: %s", __FILE__, __LINE__, #cond);                      \
	} while (0)

/* True when the kernel command line holds "test": panic exits QEMU and `fault` exists. */
extern bool test_mode;

/* Ends QEMU through the isa-debug-exit device: QEMU's exit status becomes (code << 1) | 1. */
void qemu_exit(int code);

/* ftrace_dump_on_oops: the trace buffer on the console of a dying CPU, once
 * (kernel/trace/trace_dump.c); die() and panic() call it. */
void ftrace_dump_oops(void);
/* A magic SysRq key, after a serial BREAK (kernel/sysrq.c): 'z' dumps the trace buffer. */
void handle_sysrq(u8 key);

#endif
