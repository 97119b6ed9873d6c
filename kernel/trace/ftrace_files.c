/* The dynamic-ftrace control files, with Linux's names, syntax and output:
 *
 *   /sys/kernel/tracing/available_filter_functions   every traceable function, address order
 *   /sys/kernel/tracing/enabled_functions            sites calling into ftrace now, with flags
 *   /sys/kernel/tracing/set_ftrace_filter            global_ops's filter set (`>` replaces, `>>` adds)
 *   /sys/kernel/tracing/set_ftrace_notrace           global_ops's notrace set
 *   /proc/sys/kernel/ftrace_enabled                  the kill switch
 *   /sys/kernel/tracing/patch_method                 ours: how live code changes reach the text
 *   /sys/kernel/tracing/patch_step                   ours: one site change, step by step (ftrace_step.c)
 *   /sys/kernel/tracing/verify_sites                 ours: every site's bytes checked (verify_sites.c)
 */
#include "kernel/trace/ftrace.h"
#include "kernel/trace/ftrace_filter_parse.h"
#include "kernel/trace/trace.h"
#include "kernel/fs/tracefs.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

struct ftrace_ops global_ops = { .name = "global_ops" };

static int available_show(struct seq_file *m, struct fnode *f)
{
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;

	for_each_ftrace_rec(pg, rec) {
		seq_printf(m, "%ps\n", (void *)rec->ip);
	}
	return 0;
}

/* Linux's tail of an enabled_functions line: the ops's own trampoline (with the callback it calls)
 * when the site calls one, and the direct trampoline when a direct ops wants the function. */
static void enabled_show_target(struct seq_file *m, const struct dyn_ftrace *rec)
{
	struct ftrace_ops *op = ftrace_find_target_ops(rec);

	if (rec->flags & FTRACE_FL_TRAMP_EN) {
		if (op && op->trampoline)
			seq_printf(m, "\ttramp: 0x%lx (%pS) ->%pS", op->trampoline,
				   (void *)op->func,
				   (void *)arch_ftrace_trampoline_func(op->trampoline,
								       ftrace_ops_tramp_kind(op)));
		else
			seq_puts(m, "\ttramp: ERROR!");
	}
	if (rec->flags & FTRACE_FL_DIRECT) {
		unsigned long direct = ftrace_find_rec_direct(rec->ip);
		if (direct)
			seq_printf(m, "\n\tdirect-->%pS", (void *)direct);
	}
}

static int enabled_show(struct seq_file *m, struct fnode *f)
{
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;

	for_each_ftrace_rec(pg, rec) {
		if (!(rec->flags & FTRACE_FL_ENABLED))
			continue;
		seq_printf(m, "%ps (%lu)%s%s%s", (void *)rec->ip, ftrace_rec_count(rec),
			   rec->flags & FTRACE_FL_REGS ? " R" : "  ",
			   rec->flags & FTRACE_FL_IPMODIFY ? " I" : "  ",
			   rec->flags & FTRACE_FL_DIRECT ? " D" : "  ");
		enabled_show_target(m, rec);
		seq_putc(m, '\n');
	}
	return 0;
}

/* Lists a set in address order, or Linux's line for an empty one. */
void ftrace_hash_show(struct seq_file *m, const struct ftrace_hash *hash, const char *empty)
{
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;

	if (ftrace_hash_empty(hash)) {
		seq_puts(m, empty);
		return;
	}
	for_each_ftrace_rec(pg, rec) {
		if (ftrace_lookup_hash(hash, rec->ip))
			seq_printf(m, "%ps\n", (void *)rec->ip);
	}
}

/* The ops whose sets the file shows: global_ops, or an instance's own (trace_instances.c). */
static struct ftrace_ops *file_ops(struct fnode *f)
{
	return trace_array_of(f)->ops;
}

static int filter_show(struct seq_file *m, struct fnode *f)
{
	struct ftrace_ops *ops = file_ops(f);

	ftrace_hash_show(m, ops->local_hash.filter_hash, "#### all functions enabled ####\n");
	if (ops == &global_ops)
		ftrace_probes_show(m);
	return 0;
}

/*
 * A write to set_ftrace_filter may mix functions and commands (func:cmd[:count]). Every command
 * is checked first, then the functions go to the filter (all or nothing), then the commands
 * apply: a write that is refused changes nothing.
 */
