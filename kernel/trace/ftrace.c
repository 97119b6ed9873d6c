/* Dynamic ftrace records: from gcc's __mcount_loc list to one NOP'd, checked site per function.
 *
 *   compiler (-pg -mfentry -mrecord-mcount)   every function starts with `call __fentry__`,
 *                                             and its address goes into section __mcount_loc
 *   linker (linker.ld)                        __start_mcount_loc .. __stop_mcount_loc
 *   ftrace_init()                             a sorted dyn_ftrace record per address, and the
 *                                             call replaced by a 5-byte NOP (text_poke_early)
 */
#include "kernel/trace/ftrace.h"
#include "arch/x86/cpu.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/sort.h"
#include "lib/string.h"

#define RECS_PER_PAGE (PAGE_SIZE / sizeof(struct dyn_ftrace))
#define GROUP_PAGES 16 /* records are allocated in runs of up to 16 pages, like Linux's orders */

extern const unsigned long __start_mcount_loc[], __stop_mcount_loc[];

struct ftrace_page *ftrace_pages_start;
static unsigned long nr_records;
int ftrace_disabled;
unsigned long ftrace_bug_count;
u64 ftrace_init_ticks; /* TSC ticks the boot conversion took: instructions under -icount */
/* What the failing update was doing, for the report (Linux's ftrace_bug_type). */
const char *ftrace_bug_action = "Initializing ftrace call sites";
const u8 *ftrace_expected;

unsigned long ftrace_nr_records(void)
{
	return nr_records;
}

