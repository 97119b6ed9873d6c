/* seq_file: how a file's show handler produces text without knowing where it goes. */
#include "kernel/fs/fs.h"
#include "kernel/printk/printk.h"
#include "lib/printf.h"
#include "lib/string.h"

void seq_flush(struct seq_file *m)
{
	if (m->flush && m->count) {
		m->flush(m);
		m->count = 0;
	}
}

void seq_write(struct seq_file *m, const char *s, size_t len)
{
	while (len) {
		size_t room = m->size - m->count;
		if (!room) {
			if (!m->flush) {
				m->overflow = true;
				return;
			}
			seq_flush(m);
			continue;
		}
		size_t n = MIN(room, len);
		memcpy(m->buf + m->count, s, n);
		m->count += n;
		s += n;
		len -= n;
	}
}

void seq_puts(struct seq_file *m, const char *s)
{
	seq_write(m, s, strlen(s));
}

void seq_putc(struct seq_file *m, char c)
{
	seq_write(m, &c, 1);
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	seq_write(m, buf, n);
}

/* A flush function that prints: what `cat` and other commands that show a file use. */
void seq_console_flush(struct seq_file *m)
{
	console_write(m->buf, m->count);
}
