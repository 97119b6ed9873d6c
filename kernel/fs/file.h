/* Open files and the per-process fd table: what read(), write() and their kin work on. */
#ifndef KERNEL_FS_FILE_H
#define KERNEL_FS_FILE_H

#include "kernel/spinlock.h"
#include "kernel/syscalls.h"
#include "lib/types.h"

struct fnode;
struct file;
struct poll_table_struct;
struct task;
struct kstat;
struct vm_area_struct;

/* open() flags, Linux's values. */
#define O_ACCMODE 0x3
#define O_RDONLY 0x0
#define O_WRONLY 0x1
#define O_RDWR 0x2
#define O_CREAT 0x40
#define O_EXCL 0x80
#define O_NOCTTY 0x100
#define O_TRUNC 0x200
#define O_APPEND 0x400
#define O_NONBLOCK 0x800
#define O_DIRECTORY 0x10000
#define O_NOFOLLOW 0x20000
#define O_CLOEXEC 0x80000
#define O_PATH 0x200000

/*
 * What a kind of open file can do (Linux's file_operations, trimmed): the console (kernel/fs/tty.c),
 * a file of the tree (kernel/fs/open.c: initramfs bytes, a tracefs or /proc file, a directory),
 * a pipe (kernel/fs/pipe.c). NULL: the call fails with the errno Linux gives for it.
 */
struct file_operations {
	ssize_t (*read)(struct file *f, char __user *buf, size_t count, s64 *pos);
	ssize_t (*write)(struct file *f, const char __user *buf, size_t count, s64 *pos);
	long (*ioctl)(struct file *f, unsigned int cmd, unsigned long arg);
	int (*getdents64)(struct file *f, void __user *dirent, unsigned int count);
	/* Fills a MAP_SHARED area made for the file at byte off (its vm_ops close it later). */
	int (*mmap)(struct file *f, struct vm_area_struct *vma, unsigned long off);
	void (*release)(struct file *f);
	/* The EPOLL* events ready now, and poll_wait() on the queue that tells of new ones
	 * (kernel/fs/poll.h); NULL: always readable and writable. */
	unsigned int (*poll)(struct file *f, struct poll_table_struct *pt);
	bool seekable;
	unsigned int mode; /* st_mode of a file with no node (the console, a pipe) */
};

struct file {
	int f_count; /* fd table slots (dup, fork), and system calls inside it (fget) */
	unsigned int f_flags;
	s64 f_pos;
	struct fnode *node; /* NULL for the console and pipes */
	const struct file_operations *f_op;
	void *private_data; /* a /proc or tracefs file's text, rendered at open; a pipe */
	size_t private_len;
	int f_ep_count; /* epoll sets watching it (kernel/fs/eventpoll.c), under its epmutex */
};

#define NR_OPEN_DEFAULT 64 /* fds 0..63: RLIMIT_NOFILE's soft limit here */

struct files_struct {
	int count;	      /* tasks that use the table: threads of CLONE_FILES share one */
	spinlock_t file_lock; /* fd[] and close_on_exec against another thread's open or close */
	struct file *fd[NR_OPEN_DEFAULT];
	u64 close_on_exec; /* bit n: fd n has FD_CLOEXEC */
};

/* Drops a reference; the last one releases the file (Linux's __fput()). */
void fput(struct file *f);

/*
 * The file behind fd in the current process with a reference taken, or NULL (-EBADF for the
 * caller), who fput()s it when done: a close() by another thread then only drops the table's
 * reference, and the file stays whole until the call that uses it returns.
 */
struct file *fget(unsigned int fd);

static inline struct file *get_file(struct file *f)
{
	__atomic_add_fetch(&f->f_count, 1, __ATOMIC_RELAXED);
	return f;
}

/*
 * fdget() is fget() for a call that is done with the file before it returns (Linux's
 * __fget_light()): when this task is the table's only user, no other task can close the fd
 * before the call returns, and no reference is taken (flags 0); otherwise it is fget()
 * (FDPUT_FPUT). fdput() drops what fdget() took.
 */
#define FDPUT_FPUT 1
struct fd {
	struct file *file;
	unsigned int flags;
};

struct fd fdget(unsigned int fd);
/* getdents64 of a directory: ".", "..", then its children, f_pos counting them (open.c). */
int dir_getdents64(struct file *f, void __user *dirent, unsigned int count);
/* One linux_dirent64 for n named name at *used of the user's buffer: 0, 1 when it does not fit
 * after others (the call returns what it has), -EINVAL when not even one fits, -EFAULT. */
int dir_emit(void __user *dirent, unsigned int count, unsigned int *used, const char *name, u64 ino,
	     s64 off, const struct fnode *n);

static inline void fdput(struct fd f)
{
	if (f.flags & FDPUT_FPUT)
		fput(f.file);
}
/* The lowest free fd >= from holding f (one more reference taken), or -EMFILE. */
int fd_install_from(struct file *f, unsigned int from, bool cloexec);
/* A new open file (f_count 1); NULL when memory ran out. */
struct file *alloc_file(const struct file_operations *fop, unsigned int flags);
/* fork: the child's table, every open file shared; exec: the O_CLOEXEC ones closed. */
struct files_struct *dup_files(struct files_struct *old);
void do_close_on_exec(struct files_struct *files);
int close_fd(struct files_struct *files, unsigned int fd);
void exit_files(struct task *t);
/* Drops a user of the table; the last one closes every file. */
void put_files_struct(struct files_struct *files);
/* A table with 0, 1 and 2 on the console, for the first process the kernel starts. */
struct files_struct *console_files(void);

/* kernel/fs/tty.c */
extern const struct file_operations tty_fops;
/* A read of the console would not wait (poll). */
bool tty_input_ready(void);

/* kernel/fs/namei.c: follows a user's path from the process's cwd (dirfd: AT_FDCWD or an open
 * directory), symlinks included unless nofollow leaves the last one as it is. */
#define AT_FDCWD -100
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EACCESS 0x200
#define AT_EMPTY_PATH 0x1000
int user_path_at(int dirfd, const char __user *path, bool nofollow, struct fnode **out);
int kern_path(struct fnode *cwd, const char *path, bool nofollow, struct fnode **out);
/* The directory that holds a path's last component, and that component (FS_NAME_MAX + 1 bytes
 * at last; "" for "/"); trailing says the path ended in '/'. */
int kern_path_parent(struct fnode *cwd, const char *path, struct fnode **dir, char *last,
		     bool *trailing);
int user_path_parent(int dirfd, const char __user *path, struct fnode **dir, char *last,
		     bool *trailing);

/* kernel/fs/eventpoll.c: f's last reference went; it leaves every epoll set (Linux's __fput()). */
void eventpoll_release(struct file *f);

/* kernel/fs/read_write.c: the checks of read and write (the fd's mode, a directory, the buffer),
 * then the file's door; sendfile reads and writes through them too. */
bool file_can_read(const struct file *f);
bool file_can_write(const struct file *f);
ssize_t file_read(struct file *f, char __user *buf, size_t count, s64 *pos);
ssize_t file_write(struct file *f, const char __user *buf, size_t count, s64 *pos);

/* kernel/fs/open.c */
struct file *dentry_open(struct fnode *n, unsigned int flags, int *err);

#endif
