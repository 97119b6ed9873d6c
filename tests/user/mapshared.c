/*
 * mapshared: mmap(MAP_SHARED | MAP_ANONYMOUS) as fork shares it, one check a line and "PASS n/m"
 * at the end (tests/integration/test_user_files.py runs it): the child's stores reach the parent,
 * on pages touched before the fork and after it, through mprotect and a partial munmap; a private
 * mapping beside it stays copy-on-write.
 */
#include "ulib.h"

#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define MAP_ANONYMOUS 0x20
#define PAGE 4096
#define NR_futex 202
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1

struct timespec {
	long sec, nsec;
};

static int wait_status(long pid)
{
	int status = -1;

	sys4(NR_wait4, pid, &status, 0, 0);
	return status;
}

static char *map(long len, int flags)
{
	return (char *)sys6(NR_mmap, 0, len, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
}

/* A futex word in shared memory: the child waits on it, the parent's wake (not _PRIVATE) finds it
 * in another process. The parent tries until one wake found a waiter: the child may not be
 * asleep yet at the first. */
static void test_shared_futex(void)
{
	int *word = (int *)map(PAGE, MAP_SHARED);
	struct timespec five_ms = { 0, 5000000 };
	long pid, woken = 0;

	*word = 0;
	if (!(pid = sys0(NR_fork)))
		exit_group(sys6(NR_futex, word, FUTEX_WAIT, 0, 0, 0, 0) == 0 ? 0 : 1);
	for (int i = 0; i < 400 && !woken; i++) {
		woken = sys6(NR_futex, word, FUTEX_WAKE, 1, 0, 0, 0);
		if (!woken)
			sys2(NR_nanosleep, &five_ms, 0);
	}
	check("a shared FUTEX_WAKE finds the other process's waiter", woken, 1);
	check("...which FUTEX_WAIT returned 0 to", wait_status(pid), 0);
	sys2(NR_munmap, word, PAGE);
}

int main(int argc, char **argv, char **envp)
{
	char *shared = map(4 * PAGE, MAP_SHARED), *private = map(PAGE, MAP_PRIVATE);
	long pid;

	check("mmap MAP_SHARED|MAP_ANONYMOUS", (long)shared > 0, 1);
	shared[0] = 'p';   /* touched before the fork */
	private[0] = 'p';
	if (!(pid = sys0(NR_fork))) {
		shared[0] = 'c';
		shared[2 * PAGE] = 'c'; /* first touched by the child, after the fork */
		private[0] = 'c';
		exit_group(shared[0] == 'c' ? 0 : 1);
	}
	check("the child ran", wait_status(pid), 0);
	check("its store to a page touched before the fork is ours", shared[0], 'c');
	check("its store to a page first touched after the fork is ours", shared[2 * PAGE], 'c');
	check("a private mapping stays copy-on-write", private[0], 'p');

	/* Read-only in the child, then back: still the same frames. */
	if (!(pid = sys0(NR_fork))) {
		sys3(NR_mprotect, shared + PAGE, PAGE, PROT_READ);
		sys3(NR_mprotect, shared + PAGE, PAGE, PROT_READ | PROT_WRITE);
		shared[PAGE + 1] = 'm';
		sys2(NR_munmap, shared + 3 * PAGE, PAGE); /* the rest stays shared */
		shared[3] = 'u';
		exit_group(0);
	}
	check("the second child ran", wait_status(pid), 0);
	check("a store after mprotect round trip is ours", shared[PAGE + 1], 'm');
	check("a store after a partial munmap is ours", shared[3], 'u');
	check("our own part of it is still mapped", (shared[3 * PAGE] = 'x'), 'x');
	check("munmap the whole area", sys2(NR_munmap, shared, 4 * PAGE), 0);
	test_shared_futex();
	return check_summary();
}
