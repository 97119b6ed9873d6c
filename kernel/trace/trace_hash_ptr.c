/* hash-ptr: an event's %p is printed as the kernel's %p, a hashed id (on, Linux's default), or,
 * off, as the address itself, so a trace can be matched with addresses seen elsewhere.
 *
 *   echo 0 > options/hash-ptr     kfree: call_site=... ptr=ffff888000501d40
 *   echo 1 > options/hash-ptr     kfree: call_site=... ptr=000000008f3b2a61
 *
 * Linux: kernel/trace/trace.c (trace_event_format(), which rewrites each bare %p as %px when the
 * option is off), include/trace/trace_events.h (trace_event_printf(), what TP_printk's output
 * calls). The ids are lib/vsprintf.c's, with the key of kernel/ptr_key.c: trace_printk()'s %p is
 * always hashed, as in Linux, since its text is made by the formatter itself.
 */
#include "kernel/trace/trace_events.h"
#include "kernel/fs/fs.h"
#include "lib/ctype.h"
#include "lib/printf.h"

/* fmt with each bare %p as the address in Linux's %px form (16 digits, no 0x); false if it does
 * not fit out (the event then prints as if the option were on). */
static bool show_ptrs_format(char *out, size_t size, const char *fmt)
{
	size_t n = 0;

	for (const char *p = fmt; *p; p++) {
		bool bare = p[0] == '%' && p[1] == 'p' && !isalnum(p[2]);
		const char *piece = bare ? "%016lx" : p[0] == '%' && p[1] == '%' ? "%%" : NULL;
		size_t len = piece ? strlen(piece) : 1;

		if (n + len >= size)
			return false;
		memcpy(out + n, piece ? piece : p, len);
		n += len;
		p += piece ? 1 : 0;
	}
	out[n] = '\0';
	return true;
}

bool trace_show_ptrs(struct trace_array *tr)
{
	return !trace_array_option(tr ?: &global_trace, TRACE_OPT_HASH_PTR);
}

void trace_event_printf(struct seq_file *m, const char *fmt, ...)
{
	char text[512], shown[256];
	va_list ap;
	int n;

	if (m->show_ptrs && show_ptrs_format(shown, sizeof(shown), fmt))
		fmt = shown;
	va_start(ap, fmt);
	n = vscnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	seq_write(m, text, n);
}
