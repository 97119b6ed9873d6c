/*
 * The bytes of a ramfs or tmpfs file (Linux: mm/shmem.c, shmem_write_begin(), shmem_undo_range()):
 * one page per 4 KiB of the file, taken at the first write into it and counted in its
 * super_block, so that a tmpfs of size=N refuses the page past N with -ENOSPC. An initramfs
 * file reads from the archive until its first change copies it ("copy-up").
 * Callers hold ramfs_lock().
 */
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

#define MAX_LFS_FILESIZE 0x7fffffffffffffffLL

static size_t slots_for(u64 size)
{
	return (size + PAGE_SIZE - 1) / PAGE_SIZE;
}

const void *ramfs_bytes_at(const struct ramfs_inode *i, u64 pos, size_t *len)
{
	size_t in_page = PAGE_SIZE - pos % PAGE_SIZE;

	if (i->data) {
		*len = i->size - pos;
		return i->data + pos;
	}
	*len = MIN((u64)in_page, i->size - pos);
	if (pos / PAGE_SIZE >= i->nr_slots || !i->pages[pos / PAGE_SIZE])
		return NULL;
	return (const char *)i->pages[pos / PAGE_SIZE] + pos % PAGE_SIZE;
}

int ramfs_read_kernel(const struct ramfs_inode *i, u64 pos, void *buf, size_t len)
{
	char *out = buf;
	size_t n;

	if (pos > i->size || len > i->size - pos)
		return -EINVAL;
	for (; len; len -= n, pos += n, out += n) {
		const void *p = ramfs_bytes_at(i, pos, &n);
		n = MIN(n, len);
		if (p)
			memcpy(out, p, n);
		else
			memset(out, 0, n);
	}
	return 0;
}

/* A hole's zeros to user memory: 0, or what was left uncopied. */
static unsigned long zero_user(char __user *buf, size_t n)
{
	static const char zeros[256];

	for (size_t k = 0; k < n; k += sizeof(zeros))
		if (copy_to_user(buf + k, zeros, MIN(sizeof(zeros), n - k)))
			return n - k;
	return 0;
}

ssize_t ramfs_read_user(struct ramfs_inode *i, char __user *buf, size_t count, s64 *pos)
{
	size_t done = 0, n;

	if (*pos >= (s64)i->size)
		return 0;
	count = MIN(count, i->size - *pos);
	for (; done < count; done += n) {
		const void *p = ramfs_bytes_at(i, *pos + done, &n);
		n = MIN(n, count - done);
		if (p ? copy_to_user(buf + done, p, n) : zero_user(buf + done, n))
			break;
	}
	*pos += done;
	return done || !count ? (ssize_t)done : -EFAULT;
}

/* Makes pages[] hold at least n slots. */
static int grow_slots(struct ramfs_inode *i, size_t n)
{
	size_t want = MAX(n, 2 * i->nr_slots);
	void **pages;

	if (n <= i->nr_slots)
		return 0;
	if (!(pages = kzalloc(want * sizeof(*pages))))
		return -ENOMEM;
	if (i->nr_slots)
		memcpy(pages, i->pages, i->nr_slots * sizeof(*pages));
	kfree(i->pages);
	i->pages = pages;
	i->nr_slots = want;
	return 0;
}

/* The page behind slot k, taken now if missing: -ENOSPC past the super_block's size. */
static void *get_page(struct ramfs_inode *i, size_t k, int *err)
{
	struct super_block *sb = i->sb;
	void *page;

	if ((*err = grow_slots(i, k + 1)))
		return NULL;
	if (i->pages[k])
		return i->pages[k];
	if (sb->max_pages && sb->nr_pages >= sb->max_pages) {
		*err = -ENOSPC;
		return NULL;
	}
	if (!(page = alloc_page_zeroed(PAGE_USER_SHMEM))) {
		*err = -ENOSPC; /* as shmem says when memory runs out */
		return NULL;
	}
	sb->nr_pages++;
	i->pages[k] = page;
	return page;
}

static void put_page(struct ramfs_inode *i, size_t k)
{
	if (k >= i->nr_slots || !i->pages[k])
		return;
	free_pages_for(__pa(i->pages[k]), 1, PAGE_USER_SHMEM);
	i->pages[k] = NULL;
	i->sb->nr_pages--;
}

/* The archive's bytes into pages of the file's own, all or nothing. */
static int copy_up(struct ramfs_inode *i)
{
	int err = 0;

	if (!i->data || i->data_owned)
		return 0;
	for (size_t k = 0; k < slots_for(i->size); k++) {
		size_t off = k * PAGE_SIZE, n = MIN(PAGE_SIZE, i->size - off);
		void *page = get_page(i, k, &err);
		if (!page) {
			while (k--)
				put_page(i, k);
			return err;
		}
		memcpy(page, i->data + off, n);
	}
	i->data = NULL;
	return 0;
}

int ramfs_truncate(struct ramfs_inode *i, u64 size)
{
	int err;

	if ((i->mode & S_IFMT) != S_IFREG)
		return -EINVAL;
	if (size > MAX_LFS_FILESIZE)
		return -EFBIG;
	if (!size && i->data) { /* nothing to copy: let go of the archive's bytes */
		i->data = NULL;
	} else if ((err = copy_up(i))) {
		return err;
	}
	for (size_t k = slots_for(size); k < i->nr_slots; k++)
		put_page(i, k);
	/* The part of the last page beyond the new end reads zeros if the file grows again. */
	if (size % PAGE_SIZE && size < i->size && size / PAGE_SIZE < i->nr_slots &&
	    i->pages[size / PAGE_SIZE])
		memset((char *)i->pages[size / PAGE_SIZE] + size % PAGE_SIZE, 0,
		       PAGE_SIZE - size % PAGE_SIZE);
	if (size > i->size && (err = grow_slots(i, slots_for(size))))
		return err;
	i->size = size;
	i->mtime = ktime_get_ns();
	return 0;
}

/* The common part of both writes: page by page, a short count on a fault or a full file. */
static ssize_t do_write(struct ramfs_inode *i, const void *buf, size_t count, u64 pos, bool user)
{
	size_t done = 0;
	int err = 0;

	if (pos > MAX_LFS_FILESIZE || count > MAX_LFS_FILESIZE - pos)
		return -EFBIG;
	if ((err = copy_up(i)))
		return err;
	while (done < count) {
		u64 at = pos + done;
		size_t n = MIN(count - done, PAGE_SIZE - at % PAGE_SIZE);
		char *page = get_page(i, at / PAGE_SIZE, &err);
		if (!page)
			break;
		if (user ? copy_from_user(page + at % PAGE_SIZE, (const char __user *)buf + done, n)
			 : (memcpy(page + at % PAGE_SIZE, (const char *)buf + done, n), 0)) {
			err = -EFAULT;
			break;
		}
		done += n;
		if (pos + done > i->size)
			i->size = pos + done;
	}
	if (done)
		i->mtime = ktime_get_ns();
	return done || !count ? (ssize_t)done : err;
}

ssize_t ramfs_write_user(struct ramfs_inode *i, const char __user *buf, size_t count, s64 *pos,
			 bool append)
{
	ssize_t n;

	if (append)
		*pos = i->size;
	n = do_write(i, (const void *)buf, count, *pos, true);
	if (n > 0)
		*pos += n;
	return n;
}

ssize_t ramfs_write_kernel(struct ramfs_inode *i, const void *buf, size_t count, u64 pos)
{
	return do_write(i, buf, count, pos, false);
}
