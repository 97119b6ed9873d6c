/* trace_printk() and trace_marker_raw: the records and their lines in `trace` (printk_formats,
 * which lists the formats, is trace_export_files.c's).
 *
 *   bprint (6)     ip, fmt, the arguments in binary   "func: x=5"       the common case: cheap now,
 *   bputs (14)     ip, str                            "func: here"      formatted when read
 *   print (5)      ip, the text                       "func: text"      a format that may not last
 *   raw_data (18)  id, bytes (trace_marker_raw)       "# 2a buf: 01 02"
 *
 * Records go to the global buffer, as Linux 6.1's do; the trace_printk option switches them off,
 * printk-msg-only prints the text alone.
 */
#include "kernel/trace/trace_printk.h"
#include "kernel/trace/trace.h"
#include "kernel/fs/tracefs.h"
#include "kernel/printk/printk.h"
#include "kernel/shell/shell.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define TRACE_BUF_SIZE 1024 /* Linux's: the longest text or argument block of one record */

/* One per CPU, used with interrupts off; busy: an NMI arrived during a write (it is dropped). */
static struct {
	u32 buf[TRACE_BUF_SIZE / sizeof(u32)];
	bool busy;
} printk_buf[NR_CPUS];

/* Linux's notice, the first time a trace_printk() runs (Linux prints it when it allocates these
 * buffers: at boot if the kernel holds a trace_printk, else at a module's first one). */
