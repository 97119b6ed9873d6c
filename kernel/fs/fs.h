/* A small in-memory file tree (like tracefs/procfs): directories, and files with read/write handlers. */
#ifndef KERNEL_FS_H
#define KERNEL_FS_H

#include "lib/types.h"
#include "lib/compiler.h"

#define FS_NAME_MAX 255
#define FS_PATH_MAX 256

/* How a write opened the file: `>` truncates (O_TRUNC), `>>` appends (O_APPEND). */
#define FS_TRUNC 0x1
#define FS_APPEND 0x2

/* Output of a read: text goes into buf and, when it fills, to flush() (the console, for cat). */
struct seq_file {
	char *buf;
	size_t size, count;
	void (*flush)(struct seq_file *m); /* NULL: keep what fits, note the overflow */
	bool overflow;
	bool show_ptrs; /* tracing's hash-ptr off: an event's %p shows the address */
};

void seq_write(struct seq_file *m, const char *s, size_t len);
void seq_puts(struct seq_file *m, const char *s);
void seq_putc(struct seq_file *m, char c);
void seq_printf(struct seq_file *m, const char *fmt, ...) __printf(2, 3);
void seq_flush(struct seq_file *m);
void seq_console_flush(struct seq_file *m);

struct fnode;
struct file_operations;

struct file_ops {
	/* Prints the file's content; returns 0 or -errno. */
	int (*show)(struct seq_file *m, struct fnode *f);
	/* Takes the bytes of one write (`echo` appends "\n"); returns 0 or -errno, leaving the
	 * file's state unchanged on error. */
	int (*write)(struct fnode *f, const char *buf, size_t len, unsigned int flags);
	/* Content is bytes, not text: cat sends it to a device (cat FILE > /dev/ttyS1) and
	 * refuses to print it on the console. */
	bool binary;
	/* stat's st_size, for a file of fixed bytes (a sysfs binary attribute): glibc's fseek to
	 * SEEK_END believes it (libbpf sizes /sys/kernel/btf/vmlinux so). NULL: 0, as tracefs. */
	s64 (*size)(const struct fnode *f);
	/* A device (/dev/ttyS1): cat may redirect its output here, one frame per file. */
	bool device;
	/* What a program's open() of it gives, when not the text of show/write (/dev/null, /dev/tty:
	 * kernel/fs/devices.c). */
	const struct file_operations *fops;
	/* A directory whose entries are made by mkdir and rmdir of its own kind, not a ramfs's
	 * (Linux's inode_operations mkdir and rmdir: tracefs's instances/). rmdir is given the
	 * entry to remove. 0 or -errno. */
	int (*mkdir)(struct fnode *dir, const char *name);
	int (*rmdir)(struct fnode *dir, struct fnode *victim);
	/* Called as the node is freed, to let go of priv (a ramfs inode). */
	void (*evict)(struct fnode *f);
	/* A directory whose entries are not all in its list: asked for a name the list lacks
	 * (Linux's inode_operations lookup: /proc/<pid>). The node it returns, or NULL. */
	struct fnode *(*lookup)(struct fnode *dir, const char *name, size_t len);
};

struct super_block;

struct fnode {
	char name[FS_NAME_MAX + 1];
	bool is_dir;
	const struct file_ops *ops;
	void *priv;
	struct fnode *parent, *children, *next; /* children kept in name order */
	int pins;		/* fs_pin(): someone stands here (the shell's working directory) */
	struct fnode *mounted;	/* a directory mounted here (kernel/fs/mount.c): lookups go there */
	struct super_block *sb; /* the file system programs may create in here (kernel/fs/ramfs.h);
				 * NULL for the kernel's own trees. A new child inherits it. */
	bool unlinked;		/* gone from its directory, freed when the last pin goes */
};

struct fnode *fs_root(void);
/* The child of dir named by the len bytes at name, or NULL. */
struct fnode *fs_lookup(struct fnode *dir, const char *name, size_t len);
/* Creates a directory (or returns the existing one). */
struct fnode *fs_mkdir(struct fnode *parent, const char *name);
/* Creates a file; NULL if the name is taken or memory ran out. */
struct fnode *fs_create(struct fnode *parent, const char *name, const struct file_ops *ops,
			void *priv);
/* Unlinks n and frees it with everything under it (tracefs_remove); -EBUSY, and nothing
 * changes, if a node of the subtree is pinned. fs_busy() asks the same question first. */
int fs_remove(struct fnode *n);
bool fs_busy(const struct fnode *n);
/* A directory someone stands in (the shell's cwd) is pinned: it cannot be removed under them. */
void fs_pin(struct fnode *n);
void fs_unpin(struct fnode *n);
/* unlink(2) and rmdir(2)'s end: n leaves its directory at once, and is freed now or, if pinned
 * (open, someone's cwd), at the last fs_unpin(), as Linux keeps an open file's inode. */
void fs_unlink(struct fnode *n);
/* rename(2)'s move: n (already out of its old directory, fs_detach()) under parent as name. */
void fs_detach(struct fnode *n);
void fs_attach(struct fnode *parent, struct fnode *n, const char *name);
/* Marks n and everything under it as the kernel's own (no sb): mounts_init() for /proc, /sys. */
void fs_set_sb(struct fnode *n, struct super_block *sb);
/* mkdir and rmdir as a user asks for them (the shell's, the system calls'): the directory's own
 * mkdir/rmdir, or -EPERM where it has none; -EEXIST, -ENOENT, -ENOTDIR as Linux's. */
int fs_user_mkdir(struct fnode *dir, const char *name);
int fs_user_rmdir(struct fnode *victim);
/* Makes every directory of an absolute path, like mkdir -p. */
struct fnode *fs_mkdir_p(const char *path);
/* Resolves path (absolute, or relative to cwd; "." and ".." allowed); 0 or -ENOENT/-ENOTDIR. */
int fs_resolve(struct fnode *cwd, const char *path, struct fnode **out);
/* Writes the absolute path of n into buf. */
void fs_path(const struct fnode *n, char *buf, size_t size);

/* Helpers for write handlers. The bytes of one write as a trimmed C string (too long for dst is
 * an error, never a silent cut); one decimal number in [lo, hi] (a trailing newline allowed). */
int fs_write_text(char *dst, size_t size, const char *buf, size_t len);
int fs_write_ulong(const char *buf, size_t len, unsigned long lo, unsigned long hi,
		   unsigned long *out);

int fs_read(struct fnode *f, struct seq_file *m);
int fs_write(struct fnode *f, const char *buf, size_t len, unsigned int flags);

#endif
