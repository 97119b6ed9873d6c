/* printk: timestamped log records kept in a ring buffer (dmesg) and echoed to the console by level. */
#include "kernel/printk/printk.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "lib/printf.h"
#include "lib/string.h"

#define LOG_BUF_SIZE (64 * 1024)

int console_loglevel = 7;	  /* print records with a level below this */
int default_message_loglevel = 4; /* the level of a printk() without KERN_* */
int minimum_console_loglevel = 1;
int default_console_loglevel = 7;

/*
 * The log is a byte ring: log_next counts every byte ever written, so the bytes still held are
 * [log_next - LOG_BUF_SIZE, log_next). dmesg skips the first, partly overwritten, line.
 */
static char log_buf[LOG_BUF_SIZE];
static u64 log_next;
static bool line_open; /* the last record did not end in "\n" */
static DEFINE_SPINLOCK(logbuf_lock);

static void log_store(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		log_buf[log_next++ % LOG_BUF_SIZE] = s[i];
}

/* Splits "\001" LEVEL off the format; returns the level ('c' for a continuation). */
static int parse_level(const char **fmt)
{
	const char *f = *fmt;
	if (f[0] == KERN_SOH[0] && f[1]) {
		*fmt = f + 2;
		return f[1] == 'c' ? 'c' : f[1] - '0';
	}
	return default_message_loglevel;
}

int vprintk(const char *fmt, va_list ap)
{
	char text[512], prefix[32];
	int level = parse_level(&fmt);
	int n = vscnprintf(text, sizeof(text), fmt, ap);
	int plen = 0;
	unsigned long flags;

	if (level != 'c' || !line_open) {
		u64 ns = ktime_get_ns();
		plen = scnprintf(prefix, sizeof(prefix), "%s[%5llu.%06llu] ", line_open ? "\n" : "",
				 ns / 1000000000ULL, (ns / 1000) % 1000000);
	}
	flags = spin_lock_irqsave(&logbuf_lock);
	log_store(prefix, plen);
	log_store(text, n);
	line_open = n > 0 ? text[n - 1] != '\n' : line_open;
	spin_unlock_irqrestore(&logbuf_lock, flags);

	if (level == 'c' || level < console_loglevel) {
		console_write(prefix, plen);
		console_write(text, n);
	}
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

void log_buf_for_each(void (*fn)(const char *line, size_t len, void *arg), void *arg)
{
	unsigned long flags = spin_lock_irqsave(&logbuf_lock);
	u64 start = log_next > LOG_BUF_SIZE ? log_next - LOG_BUF_SIZE : 0;
	u64 end = log_next;
	char line[512];
	size_t len = 0;
	bool skipping = start > 0;

	spin_unlock_irqrestore(&logbuf_lock, flags);
	/* Records written while we print may overwrite what we read: dmesg is best effort, as in Linux. */
	for (u64 i = start; i < end; i++) {
		char c = log_buf[i % LOG_BUF_SIZE];
		if (skipping) {
			skipping = c != '\n';
			continue;
		}
		if (len < sizeof(line))
			line[len++] = c;
		if (c == '\n') {
			fn(line, len, arg);
			len = 0;
		}
	}
	if (len)
		fn(line, len, arg);
}
