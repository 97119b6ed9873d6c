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
	ftrace_mod_show(m, trace_array_of(f), false);
	ftrace_probes_show(m, trace_array_of(f));
	return 0;
}

/*
 * A write to set_ftrace_filter may mix functions and commands (func:cmd[:count], func:mod:name);
 * set_ftrace_notrace takes functions and mod commands. Every command is checked first, then the
 * functions go to the set (all or nothing), then the commands apply: a write that is refused
 * changes nothing.
 */
static int filter_write_mixed(struct trace_array *tr, char *text, unsigned int flags,
			      bool is_notrace)
{
	struct ftrace_ops *ops = tr->ops;
	char plain[1024], *cmds[32], *mods[32];
	int ncmd = ftrace_filter_split(text, plain, sizeof(plain), cmds, ARRAY_SIZE(cmds)), err;
	int nmod = 0, n = 0;
	bool reset = flags & FS_TRUNC, mods_change;
	struct ftrace_mod_load *ml = NULL;
	struct probe_set *set;

	if (ncmd < 0)
		return ncmd;
	for (int i = 0; i < ncmd; i++)
		if (ftrace_mod_is_cmd(cmds[i]))
			mods[nmod++] = cmds[i];
		else
			cmds[n++] = cmds[i];
	if (is_notrace && n)
		return -EINVAL; /* Linux's function commands refuse the notrace file */
	mods_change = nmod || (reset && ftrace_mod_pending(tr, is_notrace));
	if (mods_change) {
		ml = ftrace_mod_prepare(tr, is_notrace, mods, nmod, reset, &err);
		if (err)
			return err;
	}
	set = ftrace_probe_prepare(tr, cmds, n, &err);
	if (err)
		goto free_mods;
	if (plain[0] || reset) {
		err = is_notrace ? ftrace_set_notrace(ops, plain, reset)
				 : ftrace_set_filter(ops, plain, reset);
		if (err)
			goto discard;
	}
	if (mods_change)
		ftrace_mod_commit(tr, is_notrace, ml);
	return set ? ftrace_probe_commit(set) : 0;
discard:
	ftrace_probe_discard(set);
free_mods:
	ftrace_mod_discard(ml);
	return err;
}

static int notrace_show(struct seq_file *m, struct fnode *f)
{
	ftrace_hash_show(m, file_ops(f)->local_hash.notrace_hash,
			 "#### no functions disabled ####\n");
	ftrace_mod_show(m, trace_array_of(f), true);
	return 0;
}

/* Both set files: the text of the write, refused once ftrace is dead (Linux: No such device). */
static int set_write(struct trace_array *tr, const char *buf, size_t len, unsigned int flags,
		     bool to_notrace)
{
	struct ftrace_ops *ops = tr->ops;
	char text[1024];
	int err = fs_write_text(text, sizeof(text), buf, len);

	if (err)
		return err;
	if (ftrace_disabled)
		return -ENODEV;
	/* Emptying an empty set changes nothing: it allocates nothing, so it cannot fail for memory. */
	if (!text[0] && (flags & FS_TRUNC) && !ftrace_mod_pending(tr, to_notrace) &&
	    ftrace_hash_empty(to_notrace ? ops->local_hash.notrace_hash
					 : ops->local_hash.filter_hash))
		return 0;
	return filter_write_mixed(tr, text, flags, to_notrace);
}

static int filter_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	return set_write(trace_array_of(f), buf, len, flags, false);
}

static int notrace_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	return set_write(trace_array_of(f), buf, len, flags, true);
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
