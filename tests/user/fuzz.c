/*
 * fuzz SEED CHILDREN CALLS: a system-call fuzzer in the spirit of trinity's random mode. Each child
 * (seeds SEED, SEED+1, ...) makes CALLS calls, the numbers and arguments drawn from a PRNG seeded
 * by its seed, so a run is reproducible: `fuzz 17 1 300` replays child 17. Arguments come from
 * pools of edge values (0, -1, huge, kernel and unmapped pointers, a page's last byte, good
 * buffers, paths that are good, missing, too long or not NUL-terminated before the end of the
 * mapping, fds old and new). A child that faults dies alone; one that sleeps for more than a
 * second is killed. The children's stdin, stdout and stderr are /dev/null; calls that would act
 * on other processes (kill, fork, exec, mount) are left out. The children give up root first, as
 * trinity refuses to fuzz as root: the files are writable now, and a random O_TRUNC or unlink as
 * root would wreck the initramfs's programs for every test after it.
 */
#include "ulib.h"

enum {
	NR_kill = 62,
	NR_setresuid = 117,
	NR_setresgid = 119,
};

#define WNOHANG 1
#define SIGKILL 9

/* The calls drawn from: every one the kernel answers that acts only on the caller. */
static const int calls[] = {
	0,   1,	  2,   3,   4,	 5,   6,   7,	8,   9,	  10,  11,  12,	 13,  14,  15,	16,
	17,  19,  20,  21,  22,	 24,  32,  33,	39,  61,  63,  72,  79,	 80,  89,  95,	96,
	99,  102, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118,
	119, 120, 121, 124, 127, 128, 131, 157, 158, 186, 201, 217, 218, 228, 257, 262, 269,
	271, 273, 292, 293, 298, 302, 318, 334, 400, 1000,
	/* the writable files' calls (docs/17, section 8) */
	18,  76,  77,  82,  83,  84,  85,  86,  87,  88,  90,  91,  258, 263, 264, 265, 266,
	268, 280, 316,
	/* statfs, fstatfs (docs/17, section 8) */
	137, 138,
};

/*
 * What a child draws from: the PRNG's state and the edge page's address. It lives on the child's
 * stack, which no pool value points into, never in the image: a call the child makes may write
 * any of buf, longpath and whatever lies after them (getrandom(0x403000, -1) returns 24576 random
 * bytes), and a state there once made seed 7's last 64 calls random, so that a replay differed.
 */
struct draw {
	unsigned long long state;
	char *edge_page; /* a page whose next page is unmapped: its last bytes end a mapping */
};

static unsigned long rnd(struct draw *d)
{
	/* xorshift64*: small, and the same sequence everywhere for a seed */
	d->state ^= d->state >> 12;
	d->state ^= d->state << 25;
	d->state ^= d->state >> 27;
	return (d->state * 0x2545f4914f6cdd1dULL) >> 11;
}

static char buf[3 * 4096] __attribute__((aligned(4096)));
static char longpath[5000];

static const char *paths[] = { "/", "/proc/version", "/dev/null", "/tests", "/tests/hello",
			       "/nonexistent", "", "/proc/self/stat", "/bin/busybox", ".", ".." };

static long arg(struct draw *d)
{
	switch (rnd(d) % 16) {
	case 0:
		return 0;
	case 1:
		return -1;
	case 2:
		return rnd(d) % 70; /* an fd, a signal, a small count */
	case 3:
		return (long)(buf + rnd(d) % sizeof(buf));
	case 4:
		return (long)(d->edge_page + 4096 - 1 - rnd(d) % 8);
	case 5:
		return (long)0xffffffff80000000UL + (rnd(d) % 4096);
	case 6:
		return (long)paths[rnd(d) % (sizeof(paths) / sizeof(paths[0]))];
	case 7:
		return (long)longpath;
	case 8:
		return 1L << (rnd(d) % 63);
	case 9:
		return (long)0x7ffffffff000UL + (rnd(d) % 8192); /* around the top of user space */
	case 10:
		return 0x1000 * (rnd(d) % 0x4000);
	case 11:
		return (long)(rnd(d) % 2 ? 0x80000000UL : 0xffffffffUL);
	case 12:
		return 4096;
	default:
		return (long)rnd(d) * (rnd(d) % 2 ? 1 : -1);
	}
}

static void child(unsigned long seed, long n, char *edge_page)
{
	struct draw d = { seed * 0x9e3779b97f4a7c15ULL + 1, edge_page };
	long fd = sys3(NR_open, "/dev/null", 2, 0);

	for (int i = 0; i < 3; i++)
		sys2(NR_dup2, fd, i);
	if (sys3(NR_setresgid, 1000, 1000, 1000) || sys3(NR_setresuid, 1000, 1000, 1000))
		exit_group(1);
	for (long i = 0; i < n; i++) {
		int nr = calls[rnd(&d) % (sizeof(calls) / sizeof(calls[0]))];
		long a[6];
		for (int k = 0; k < 6; k++)
			a[k] = arg(&d);
		syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	}
	exit_group(0);
}

static void sleep_ms(long ms)
{
	long ts[2] = { 0, ms * 1000000 };
	sys2(NR_nanosleep, ts, 0);
}

int main(int argc, char **argv, char **envp)
{
	long seed = 1, children = 10, calls_each = 200, faults = 0, hangs = 0;
	char *edge_page;

	for (int a = 1; a < argc && a < 4; a++) {
		long v = 0;
		for (const char *p = argv[a]; *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (*p - '0');
		if (a == 1)
			seed = v;
		else if (a == 2)
			children = v;
		else
			calls_each = v;
	}
	edge_page = (char *)sys6(NR_mmap, 0, 8192, 3, 0x22, -1, 0);
	sys2(NR_munmap, edge_page + 4096, 4096);
	for (unsigned long i = 0; i < sizeof(longpath); i++)
		longpath[i] = i % 64 == 63 ? '/' : 'a';
	for (long c = 0; c < children; c++) {
		long pid = sys0(NR_fork), waited = 0;
		int status = 0;
		if (!pid)
			child(seed + c, calls_each, edge_page);
		while (sys4(NR_wait4, pid, &status, WNOHANG, 0) == 0) {
			if (waited++ == 100) { /* a second asleep: a read of an empty pipe, a long wait */
				sys2(NR_kill, pid, SIGKILL);
				hangs++;
				/* said, because a loaded host can make a busy child look asleep: a
				 * replay compares only the children the timer did not cut short */
				put_str("seed ");
				put_num(seed + c);
				put_str(": killed after a second\n");
			}
			sleep_ms(10);
		}
		if ((status & 0x7f) && (status & 0x7f) != SIGKILL) {
			faults++;
			put_str("seed ");
			put_num(seed + c);
			put_str(": killed by signal ");
			put_num(status & 0x7f);
			put_str("\n");
		}
	}
	put_str("fuzz: ");
	put_num(children);
	put_str(" children x ");
	put_num(calls_each);
	put_str(" calls from seed ");
	put_num(seed);
	put_str(", ");
	put_num(faults);
	put_str(" killed by a fault, ");
	put_num(hangs);
	put_str(" killed asleep\n");
	return 0;
}