static int filter_write_mixed(struct ftrace_ops *ops, char *text, unsigned int flags)
{
	char plain[1024], *cmds[32];
	int ncmd = ftrace_filter_split(text, plain, sizeof(plain), cmds, ARRAY_SIZE(cmds)), err;
	struct probe_set *set;

	if (ncmd < 0)
		return ncmd;
	if (ncmd && ops != &global_ops)
		return -EINVAL; /* function commands live in the top directory only, here */
	for (int i = 0; i < ncmd; i++) {
		err = ftrace_probe_check(cmds[i]);
		if (err)
			return err;
	}
	/* Every allocation the commands need is made before the filter changes. */
	set = ftrace_probe_prepare(cmds, ncmd, &err);
	if (err)
		return err;
	if (plain[0] || (flags & FS_TRUNC)) {
		err = ftrace_set_filter(ops, plain, flags & FS_TRUNC);
		if (err) {
			ftrace_probe_discard(set);
			return err;
		}
	}
	return set ? ftrace_probe_commit(set) : 0;
}

static int notrace_show(struct seq_file *m, struct fnode *f)
{
	ftrace_hash_show(m, file_ops(f)->local_hash.notrace_hash,
			 "#### no functions disabled ####\n");
	return 0;
}

/* Both set files: the text of the write, refused once ftrace is dead (Linux: No such device). */
static int set_write(struct ftrace_ops *ops, const char *buf, size_t len, unsigned int flags,
		     bool to_notrace)
{
	char text[1024];
	int err = fs_write_text(text, sizeof(text), buf, len);

	if (err)
		return err;
	if (ftrace_disabled)
		return -ENODEV;
	/* Emptying an empty set changes nothing: it allocates nothing, so it cannot fail for memory. */
	if (!text[0] && (flags & FS_TRUNC) &&
	    ftrace_hash_empty(to_notrace ? ops->local_hash.notrace_hash
					 : ops->local_hash.filter_hash))
		return 0;
	return to_notrace ? ftrace_set_notrace(ops, text, flags & FS_TRUNC)
			  : filter_write_mixed(ops, text, flags);
}

static int filter_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	return set_write(file_ops(f), buf, len, flags, false);
}

static int notrace_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	return set_write(file_ops(f), buf, len, flags, true);
}

static unsigned long enabled_sysctl_get(void *data)
{
	return ftrace_enabled;
}

static int enabled_sysctl_set(void *data, unsigned long v)
{
	return ftrace_set_enabled(v);
}

/* Listed like Linux's choice files (trace_clock): the one in force in brackets. */
static int patch_method_show(struct seq_file *m, struct fnode *f)
{
	for (int i = 0; i < NR_PATCH_METHODS; i++)
		seq_printf(m, i == (int)text_patch_method ? "%s[%s]" : "%s%s", i ? " " : "",
			   patch_method_names[i]);
	seq_putc(m, '\n');
	return 0;
}

static int patch_method_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[32];

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	for (int i = 0; i < NR_PATCH_METHODS; i++)
		if (!strcmp(text, patch_method_names[i]))
			return ftrace_set_patch_method(i);
	return -EINVAL;
}

#define T "/sys/kernel/tracing/"
static const struct tracefs_ulong sysctl = { .max = 1,
					     .get = enabled_sysctl_get,
					     .set = enabled_sysctl_set };
static const struct tracefs_file ftrace_files[] = {
	TRACEFS_FILE(T "available_filter_functions", available_show, NULL),
	TRACEFS_FILE(T "set_ftrace_filter", filter_show, filter_write),
	TRACEFS_FILE(T "set_ftrace_notrace", notrace_show, notrace_write),
	TRACEFS_ULONG("/proc/sys/kernel/ftrace_enabled", &sysctl),
};
/* An instance's own sets (its function tracer's ops): the same handlers, its directory. */
static const struct tracefs_file instance_files[] = {
	TRACEFS_FILE("set_ftrace_filter", filter_show, filter_write),
	TRACEFS_FILE("set_ftrace_notrace", notrace_show, notrace_write),
};

int ftrace_create_instance_files(struct fnode *dir)
{
	return tracefs_create_files(dir, instance_files, ARRAY_SIZE(instance_files));
}

/* What only a patched site has: its state, how it is patched. Linux has none of these files
 * without CONFIG_DYNAMIC_FTRACE. */
static const struct tracefs_file dynamic_files[] = {
	TRACEFS_FILE(T "enabled_functions", enabled_show, NULL),
	TRACEFS_FILE(T "patch_method", patch_method_show, patch_method_write),
};

void ftrace_files_init(void)
{
	if (tracefs_create_files(NULL, ftrace_files, ARRAY_SIZE(ftrace_files)))
		return;
	ftrace_verify_init();
	if (!FTRACE_STATIC &&
	    !tracefs_create_files(NULL, dynamic_files, ARRAY_SIZE(dynamic_files))) {
		ftrace_direct_init();
		ftrace_step_init(); /* patch_step: a patch held between the int3 protocol's steps */
	}
}
