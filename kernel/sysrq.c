/* The magic SysRq key, reached on the serial console by a BREAK and then the key (QEMU: Ctrl-A B,
 * then the key), as Linux's drivers/tty/sysrq.c. Only the tracing one is built: z. */
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/trace/trace.h"

void handle_sysrq(u8 key)
{
	if (key == 'z') {
		pr_info("sysrq: Dump ftrace buffer\n");
		trace_dump(-1);
		return;
	}
	pr_info("sysrq: HELP : dump-ftrace-buffer(z) \n");
}
