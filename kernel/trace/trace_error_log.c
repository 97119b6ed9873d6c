/* error_log: why the last bad filters, triggers and probe definitions were refused, in Linux's
 * layout (its tracing_log_err() and error_log file live in kernel/trace/trace.c). */
#include "kernel/trace/trace_events.h"
#include "kernel/fs/tracefs.h"
#include "kernel/time.h"
#include "lib/string.h"

#define ERR_LOG_MAX 16 /* Linux keeps as many */
static struct err_entry {
	u64 ts;
	char loc[48];
	char cmd[512]; /* as long as one write to set_event, a filter or a trigger */
	const char *text;
	int pos;
} err_log[ERR_LOG_MAX];
static unsigned int err_next, err_count;

void tracing_log_err(const char *loc, const char *cmd, const char *err_text, int pos)
{
	struct err_entry *e = &err_log[err_next];

	e->ts = ktime_get_ns();
	strscpy(e->loc, loc, sizeof(e->loc));
	strscpy(e->cmd, cmd, sizeof(e->cmd));
	e->text = err_text;
	e->pos = pos;
	err_next = (err_next + 1) % ERR_LOG_MAX;
	err_count = MIN(err_count + 1, (unsigned int)ERR_LOG_MAX);
}

/* Linux's layout: the time, where, what; the command; a caret under the bad token. */
static int error_log_show(struct seq_file *m, struct fnode *f)
{
	for (unsigned int i = 0; i < err_count; i++) {
		const struct err_entry *e =
			&err_log[(err_next + ERR_LOG_MAX - err_count + i) % ERR_LOG_MAX];
		seq_printf(m, "[%5llu.%06llu] %s: error: %s\n", e->ts / 1000000000ULL,
			   (e->ts / 1000) % 1000000, e->loc, e->text);
		seq_printf(m, "  Command: %s\n", e->cmd);
		seq_printf(m, "%*s^\n", 11 + e->pos, "");
	}
	return 0;
}

static int error_log_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	if (flags & FS_TRUNC)
		err_count = 0; /* `echo > error_log`, as Linux */
	return 0;
}

static const struct tracefs_file error_log_files[] = {
	TRACEFS_FILE("error_log", error_log_show, error_log_write),
};

int trace_error_log_init(struct fnode *top)
{
	return tracefs_create_files(top, error_log_files, ARRAY_SIZE(error_log_files));
}

void trace_error_log_remove(struct fnode *top)
{
	tracefs_remove_files(top, error_log_files, ARRAY_SIZE(error_log_files));
}
