/* Self-tests of fprobes (kernel/trace/fprobe.c), and our fprobe_example: one fprobe on many
 * workload functions, entry and exit handlers agreeing call for call, the exit seeing the return
 * value; by symbols and by addresses; recursion counted, not followed; refusals. */
#include "kernel/kallsyms.h"
#include "kernel/selftest.h"
#include "kernel/trace/fprobe.h"
#include "lib/errno.h"
#include "lib/string.h"

struct work_stats;
u64 compute_square(u64 x);
u64 compute_fib(int n);
void compute_iteration(struct work_stats *st);
void hash_iteration(struct work_stats *st);
void fs_iteration(struct work_stats *st);

#define FPT_MAX 32
static struct {
	unsigned long ip;
	unsigned long entries, exits;
} fpt_funcs[FPT_MAX];
static int fpt_nr;
static unsigned long fpt_square_sum, fpt_unknown;

static int fpt_slot(unsigned long ip)
{
	for (int i = 0; i < fpt_nr; i++)
		if (fpt_funcs[i].ip == ip)
			return i;
	return -1;
}

static int fpt_entry(struct fprobe *fp, unsigned long ip, struct pt_regs *regs, void *data)
{
	int i = fpt_slot(ip);

	if (i < 0)
		fpt_unknown++;
	else
		__atomic_add_fetch(&fpt_funcs[i].entries, 1, __ATOMIC_RELAXED);
	return 0;
}

static void fpt_exit(struct fprobe *fp, unsigned long ip, struct pt_regs *regs, void *data)
{
	int i = fpt_slot(ip);

	if (i < 0) {
		fpt_unknown++;
		return;
	}
	__atomic_add_fetch(&fpt_funcs[i].exits, 1, __ATOMIC_RELAXED);
	if (ip == (unsigned long)compute_square)
		fpt_square_sum += regs->ax;
}

static void fpt_reset(const char *const *names, int n)
{
	memset(fpt_funcs, 0, sizeof(fpt_funcs));
	fpt_nr = n;
	for (int i = 0; i < n; i++)
		fpt_funcs[i].ip = kallsyms_lookup_name(names[i]);
	fpt_square_sum = fpt_unknown = 0;
}

static const char *const fpt_work[] = {
	"compute_fib",	  "compute_square",    "compute_sum_squares", "compute_iteration",
	"hash_make_key",  "hash_mix",	       "hash_lookup",	      "hash_insert",
	"hash_iteration", "inode_permission",  "dentry_lookup",	      "path_lookup",
	"vfs_open",	  "page_cache_lookup", "copy_to_buffer",      "vfs_read",
	"vfs_close",	  "fs_iteration",
};

/* Linux's fprobe_example, as a self-test: every workload function at once. */
SELFTEST_DYNAMIC(fprobe_entry_and_exit_agree_on_many_functions)
{
	static struct fprobe fp = { .entry_handler = fpt_entry, .exit_handler = fpt_exit };
	int n = ARRAY_SIZE(fpt_work);

	fpt_reset(fpt_work, n);
	KT_ASSERT(t, !register_fprobe(&fp,
				      "compute_* hash_* inode_permission dentry_lookup "
				      "path_lookup vfs_* page_cache_lookup copy_to_buffer "
				      "fs_iteration",
				      NULL));
	for (int r = 0; r < 3; r++) {
		compute_iteration(NULL);
		hash_iteration(NULL);
		fs_iteration(NULL);
	}
	KT_EXPECT_EQ(t, unregister_fprobe(&fp), 0);
	compute_iteration(NULL); /* not counted any more */
	for (int i = 0; i < n; i++) {
		if (fpt_funcs[i].entries != fpt_funcs[i].exits || !fpt_funcs[i].entries)
			ktest_fail(t, __FILE__, __LINE__, "%s: %lu entries, %lu exits", fpt_work[i],
				   fpt_funcs[i].entries, fpt_funcs[i].exits);
	}
	KT_EXPECT_EQ(t, fpt_funcs[3].entries, 3);  /* compute_iteration */
	KT_EXPECT_EQ(t, fpt_funcs[1].entries, 48); /* compute_square, 16 a round */
	KT_EXPECT_EQ(t, fpt_square_sum, 3 * 1496); /* the sum of 1..16 squared, from regs->ax */
	KT_EXPECT_EQ(t, fpt_unknown, 0);
	KT_EXPECT_EQ(t, fp.nmissed, 0);
}

