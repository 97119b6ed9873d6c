/* The console: the serial line, with "\n" sent as "\r\n" and one writer at a time. */
#include "kernel/printk.h"
#include "arch/x86/serial.h"
#include "kernel/spinlock.h"
#include "lib/printf.h"
#include "lib/string.h"

static DEFINE_SPINLOCK(console_lock);

void console_write(const char *s, size_t len)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
	spin_unlock_irqrestore(&console_lock, flags);
}

void console_puts(const char *s)
{
	console_write(s, strlen(s));
}

int cprintf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_write(buf, n);
	return n;
}

void console_force_unlock(void)
{
	spin_unlock(&console_lock);
}

int console_trygetc(void)
{
	return serial_getc();
}

int console_getc(void)
{
	for (;;) {
		int c;
		/* Check and halt with interrupts off, or a byte arriving in between would be slept on. */
		local_irq_disable();
		c = serial_getc();
		if (c >= 0) {
			local_irq_enable();
			return c;
		}
		safe_halt();
	}
}
