/* error_log: why the last bad filters, triggers and probe definitions were refused, in Linux's
 * layout, one log per trace array (its tracing_log_err() and error_log file live in
 * kernel/trace/trace.c): an instance's own event filters and triggers go to instances/foo/error_log;
 * probe and synthetic event definitions, which belong to no instance, to the top one, as Linux's
 * callers pass it NULL. */
#include "kernel/trace/trace_events.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "kernel/time.h"
#include "lib/string.h"

#define ERR_LOG_MAX 16 /* Linux keeps as many per array */
struct trace_err_log {
	struct err_entry {
		u64 ts;
		char loc[48];
		char cmd[512]; /* as long as one write to set_event, a filter or a trigger */
		const char *text;
		int pos;
	} e[ERR_LOG_MAX];
	unsigned int next, count;
};

static struct trace_err_log global_err_log;

/* An instance's log is made at its first error (about 9 KiB): most instances never have one. */
static struct trace_err_log *err_log_of(struct trace_array *tr, bool make)
{
	if (!tr || tr == &global_trace)
		return &global_err_log;
	if (!tr->err_log && make)
		tr->err_log = kzalloc(sizeof(*tr->err_log));
	return tr->err_log;
}

void tracing_log_err(struct trace_array *tr, const char *loc, const char *cmd, const char *err_text,
		     int pos)
{
	struct trace_err_log *log = err_log_of(tr, true);
	struct err_entry *e;

	if (!log)
		return; /* no memory for it: the write still fails with its errno, as in Linux */
	e = &log->e[log->next];
	e->ts = ktime_get_ns();
	strscpy(e->loc, loc, sizeof(e->loc));
	strscpy(e->cmd, cmd, sizeof(e->cmd));
	e->text = err_text;
	e->pos = pos;
	log->next = (log->next + 1) % ERR_LOG_MAX;
	log->count = MIN(log->count + 1, (unsigned int)ERR_LOG_MAX);
}

/* Linux's layout: the time, where, what; the command; a caret under the bad token. */
static int error_log_show(struct seq_file *m, struct fnode *f)
{
	const struct trace_err_log *log = err_log_of(trace_array_of(f), false);

	for (unsigned int i = 0; log && i < log->count; i++) {
		const struct err_entry *e =
			&log->e[(log->next + ERR_LOG_MAX - log->count + i) % ERR_LOG_MAX];
		seq_printf(m, "[%5llu.%06llu] %s: error: %s\n", e->ts / 1000000000ULL,
			   (e->ts / 1000) % 1000000, e->loc, e->text);
		seq_printf(m, "  Command: %s\n", e->cmd);
		seq_printf(m, "%*s^\n", 11 + e->pos, "");
	}
	return 0;
}

static int error_log_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_err_log *log = err_log_of(trace_array_of(f), false);

	if ((flags & FS_TRUNC) && log)
		log->count = 0; /* `echo > error_log`, as Linux */
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

void trace_error_log_free(struct trace_array *tr)
{
	kfree(tr->err_log);
	tr->err_log = NULL;
}
