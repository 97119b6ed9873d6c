/* The console: the serial line, with "\n" sent as "\r\n" and one writer at a time. */
#include "kernel/printk/printk.h"
#include "arch/x86/serial.h"
#include "kernel/sched/sched.h"
#include "kernel/signal.h"
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

/*
 * Long-running commands poll this: a Ctrl-C typed meanwhile ends them. Like Linux's tty, whose ^C
 * flushes what was typed before it, the input up to the Ctrl-C is dropped; anything typed ahead
 * without one stays for the shell's next line, however long the output.
 */
bool shell_interrupted(void)
{
	serial_poll(); /* with interrupts off, bytes wait in the UART's FIFO: fetch them */
	return serial_take_through(0x03);
}

/* The task waiting in console_getc(), woken by the serial interrupt. */
static struct task *reader;

void console_rx_notify(void)
{
	struct task *t = __atomic_exchange_n(&reader, NULL, __ATOMIC_ACQ_REL);
	if (t)
		wake_up_process(t);
}

int console_getc(void)
{
	for (;;) {
		int c;
		/* Check and sleep with interrupts off, or a byte arriving in between would be slept on. */
		local_irq_disable();
		c = serial_getc();
		if (c >= 0) {
			local_irq_enable();
			return c;
		}
		if (current == this_cpu()->idle) {
			safe_halt(); /* no task to put to sleep (early boot) */
			continue;
		}
		current->state = TASK_SLEEPING;
		/* seq_cst: both stores are seen before the load below */
		__atomic_store_n(&reader, current, __ATOMIC_SEQ_CST);
		/* A program with a signal to take (Ctrl-C among them) stops waiting for a key. Looked
		 * for once asleep, or a kill from another CPU in between is slept through (kernel/sched/
		 * core.c: msleep_interruptible() says why). */
		if (fatal_signal_pending(current)) {
			struct task *me = current;
			__atomic_compare_exchange_n(&reader, &me, NULL, false, __ATOMIC_ACQ_REL,
						    __ATOMIC_RELAXED);
			current->state = TASK_RUNNING;
			local_irq_enable();
			return -1;
		}
		local_irq_enable();
		sleep_until_woken();
	}
}