SELFTEST_DYNAMIC(fprobe_by_symbols_and_addresses)
{
	static const char *syms[] = { "compute_square", "compute_sum_squares" };
	static struct fprobe fp = { .entry_handler = fpt_entry };
	unsigned long ips[2];

	fpt_reset(syms, 2);
	KT_ASSERT(t, !register_fprobe_syms(&fp, syms, 2));
	compute_iteration(NULL);
	KT_EXPECT_EQ(t, unregister_fprobe(&fp), 0);
	KT_EXPECT_EQ(t, fpt_funcs[0].entries, 16);
	KT_EXPECT_EQ(t, fpt_funcs[1].entries, 1);
	KT_EXPECT_EQ(t, fpt_funcs[0].exits, 0); /* no exit handler: no return hooked */
	ips[0] = fpt_funcs[0].ip;
	ips[1] = fpt_funcs[1].ip;
	fpt_reset(syms, 2);
	KT_ASSERT(t, !register_fprobe_ips(&fp, ips, 1));
	compute_iteration(NULL);
	KT_EXPECT_EQ(t, unregister_fprobe(&fp), 0);
	KT_EXPECT_EQ(t, fpt_funcs[0].entries, 16);
	KT_EXPECT_EQ(t, fpt_funcs[1].entries, 0);
}

static unsigned long fpt_nested;

/* An entry handler that calls a probed function: the inner hit is missed, not followed. */
static int fpt_recurse(struct fprobe *fp, unsigned long ip, struct pt_regs *regs, void *data)
{
	fpt_nested++;
	compute_square(2);
	return 0;
}

SELFTEST_DYNAMIC(fprobe_recursion_is_counted_in_nmissed)
{
	static struct fprobe fp = { .entry_handler = fpt_recurse };

	fpt_nested = 0;
	KT_ASSERT(t, !register_fprobe(&fp, "compute_square", NULL));
	for (int i = 0; i < 5; i++)
		compute_square(i);
	KT_EXPECT_EQ(t, unregister_fprobe(&fp), 0);
	KT_EXPECT_EQ(t, fpt_nested, 5);
	KT_EXPECT_EQ(t, fp.nmissed, 5);
}

SELFTEST_DYNAMIC(fprobe_refusals)
{
	static const char *nosuch[] = { "no_such_function" };
	static struct fprobe fp = { .entry_handler = fpt_entry };
	unsigned long bad = (unsigned long)compute_square + 1;

	KT_EXPECT_EQ(t, register_fprobe(&fp, "no_such_function*", NULL), -EINVAL);
	KT_EXPECT_EQ(t, register_fprobe_syms(&fp, nosuch, 1), -ENOENT);
	KT_EXPECT_EQ(t, register_fprobe_ips(&fp, &bad, 1), -ENOENT);
	KT_EXPECT_EQ(t, unregister_fprobe(&fp), -EINVAL);
	KT_EXPECT(t, !(fp.ops.flags & FTRACE_OPS_FL_ENABLED));
}

static unsigned long fpt_data_calls, fpt_data_bad, fpt_data_exits;

/* Keeps the argument for the exit; an odd one asks for no exit handler on that call. */
static int fpt_data_entry(struct fprobe *fp, unsigned long ip, struct pt_regs *regs, void *data)
{
	fpt_data_calls++;
	if (!data)
		fpt_data_bad++;
	else
		*(unsigned long *)data = regs->di;
	return regs->di & 1;
}

/* The exit sees its own call's argument beside the return value. */
static void fpt_data_exit(struct fprobe *fp, unsigned long ip, struct pt_regs *regs, void *data)
{
	unsigned long x = data ? *(unsigned long *)data : 1;

	fpt_data_exits++;
	if (x & 1 || regs->ax != x * x)
		fpt_data_bad++;
}

u64 compute_sum_squares(int n);

SELFTEST_DYNAMIC(fprobe_entry_data_reaches_the_exit)
{
	static struct fprobe fp = { .entry_handler = fpt_data_entry,
				    .exit_handler = fpt_data_exit,
				    .entry_data_size = sizeof(unsigned long) };

	fpt_data_calls = fpt_data_bad = fpt_data_exits = 0;
	KT_ASSERT(t, !register_fprobe(&fp, "compute_square", NULL));
	for (int i = 0; i < 10; i++)
		compute_square(i);
	compute_sum_squares(4); /* 0..3 (or 1..4): two even, two odd */
	KT_EXPECT_EQ(t, unregister_fprobe(&fp), 0);
	KT_EXPECT_EQ(t, fpt_data_calls, 14);
	KT_EXPECT_EQ(t, fpt_data_exits, 7);
	KT_EXPECT_EQ(t, fpt_data_bad, 0);
	KT_EXPECT_EQ(t, fp.nmissed, 0);
}