/* Allocates page groups for count records; returns the number of 4 KiB pages used. */
static unsigned long ftrace_allocate_pages(unsigned long count)
{
	struct ftrace_page **tail = &ftrace_pages_start;
	unsigned long pages = 0;

	while (count) {
		unsigned long n = MIN((count + RECS_PER_PAGE - 1) / RECS_PER_PAGE, GROUP_PAGES);
		struct ftrace_page *pg = kzalloc(sizeof(*pg));
		unsigned long pa = alloc_pages_for(n, PAGE_USER_FTRACE);

		if (!pg || !pa)
			panic("ftrace: out of memory for %lu records", count);
		pg->records = __va(pa);
		memset(pg->records, 0, n * PAGE_SIZE);
		pg->size = n * RECS_PER_PAGE;
		*tail = pg;
		tail = &pg->next;
		pages += n;
		count -= MIN(count, (unsigned long)pg->size);
	}
	return pages;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

/* Copies the usable addresses out of __mcount_loc, sorted, without duplicates. */
static unsigned long *ftrace_sorted_locs(unsigned long *count)
{
	unsigned long n = __stop_mcount_loc - __start_mcount_loc, kept = 0;
	unsigned long *ips = kmalloc(n * sizeof(*ips) + 1);

	if (!ips)
		panic("ftrace: out of memory sorting %lu call sites", n);
	for (unsigned long i = 0; i < n; i++) {
		unsigned long ip = __start_mcount_loc[i];
		/* Zero is what gcc leaves for a function it later discarded; skip non-text too. */
		if (ip && is_kernel_text(ip))
			ips[kept++] = ip;
	}
	sort(ips, kept, sizeof(*ips), cmp_ulong, NULL);
	n = kept;
	kept = 0;
	for (unsigned long i = 0; i < n; i++)
		if (!kept || ips[i] != ips[kept - 1])
			ips[kept++] = ips[i];
	*count = kept;
	return ips;
}

/* The patcher found other bytes than expected at a site: report it as an ftrace_bug. The
 * ftrace_call sites inside the callers have no record; their caller returns -EINVAL quietly. */
static void ftrace_site_mismatch(const struct text_poke_loc *site, const u8 *actual, void *cookie)
{
	static u8 expected[MCOUNT_INSN_SIZE];
	struct dyn_ftrace *rec = ftrace_lookup_ip((unsigned long)site->addr);

	if (!rec)
		return;
	memcpy(expected, site->old, MCOUNT_INSN_SIZE);
	ftrace_expected = expected;
	ftrace_bug(-EINVAL, rec);
}

/* The NOP a site holds at boot: it must be gcc's `call __fentry__` before we touch it. */
static int ftrace_init_nop(struct dyn_ftrace *rec)
{
	u8 call[MCOUNT_INSN_SIZE];

	ftrace_call_replace(call, rec->ip, (unsigned long)__fentry__);
	return ftrace_modify_code(rec->ip, call, ftrace_nop5);
}

void ftrace_init(void)
{
	unsigned long count, pages, *ips;
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;
	unsigned long flags, converted = 0;
	u64 t0;

	ftrace_patch_batch.mismatch = ftrace_site_mismatch;
	ips = ftrace_sorted_locs(&count);
	pages = ftrace_allocate_pages(count);
	pr_info("ftrace: allocating %lu entries in %lu pages\n", count, pages);

	pg = ftrace_pages_start;
	for (unsigned long i = 0; i < count; i++) {
		if (pg->index == pg->size)
			pg = pg->next;
		pg->records[pg->index++].ip = ips[i];
	}
	nr_records = count;
	kfree(ips);
	if (FTRACE_STATIC) {
		/* The records still name the functions filters can choose; the sites stay calls. */
		pr_info("ftrace: static (no dynamic ftrace): %lu sites left calling __fentry__\n",
			count);
		return;
	}

	t0 = rdtsc();
	flags = local_irq_save();
	/* One batch: each site checked as it is queued, all written by text_poke_early at commit. */
	text_patch_reserve(&ftrace_patch_batch, count + 16);
	BUG_ON(text_patch_begin(&ftrace_patch_batch)); /* boot: no observer yet, nothing refuses */
	for_each_ftrace_rec(pg, rec) {
		/* A site that is not `call __fentry__` is reported (ftrace_bug) by the patcher. */
		if (!ftrace_disabled)
			ftrace_init_nop(rec);
		if (ftrace_disabled)
			rec->flags |= FTRACE_FL_DISABLED; /* still `call __fentry__`: left alone */
		else
			converted++;
	}
	text_patch_commit(&ftrace_patch_batch);
	ftrace_init_ticks = rdtsc() - t0;
	local_irq_restore(flags);
	pr_info("ftrace: converted %lu sites in %llu us\n", converted,
		tsc_to_ns(ftrace_init_ticks) / 1000);
}

/* Binary search of the sorted records. */
struct dyn_ftrace *ftrace_lookup_ip(unsigned long ip)
{
	for (struct ftrace_page *pg = ftrace_pages_start; pg; pg = pg->next) {
		long lo = 0, hi = pg->index - 1;
		if (!pg->index || ip < pg->records[0].ip || ip > pg->records[hi].ip)
			continue;
		while (lo <= hi) {
			long mid = (lo + hi) / 2;
			if (pg->records[mid].ip == ip)
				return &pg->records[mid];
			if (pg->records[mid].ip < ip)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
		return NULL;
	}
	return NULL;
}

long ftrace_rec_index(const struct dyn_ftrace *rec)
{
	long base = 0;

	for (struct ftrace_page *pg = ftrace_pages_start; pg; pg = pg->next) {
		if (rec >= pg->records && rec < pg->records + pg->index)
			return base + (rec - pg->records);
		base += pg->index;
	}
	return -1;
}

static void print_ip_ins(const char *label, const u8 *p)
{
	printk(KERN_CONT "%s", label);
	for (int i = 0; i < MCOUNT_INSN_SIZE; i++)
		printk(KERN_CONT "%s%02x", i ? ":" : "", p[i]);
	printk(KERN_CONT "\n");
}

/*
 * A site did not hold the bytes we expected: report it (Linux's layout), leave the site alone for
 * good, and stop all further code changes. The kernel goes on running.
 */
void ftrace_bug(int failed, struct dyn_ftrace *rec)
{
	unsigned long ip = rec->ip;

	pr_info("------------[ ftrace bug ]------------\n");
	if (failed == -EINVAL) {
		pr_info("ftrace failed to modify \n");
		pr_info("[<%016lx>] %pS\n", ip, (void *)ip);
		print_ip_ins(" actual:   ", (const u8 *)ip);
		if (ftrace_expected)
			print_ip_ins(" expected: ", ftrace_expected);
	} else {
		pr_info("ftrace faulted on modifying \n");
		pr_info("[<%016lx>] %pS\n", ip, (void *)ip);
	}
	pr_info("%s\n", ftrace_bug_action);
	pr_info("ftrace record flags: %lx\n", rec->flags);
	pr_cont(" (%lu)%s\n", ftrace_rec_count(rec), rec->flags & FTRACE_FL_REGS ? " R" : "  ");
	pr_info(" expected tramp: %lx\n", rec->target ? rec->target : (unsigned long)ftrace_caller);
	pr_info("ftrace: code changes disabled until reboot\n");
	rec->flags |= FTRACE_FL_DISABLED;
	ftrace_disabled = 1;
	ftrace_bug_count++;
}

#ifdef CONFIG_SELFTEST
/* Test-only: after a self-test provoked ftrace_bug() and put the site right, let ftrace work again. */
void ftrace_selftest_revive(struct dyn_ftrace *rec)
{
	rec->flags &= ~(FTRACE_FL_DISABLED | FTRACE_FL_ENABLED | FTRACE_FL_REGS_EN |
			FTRACE_FL_TRAMP_EN | FTRACE_FL_DIRECT_EN);
	rec->target = 0;
	ftrace_disabled = 0;
}
#endif
