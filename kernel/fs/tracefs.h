/* Making control files the way Linux's tracefs does: a table of files made all or none, and
 * files that show and store one number, so an init neither writes a file_ops per file nor forgets
 * to check that its files exist. */
#ifndef KERNEL_FS_TRACEFS_H
#define KERNEL_FS_TRACEFS_H

#include "kernel/fs/fs.h"

/* One file of a table: its name (in the parent given, or an absolute path whose directories are
 * made as needed), its handlers, and its data (f->priv, often NULL: the event files read their
 * directory's). */
struct tracefs_file {
	const char *name;
	struct file_ops fops;
	void *data;
};

/*
 * Linux's tracefs_create_file() (trace_create_file() says when it fails): one file in parent
 * (NULL parent: none, the mkdir before it failed). NULL, after a line naming the file, when it
 * cannot be made.
 */
struct fnode *tracefs_create_file(const char *name, struct fnode *parent, void *data,
				  const struct file_ops *fops);
/* A directory, made if missing (mkdir -p for an absolute path); NULL after a line naming it. */
struct fnode *tracefs_create_dir(const char *name, struct fnode *parent);
struct fnode *tracefs_create_path(const char *path);
/* The files of a table, all or none: 0, or -ENOMEM with those already made removed again
 * (directories stay: others may live there). parent may be NULL if every name is absolute. */
int tracefs_create_files(struct fnode *parent, const struct tracefs_file *files, size_t n);
/* Removes a table's files from parent (a missing one is skipped): the unwinding of an init. */
void tracefs_remove_files(struct fnode *parent, const struct tracefs_file *files, size_t n);

/*
 * A file of one unsigned long (Linux's debugfs_create_ulong(), with bounds): reads print it in
 * decimal, a write of one decimal number in [min, max] stores it, anything else is EINVAL and
 * changes nothing. A number that lives elsewhere or whose change must do something has get and
 * set instead (Linux's DEFINE_DEBUGFS_ATTRIBUTE): set(v) is called only with v in bounds and
 * answers 0 or -errno.
 */
struct tracefs_ulong {
	unsigned long *value;
	unsigned long min, max;
	unsigned long (*get)(void *data);
	int (*set)(void *data, unsigned long v);
	void *data; /* what get and set are given */
};
int tracefs_ulong_show(struct seq_file *m, struct fnode *f);
int tracefs_ulong_write(struct fnode *f, const char *buf, size_t len, unsigned int flags);
/* A table entry: a file with these handlers (either may be NULL: not readable, not writable). */
#define TRACEFS_FILE(_name, _show, _write)                                                         \
	{                                                                                          \
		.name = _name, .fops = {.show = _show, .write = _write }                           \
	}
/* A table entry for a numeric file: u is a static struct tracefs_ulong. */
#define TRACEFS_ULONG(_name, u)                                                                    \
	{                                                                                          \
		.name = _name,                                                                     \
		.fops = { .show = tracefs_ulong_show, .write = tracefs_ulong_write },              \
		.data = (void *)(u)                                                                \
	}

#endif
