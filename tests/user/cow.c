/*
 * cow: fork's copy-on-write as a program sees it, one check a line and "PASS n/m" at the end
 * (tests/integration/test_user.py runs it): each side's writes stay its own (user stores, and the
 * kernel's own stores through read()), the pages are shared until written (/proc/meminfo's
 * OtherPages), memory comes back at exit, and a write the area forbids is still SIGSEGV.
 */
#include "ulib.h"

#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_PRIVATE 2
#define MAP_ANONYMOUS 0x20
#define SIGSEGV 11
#define REGION_PAGES 512 /* 2 MiB, touched before the fork */

static char data_page[4096] = { 1 };

static long other_pages_kb(void)
{
	char buf[1024];
	long fd = sys2(NR_open, "/proc/meminfo", 0), n, kb = -1;

	if (fd < 0)
		return -1;
	n = sys3(NR_read, fd, buf, sizeof(buf) - 1);
	sys1(NR_close, fd);
	buf[n > 0 ? n : 0] = 0;
	for (char *p = buf; *p; p++) {
		if ((p == buf || p[-1] == '\n') && !memcmp_prefix(p, "OtherPages:")) {
			p += 11;
			while (*p == ' ')
				p++;
			kb = atol(p);
			break;
		}
	}
	return kb;
}

static int wait_status(long pid)
{
	int status = -1;

	sys4(NR_wait4, pid, &status, 0, 0);
	return status;
}

/* The child writes everywhere; the parent must still see its own bytes. */
static void test_child_writes_stay_in_child(char *region)
{
	char on_stack[64];
	long pid;

	memset(on_stack, 's', sizeof(on_stack));
	data_page[0] = 'p';
	region[0] = 'p';
	if (!(pid = sys0(NR_fork))) {
		data_page[0] = 'c';
		region[0] = 'c';
		on_stack[0] = 'c';
		exit_group(data_page[0] == 'c' && region[0] == 'c' && on_stack[0] == 'c' ? 0 : 1);
	}
	check("child saw its own writes", wait_status(pid), 0);
	check("parent's .data unchanged", data_page[0], 'p');
	check("parent's heap unchanged", region[0], 'p');
	check("parent's stack unchanged", on_stack[0], 's');
}

/* The parent writes after the fork, by a store, by read() (the kernel's store) and after an
 * mprotect() round trip; the child, still running, must see the bytes of the moment it was made. */
static void test_parent_writes_stay_in_parent(char *region)
{
	int go[2], done[2];
	char c;
	long pid;

	data_page[100] = 'o';
	region[4096] = 'o';
	region[8192] = 'o';
	sys1(NR_pipe, go);
	sys1(NR_pipe, done);
	if (!(pid = sys0(NR_fork))) {
		sys3(NR_read, go[0], &c, 1);
		exit_group(data_page[100] == 'o' && region[4096] == 'o' && region[8192] == 'o' ? 0 : 1);
	}
	data_page[100] = 'n';
	sys3(NR_write, done[1], "n", 1);
	check("read() into a shared page", sys3(NR_read, done[0], &region[4096], 1), 1);
	check("mprotect read-only", sys3(NR_mprotect, region, 4 * 4096, PROT_READ), 0);
	check("mprotect back to read-write", sys3(NR_mprotect, region, 4 * 4096, PROT_READ | PROT_WRITE),
	      0);
	region[8192] = 'n';
	sys3(NR_write, go[1], "g", 1);
	check("child kept .data, the page read() wrote and the mprotected page", wait_status(pid), 0);
	check("parent has its new bytes", data_page[100] == 'n' && region[4096] == 'n' &&
						  region[8192] == 'n',
	      1);
	for (int i = 0; i < 2; i++) {
		sys1(NR_close, go[i]);
		sys1(NR_close, done[i]);
	}
}

/* Shared until written: the child's fork costs a few pages, its writes the region's worth. */
static void test_pages_shared_until_written(char *region)
{
	int go[2], ready[2];
	long before = other_pages_kb(), forked, written, after, pid;
	char c;

	sys1(NR_pipe, go);
	sys1(NR_pipe, ready);
	if (!(pid = sys0(NR_fork))) {
		sys3(NR_write, ready[1], "f", 1);
		sys3(NR_read, go[0], &c, 1);
		for (int i = 0; i < REGION_PAGES; i++)
			region[i * 4096 + 1] = 'w';
		sys3(NR_write, ready[1], "w", 1);
		sys3(NR_read, go[0], &c, 1);
		exit_group(0);
	}
	sys3(NR_read, ready[0], &c, 1);
	forked = other_pages_kb();
	sys3(NR_write, go[1], "g", 1);
	sys3(NR_read, ready[0], &c, 1);
	written = other_pages_kb();
	sys3(NR_write, go[1], "g", 1);
	check("child exits", wait_status(pid), 0);
	after = other_pages_kb();
	put_str("# OtherPages kB: before ");
	put_num(before);
	put_str(", forked ");
	put_num(forked);
	put_str(", child wrote ");
	put_num(written);
	put_str(", after ");
	put_num(after);
	put_str("\n");
	check("fork of 2 MiB touched costs under 256 kB", before > 0 && forked - before < 256, 1);
	check("the child's writes cost the 2 MiB", written - forked >= REGION_PAGES * 4, 1);
	check("all of it back after the child", after - before < 32 && before - after < 32, 1);
	check("parent's region untouched", region[1] == 0 && region[(REGION_PAGES - 1) * 4096 + 1] == 0,
	      1);
	for (int i = 0; i < 2; i++) {
		sys1(NR_close, go[i]);
		sys1(NR_close, ready[i]);
	}
}

/* Copy-on-write is for writable areas only: text and read-only memory still fault. */
static void test_bad_writes_still_segv(void)
{
	long ro = sys6(NR_mmap, 0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), pid;

	check("read-only mmap", ro > 0, 1);
	if (!(pid = sys0(NR_fork))) {
		*(volatile char *)(void *)main = 0;
		exit_group(1);
	}
	check("a write to text: SIGSEGV", wait_status(pid), SIGSEGV);
	if (!(pid = sys0(NR_fork))) {
		*(volatile char *)ro = 1;
		exit_group(1);
	}
	check("a write to read-only memory: SIGSEGV", wait_status(pid), SIGSEGV);
}

int main(int argc, char **argv, char **envp)
{
	char *region = (char *)sys6(NR_mmap, 0, REGION_PAGES * 4096, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	check("mmap 2 MiB", (long)region > 0, 1);
	for (int i = 0; i < REGION_PAGES; i++)
		region[i * 4096] = 0;
	test_child_writes_stay_in_child(region);
	test_parent_writes_stay_in_parent(region);
	test_pages_shared_until_written(region);
	test_bad_writes_still_segv();
	return check_summary();
}