static void trace_printk_banner(void)
{
	static bool said;

	if (__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		return;
	pr_warn("\n");
	pr_warn("**********************************************************\n");
	pr_warn("**   NOTICE NOTICE NOTICE NOTICE NOTICE NOTICE NOTICE   **\n");
	pr_warn("**                                                      **\n");
	pr_warn("** trace_printk() being used. Allocating extra memory.  **\n");
	pr_warn("**                                                      **\n");
	pr_warn("** This means that this is a DEBUG kernel and it is     **\n");
	pr_warn("** unsafe for production use.                           **\n");
	pr_warn("**                                                      **\n");
	pr_warn("** If you see this message and you are not debugging    **\n");
	pr_warn("** the kernel, report it immediately to your vendor!    **\n");
	pr_warn("**                                                      **\n");
	pr_warn("**   NOTICE NOTICE NOTICE NOTICE NOTICE NOTICE NOTICE   **\n");
	pr_warn("**********************************************************\n");
}

/* This CPU's buffer, interrupts off, or NULL (option off, or nested): release with put_buf(). */
static u32 *get_buf(unsigned long *flags)
{
	if (!trace_option(TRACE_OPT_PRINTK) || !READ_ONCE(global_trace.tracing_on))
		return NULL;
	trace_printk_banner();
	*flags = local_irq_save();
	if (printk_buf[smp_processor_id()].busy) {
		local_irq_restore(*flags);
		return NULL;
	}
	printk_buf[smp_processor_id()].busy = true;
	return printk_buf[smp_processor_id()].buf;
}

static void put_buf(unsigned long flags)
{
	printk_buf[smp_processor_id()].busy = false;
	local_irq_restore(flags);
}

int __trace_bprintk(unsigned long ip, const char *fmt, ...)
{
	unsigned long flags;
	u32 *buf = get_buf(&flags);
	struct rb_reserve r;
	struct bprint_entry *e;
	va_list ap;
	int words;

	if (!buf)
		return 0;
	va_start(ap, fmt);
	words = vbin_printf(buf, TRACE_BUF_SIZE, fmt, ap);
	va_end(ap);
	if (words * sizeof(u32) > TRACE_BUF_SIZE || !words)
		goto out; /* Linux drops it too */
	e = trace_reserve(&r, TRACE_BPRINT, sizeof(*e) + words * sizeof(u32), flags, 0);
	if (e) {
		e->ip = ip;
		e->fmt = fmt;
		memcpy(e->buf, buf, words * sizeof(u32));
		ring_buffer_unlock_commit(&r);
	}
out:
	put_buf(flags);
	return words * sizeof(u32);
}

int __trace_bputs(unsigned long ip, const char *str)
{
	struct rb_reserve r;
	struct bputs_entry *e;

	if (!trace_option(TRACE_OPT_PRINTK))
		return 0;
	trace_printk_banner();
	e = trace_reserve(&r, TRACE_BPUTS, sizeof(*e), read_flags(), 0);
	if (!e)
		return 0;
	e->ip = ip;
	e->str = str;
	ring_buffer_unlock_commit(&r);
	return strlen(str);
}

int __trace_printk(unsigned long ip, const char *fmt, ...)
{
	unsigned long flags;
	char *text = (char *)get_buf(&flags);
	struct rb_reserve r;
	struct print_entry *e;
	va_list ap;
	int len;

	if (!text)
		return 0;
	va_start(ap, fmt);
	len = vscnprintf(text, TRACE_BUF_SIZE, fmt, ap);
	va_end(ap);
	e = trace_reserve(&r, TRACE_PRINT, sizeof(*e) + len + 1, flags, 0);
	if (e) {
		e->ip = ip;
		memcpy(e->buf, text, len + 1);
		ring_buffer_unlock_commit(&r);
	}
	put_buf(flags);
	return len;
}

/* --- the lines -------------------------------------------------------------------------------- */

static void print_ip(struct seq_file *m, const struct trace_iterator *it, unsigned long ip)
{
	const struct trace_array *tr = it->tr ?: &global_trace;

	seq_printf(m,
		   trace_array_option((struct trace_array *)tr, TRACE_OPT_SYM_OFFSET) ? "%pS: "
										      : "%ps: ",
		   (void *)ip);
}

/* The text of a print, bprint or bputs record (no newline added: the writer's own ends it). */
static void print_text(struct seq_file *m, const struct trace_iterator *it)
{
	char text[TRACE_BUF_SIZE];

	if (it->ent->type == TRACE_BPRINT) {
		const struct bprint_entry *b = (const void *)it->ent;
		bstr_printf(text, sizeof(text), b->fmt, b->buf);
		seq_puts(m, text);
	} else if (it->ent->type == TRACE_BPUTS) {
		seq_puts(m, ((const struct bputs_entry *)it->ent)->str);
	} else {
		const struct print_entry *p = (const void *)it->ent;
		size_t n = strnlen(p->buf, it->len - sizeof(*p));
		seq_write(m, p->buf, n);
		if (!n || p->buf[n - 1] != '\n')
			seq_putc(m, '\n'); /* a marker written without one, as Linux adds it */
	}
}

bool trace_printk_print(struct seq_file *m, struct trace_iterator *it)
{
	u16 type = it->ent->type;

	if (type == TRACE_RAW_DATA) {
		const struct raw_data_entry *d = (const void *)it->ent;
		trace_print_context(m, it);
		seq_printf(m, "# %x buf:", d->id);
		for (u32 i = 0; i + sizeof(*d) < it->len; i++)
			seq_printf(m, " %02x", (unsigned char)d->buf[i]);
		seq_putc(m, '\n');
		return true;
	}
	if (type != TRACE_PRINT && type != TRACE_BPRINT && type != TRACE_BPUTS)
		return false;
	if (!trace_array_option(it->tr ?: &global_trace, TRACE_OPT_PRINTK_MSGONLY)) {
		trace_print_context(m, it);
		print_ip(m, it, ((const struct print_entry *)it->ent)->ip);
	}
	print_text(m, it);
	return true;
}

/* --- files ------------------------------------------------------------------------------------ */

/* trace_marker_raw: an id (4 bytes) and the bytes after it, kept as they are. */
static int tracing_mark_raw_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_array *tr = trace_array_of(f);
	struct rb_reserve r;
	struct raw_data_entry *e;
	u32 size = sizeof(*e) + len - sizeof(unsigned int);

	if (len < sizeof(unsigned int) || len > TRACE_BUF_SIZE)
		return -EINVAL; /* Linux: an id at least, a page at most */
	if (!trace_array_option(tr, TRACE_OPT_MARKERS))
		return -EINVAL;
	e = trace_array_reserve(tr, &r, TRACE_RAW_DATA, size, read_flags());
	if (!e)
		return 0;
	memcpy(&e->id, buf, len);
	/* The record is read to its 4-byte end, as Linux's is: its padding reads as zeros. */
	memset((char *)e + size, 0, ALIGN(size, 4) - size);
	ring_buffer_unlock_commit(&r);
	return 0;
}

static const struct tracefs_file printk_files[] = {
	TRACEFS_FILE("/sys/kernel/tracing/trace_marker_raw", NULL, tracing_mark_raw_write),
};

void trace_printk_files_init(void)
{
	if (tracefs_create_files(NULL, printk_files, ARRAY_SIZE(printk_files)))
		pr_err("tracing: cannot create trace_marker_raw\n");
}

/* A lab command: one record of each kind, from one place (the test build only). */
static int cmd_trace_printk(int argc, char **argv)
{
	static const char *volatile dynamic = "%s-%d\n"; /* not a constant: a print record */

	trace_printk("hello from the shell\n");
	trace_printk("argc=%d first=%s ip=%ps big=%llx c=%c neg=%hd\n", argc,
		     argc > 1 ? argv[1] : "-", (void *)cmd_trace_printk, 0x123456789abcULL, 'z',
		     (short)-2);
	trace_printk(dynamic, "dynamic", argc);
	return 0;
}
SHELL_TEST_CMD(tprintk, cmd_trace_printk,
	       "tprintk [WORD]: trace_printk() a bputs, a bprint and a print record");
