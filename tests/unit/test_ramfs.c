/* Unit tests for kernel/fs/ramfs_file.c: a file's bytes in pages, holes, growing and cutting,
 * the copy of an initramfs file's bytes at its first change, and a super_block's page limit
 * (ENOSPC) with every page given back. User memory is the host's: copies are memcpy here. */
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

void *malloc(size_t size);
void free(void *p);
void *aligned_alloc(size_t align, size_t size);

static int pages_live;
static int fail_pages_in; /* 0: never; n: the n-th page from now is refused */

void *alloc_page_zeroed(enum page_user user)
{
	void *p;

	(void)user;
	if (fail_pages_in && --fail_pages_in == 0)
		return NULL;
	p = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
	if (p) {
		memset(p, 0, PAGE_SIZE);
		pages_live++;
	}
	return p;
}

/* __pa() of a host pointer is the pointer less the direct map's base: undo it. */
void free_pages_for(unsigned long pa, size_t n, enum page_user user)
{
	(void)n;
	(void)user;
	pages_live--;
	free(__va(pa));
}

unsigned long phys_map_base = PAGE_OFFSET;

unsigned long copy_user_generic(void *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

u64 ktime_get_ns(void)
{
	return 0;
}

static struct super_block sb;

static struct ramfs_inode *new_file(void)
{
	static struct ramfs_inode i;

	memset(&i, 0, sizeof(i));
	memset(&sb, 0, sizeof(sb));
	i.mode = S_IFREG | 0644;
	i.sb = &sb;
	return &i;
}

static void drop(struct ramfs_inode *i)
{
	ramfs_truncate(i, 0);
	kfree(i->pages);
	i->pages = NULL;
	i->nr_slots = 0;
}

KTEST(ramfs_write_read_across_pages)
{
	struct ramfs_inode *i = new_file();
	static char in[10000], out[10000];
	s64 pos = 0;

	for (size_t k = 0; k < sizeof(in); k++)
		in[k] = (char)(k * 7 + 1);
	EXPECT_EQ(ramfs_write_user(i, in, sizeof(in), &pos, false), 10000);
	EXPECT_EQ(pos, 10000);
	EXPECT_EQ(i->size, 10000);
	EXPECT_EQ(sb.nr_pages, 3);
	pos = 0;
	EXPECT_EQ(ramfs_read_user(i, out, sizeof(out) + 50, &pos), 10000);
	EXPECT_TRUE(!memcmp(in, out, sizeof(in)));
	EXPECT_EQ(ramfs_read_user(i, out, 10, &pos), 0); /* at the end */
	drop(i);
	EXPECT_EQ(pages_live, 0);
	EXPECT_EQ(sb.nr_pages, 0);
}

KTEST(ramfs_holes_read_as_zeros)
{
	struct ramfs_inode *i = new_file();
	char out[16];
	size_t len;
	s64 pos = 3 * PAGE_SIZE;

	EXPECT_EQ(ramfs_write_user(i, "end", 3, &pos, false), 3);
	EXPECT_EQ(i->size, 3 * PAGE_SIZE + 3);
	EXPECT_EQ(sb.nr_pages, 1); /* only the page written */
	EXPECT_TRUE(ramfs_bytes_at(i, PAGE_SIZE + 5, &len) == NULL);
	EXPECT_EQ(len, PAGE_SIZE - 5);
	memset(out, 'x', sizeof(out));
	EXPECT_EQ(ramfs_read_kernel(i, 2 * PAGE_SIZE - 8, out, 16), 0);
	for (int k = 0; k < 16; k++)
		EXPECT_EQ(out[k], 0);
	EXPECT_EQ(ramfs_read_kernel(i, i->size - 1, out, 2), -EINVAL); /* past the end */
	drop(i);
}

KTEST(ramfs_truncate_cuts_and_zeroes)
{
	struct ramfs_inode *i = new_file();
	char out[8];
	s64 pos = 0;

	ramfs_write_user(i, "abcdefgh", 8, &pos, false);
	EXPECT_EQ(ramfs_truncate(i, 3), 0);
	EXPECT_EQ(ramfs_truncate(i, 8), 0); /* grown again: the cut bytes read as zeros */
	EXPECT_EQ(ramfs_read_kernel(i, 0, out, 8), 0);
	EXPECT_TRUE(!memcmp(out, "abc\0\0\0\0\0", 8));
	EXPECT_EQ(ramfs_truncate(i, 5 * PAGE_SIZE), 0);
	EXPECT_EQ(sb.nr_pages, 1); /* growing takes no page */
	EXPECT_EQ(ramfs_truncate(i, 0), 0);
	EXPECT_EQ(sb.nr_pages, 0);
	EXPECT_EQ(ramfs_truncate(i, -1ULL), -EFBIG);
	i->mode = S_IFDIR | 0755;
	EXPECT_EQ(ramfs_truncate(i, 0), -EINVAL);
	i->mode = S_IFREG | 0644;
	drop(i);
}

KTEST(ramfs_append_goes_to_the_end)
{
	struct ramfs_inode *i = new_file();
	char out[6];
	s64 pos = 0;

	ramfs_write_user(i, "abc", 3, &pos, false);
	pos = 0;
	EXPECT_EQ(ramfs_write_user(i, "de", 2, &pos, true), 2);
	EXPECT_EQ(pos, 5);
	EXPECT_EQ(ramfs_read_kernel(i, 0, out, 5), 0);
	EXPECT_TRUE(!memcmp(out, "abcde", 5));
	drop(i);
}

KTEST(ramfs_copy_up_of_archive_bytes)
{
	struct ramfs_inode *i = new_file();
	static const char archive[] = "0123456789";
	char out[10];
	s64 pos = 4;
	size_t len;

	i->data = archive;
	i->size = 10;
	EXPECT_TRUE(ramfs_bytes_at(i, 2, &len) == archive + 2);
	EXPECT_EQ(ramfs_write_user(i, "xy", 2, &pos, false), 2);
	EXPECT_TRUE(i->data == NULL);
	EXPECT_EQ(ramfs_read_kernel(i, 0, out, 10), 0);
	EXPECT_TRUE(!memcmp(out, "0123xy6789", 10));
	EXPECT_TRUE(!memcmp(archive, "0123456789", 10)); /* the archive never changes */
	drop(i);
}

KTEST(ramfs_enospc_at_the_limit)
{
	struct ramfs_inode *i = new_file();
	static char in[3 * PAGE_SIZE];
	s64 pos = 0;

	sb.max_pages = 2;
	EXPECT_EQ(ramfs_write_user(i, in, sizeof(in), &pos, false), 2 * PAGE_SIZE); /* short */
	EXPECT_EQ(ramfs_write_user(i, in, 1, &pos, false), -ENOSPC);
	EXPECT_EQ(i->size, 2 * PAGE_SIZE);
	EXPECT_EQ(ramfs_truncate(i, PAGE_SIZE), 0); /* one page back */
	pos = PAGE_SIZE;
	EXPECT_EQ(ramfs_write_user(i, in, 10, &pos, false), 10);
	sb.max_pages = 0;
	fail_pages_in = 1; /* no limit, and the memory runs out */
	pos = 3 * PAGE_SIZE;
	EXPECT_EQ(ramfs_write_user(i, in, 1, &pos, false), -ENOSPC);
	fail_pages_in = 0;
	drop(i);
	EXPECT_EQ(pages_live, 0);
}

KTEST(ramfs_copy_up_all_or_nothing)
{
	struct ramfs_inode *i = new_file();
	static char archive[3 * PAGE_SIZE];
	s64 pos = 0;

	i->data = archive;
	i->size = sizeof(archive);
	sb.max_pages = 2; /* the copy needs three */
	EXPECT_EQ(ramfs_write_user(i, "z", 1, &pos, false), -ENOSPC);
	EXPECT_TRUE(i->data == archive); /* still reads from the archive */
	EXPECT_EQ(sb.nr_pages, 0);
	EXPECT_EQ(pages_live, 0);
	drop(i);
}
