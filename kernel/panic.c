/* panic(): say why, loudly, then stop for good (or end QEMU with a failure status in test mode). */
#include "kernel/panic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/locking/lockdep.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "lib/printf.h"

bool test_mode;
static int panicking;

void qemu_exit(int code)
{
	/* isa-debug-exit at 0xf4; without that device the write is ignored and we fall through. */
	outl(0xf4, code);
}

void panic(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	local_irq_disable();
	if (__atomic_fetch_add(&panicking, 1, __ATOMIC_SEQ_CST))
		for (;;)
			halt(); /* a second panic (another CPU, or a fault while panicking) just stops */
	smp_send_stop();	/* the others halt in their NMI handler: one CPU tells the story */
	debug_locks_off();
	console_force_unlock();

	va_start(ap, fmt);
	vscnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk(KERN_EMERG "Kernel panic - not syncing: %s\n", msg);
	ftrace_dump_oops(); /* Linux's panic notifier; after an Oops it has dumped already */
	if (!oops_count)
		show_stack(0, (unsigned long)__builtin_frame_address(0));
	printk(KERN_EMERG "---[ end Kernel panic - not syncing: %s ]---\n", msg);
	if (test_mode)
		qemu_exit(1);
	for (;;)
		halt();
}
