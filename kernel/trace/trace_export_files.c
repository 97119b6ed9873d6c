/* The text files a trace recorder copies beside the raw pages, in Linux's layouts:
 *
 *   events/header_page     the data page header: time_stamp, commit, where the events start
 *   events/header_event    the event header bits and the type_len values that are not data
 *   saved_cmdlines         "PID COMM" for each task name the trace can print
 *   saved_cmdlines_size    how many names the table holds; a write resizes it
 *   printk_formats         "0xADDR : \"text\"" for each string an event records by address
 *
 * A reader that trusts these files decodes our pages without knowing our code: every number below
 * comes from ring_buffer.h, so the files cannot say something the buffer does not do.
 */
#include "kernel/trace/trace.h"
#include "kernel/fs/tracefs.h"
#include "kernel/tracepoint.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"

static int header_page_show(struct seq_file *m, struct fnode *f)
{
	struct buffer_data_page *p = NULL;

	seq_printf(m, "\tfield: u64 timestamp;\toffset:%u;\tsize:%u;\tsigned:%u;\n",
		   (unsigned int)offsetof(struct buffer_data_page, time_stamp),
		   (unsigned int)sizeof(p->time_stamp), is_signed_type(typeof(p->time_stamp)));
	/* local_t is a long in Linux: the word is described as signed, as Linux describes it,
	 * whatever type holds it here (its counts never reach the sign bit). */
	seq_printf(m, "\tfield: local_t commit;\toffset:%u;\tsize:%u;\tsigned:%u;\n",
		   (unsigned int)offsetof(struct buffer_data_page, commit),
		   (unsigned int)sizeof(p->commit), is_signed_type(long));
	/* Linux keeps flags in the commit word's top byte; we set none, but a reader looks. */
	seq_printf(m, "\tfield: int overwrite;\toffset:%u;\tsize:%u;\tsigned:%u;\n",
		   (unsigned int)offsetof(struct buffer_data_page, commit), 1,
		   is_signed_type(long));
	seq_printf(m, "\tfield: char data;\toffset:%u;\tsize:%u;\tsigned:%u;\n",
		   (unsigned int)offsetof(struct buffer_data_page, data),
		   (unsigned int)BUF_PAGE_SIZE, is_signed_type(char));
	return 0;
}

static int header_event_show(struct seq_file *m, struct fnode *f)
{
	seq_puts(m, "# compressed entry header\n");
	seq_printf(m, "\ttype_len    :  %3d bits\n", 32 - TS_DELTA_BITS);
	seq_printf(m, "\ttime_delta  :  %3d bits\n", TS_DELTA_BITS);
	seq_printf(m, "\tarray       :  %3d bits\n", (int)sizeof(u32) * 8);
	seq_putc(m, '\n');
	seq_printf(m, "\tpadding     : type == %2d\n", RINGBUF_TYPE_PADDING);
	seq_printf(m, "\ttime_extend : type == %2d\n", RINGBUF_TYPE_TIME_EXTEND);
	seq_printf(m, "\ttime_stamp : type == %2d\n", RINGBUF_TYPE_TIME_STAMP);
	seq_printf(m, "\tdata max type_len  == %2d\n", RINGBUF_TYPE_DATA_TYPE_LEN_MAX);
	return 0;
}

static int saved_cmdlines_show(struct seq_file *m, struct fnode *f)
{
	char comm[TASK_COMM_LEN];

	for (unsigned int slot = 0, n = trace_saved_cmdlines_size(); slot < n; slot++) {
		int pid = trace_saved_cmdline_at(slot, comm);
		if (pid > 0)
			seq_printf(m, "%d %s\n", pid, comm);
	}
	return 0;
}

static int saved_cmdlines_size_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%u\n", trace_saved_cmdlines_size());
	return 0;
}

static int saved_cmdlines_size_write(struct fnode *f, const char *buf, size_t len,
				     unsigned int flags)
{
	char text[16];
	unsigned long n;

	if (fs_write_text(text, sizeof(text), buf, len) || kstrtoul(text, 10, &n))
		return -EINVAL;
	return trace_resize_saved_cmdlines(n);
}

/* Linux's layout: the address, then the text quoted, with newlines, tabs and quotes escaped. */
static void printk_format_show(struct seq_file *m, const char *s)
{
	seq_printf(m, "0x%lx : \"", (unsigned long)s);
	for (const char *c = s; *c; c++) {
		if (*c == '\n')
			seq_puts(m, "\\n");
		else if (*c == '\t')
			seq_puts(m, "\\t");
		else if (*c == '"')
			seq_puts(m, "\\\"");
		else
			seq_putc(m, *c);
	}
	seq_puts(m, "\"\n");
}

/* trace_printk()'s formats first (a non-constant one left NULL), then the tracepoint strings. */
static int printk_formats_show(struct seq_file *m, struct fnode *f)
{
	for (const char *const *pp = __start___trace_printk_fmt; pp < __stop___trace_printk_fmt;
	     pp++)
		if (*pp)
			printk_format_show(m, *pp);
	for (const char *const *pp = __start___tracepoint_str; pp < __stop___tracepoint_str; pp++)
		printk_format_show(m, *pp);
	return 0;
}

#define T "/sys/kernel/tracing/"
static const struct tracefs_file export_files[] = {
	TRACEFS_FILE(T "events/header_page", header_page_show, NULL),
	TRACEFS_FILE(T "events/header_event", header_event_show, NULL),
	TRACEFS_FILE(T "saved_cmdlines", saved_cmdlines_show, NULL),
	TRACEFS_FILE(T "saved_cmdlines_size", saved_cmdlines_size_show, saved_cmdlines_size_write),
	TRACEFS_FILE(T "printk_formats", printk_formats_show, NULL),
};

void trace_export_files_init(void)
{
	tracefs_create_files(NULL, export_files, ARRAY_SIZE(export_files));
}
