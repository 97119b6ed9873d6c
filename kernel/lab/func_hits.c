/* func_hits: the smallest useful ftrace_ops, a counter per function, to watch patching work.
 *
 *   echo 'kmalloc kfree' > set_ftrace_filter    choose functions (shared with the function tracer)
 *   echo 1 > func_hits                          register the ops: those sites become calls
 *   cat func_hits                               calls counted per function
 *   echo 0 > func_hits                          unregister: the sites are NOPs again
 */
#include "kernel/trace/ftrace.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/string.h"

/*
 * One counter per CPU per record (indexed like available_filter_functions): no CPU waits on
 * another's cache line, and the stress workload can check its own CPU's count exactly. Counters
 * only ever grow (a reader comparing two readings must never see one go back); what the file
 * shows is the growth since func_hits was last switched on, against the totals saved in base.
 */
static u64 *hits, *base;
static struct ftrace_ops func_hits_ops;

static u64 *slot(int cpu, long index)
{
	return &hits[(unsigned long)cpu * ftrace_nr_records() + index];
}

static void func_hits_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			   struct pt_regs *regs)
{
	struct dyn_ftrace *rec = ftrace_lookup_ip(ip);

	if (rec)
		__atomic_fetch_add(slot(smp_processor_id(), ftrace_rec_index(rec)), 1,
				   __ATOMIC_RELAXED);
}

bool func_hits_on(void)
{
	return __atomic_load_n(&hits, __ATOMIC_ACQUIRE) &&
	       (func_hits_ops.flags & FTRACE_OPS_FL_ENABLED);
}

/* func_hits is on and its sets (set_ftrace_filter, set_ftrace_notrace) take ip: when the site at ip
 * is live, func_hits is one of what it calls. Another ops (a direct call, a live patch, the stack
 * tracer, sitecycle) can make the site live for a function func_hits does not count. */
bool func_hits_wants(unsigned long ip)
{
	return func_hits_on() && ftrace_ops_test(&func_hits_ops, ip);
}

u64 func_hits_cpu(int cpu, unsigned long ip)
{
	struct dyn_ftrace *rec = ftrace_lookup_ip(ip);

	if (!rec || !__atomic_load_n(&hits, __ATOMIC_ACQUIRE))
		return 0;
	return __atomic_load_n(slot(cpu, ftrace_rec_index(rec)), __ATOMIC_RELAXED);
}

static u64 total_hits(long index)
{
	u64 n = 0;

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		n += __atomic_load_n(slot(cpu, index), __ATOMIC_RELAXED);
	return n;
}

/* It calls nothing traceable, so it cannot recurse: ftrace may call it directly. */
static struct ftrace_ops func_hits_ops = {
	.func = func_hits_call,
	.name = "func_hits",
	.flags = FTRACE_OPS_FL_RECURSION,
	.func_hash = &global_ops.local_hash,
};

static int func_hits_show(struct seq_file *m, struct fnode *f)
{
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;
	long i = 0;

	seq_printf(m, "# func_hits: %s\n",
		   func_hits_ops.flags & FTRACE_OPS_FL_ENABLED ? "on" : "off");
	seq_printf(m, "# %-38s %12s\n", "FUNCTION", "HITS");
	for_each_ftrace_rec(pg, rec) {
		u64 n = hits ? total_hits(i) - base[i] : 0;
		if (n)
			seq_printf(m, "  %-38ps %12llu\n", (void *)rec->ip, n);
		i++;
	}
	return 0;
}

static int func_hits_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	bool on = func_hits_ops.flags & FTRACE_OPS_FL_ENABLED;
	unsigned long v;

	if (fs_write_ulong(buf, len, 0, 1, &v))
		return -EINVAL;
	if (v && !on) {
		/* Only here: a write that changes nothing allocates nothing, so cannot fail for memory. */
		if (!hits) {
			u64 *h = kzalloc(NR_CPUS * ftrace_nr_records() * sizeof(*hits) + 1);
			base = kzalloc(ftrace_nr_records() * sizeof(*base) + 1);
			if (!h || !base) {
				kfree(h);
				kfree(base);
				base = NULL;
				return -ENOMEM;
			}
			__atomic_store_n(&hits, h, __ATOMIC_RELEASE);
		}
		for (unsigned long i = 0; i < ftrace_nr_records(); i++)
			base[i] = total_hits(i);
		return register_ftrace_function(&func_hits_ops);
	}
	if (!v && on)
		return unregister_ftrace_function(&func_hits_ops);
	return 0;
}

static const struct tracefs_file func_hits_file =
	TRACEFS_FILE("/sys/kernel/tracing/func_hits", func_hits_show, func_hits_write);

void func_hits_init(void)
{
	tracefs_create_files(NULL, &func_hits_file, 1);
}
