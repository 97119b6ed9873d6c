/* The stack tracer: at every traced call, how deep is the stack? Keep the deepest one seen.
 *
 *   echo 1 > /proc/sys/kernel/stack_tracer_enabled
 *   cat stack_max_size        the most bytes of stack ever in use at a traced call
 *   cat stack_trace           that stack, frame by frame: depth from the top, size, function
 *   echo 0 > stack_max_size   start over
 *   echo 'vfs_*' > stack_trace_filter   measure at these functions only (Linux's file: the
 *                             stack tracer's own ops filter, globs as set_ftrace_filter's)
 *
 * Depth is measured from the top of the stack the task runs on (its own, or its CPU's boot
 * stack for the idle tasks) to each frame, found by following the frame pointers.
 */
#include "kernel/trace/trace.h"
#include "kernel/trace/ftrace.h"
#include "kernel/fs/tracefs.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/spinlock.h"
#include "lib/errno.h"
#include "lib/string.h"

#define STACK_TRACE_ENTRIES 32

extern char boot_stack_top_hi[];

static unsigned long stack_trace_max_size; /* what the file shows: the traced function's depth */
static unsigned long max_raw;		   /* the same, measured at our callback: the fast test */
static unsigned long stack_dump_trace[STACK_TRACE_ENTRIES];
static unsigned long stack_trace_index[STACK_TRACE_ENTRIES]; /* depth of each frame */
static int stack_trace_nr_entries;
static unsigned long stack_tracer_enabled; /* 0 or 1 */
static volatile int stack_tracer_reading;  /* reading the files must not make a new maximum */
static DEFINE_SPINLOCK(stack_lock);

/* The top (highest address) of the stack the current code runs on. */
static unsigned long stack_top(void)
{
	struct percpu *c = this_cpu();
	struct task *t = c->curr;

	if (t && t->stack)
		return (unsigned long)t->stack + TASK_STACK_PAGES * PAGE_SIZE;
	return c->kernel_stack ? c->kernel_stack : (unsigned long)boot_stack_top_hi;
}

/* A new deepest stack: record its frames from the traced function outwards. */
static void check_stack(unsigned long ip, unsigned long top, unsigned long sp)
{
	unsigned long fp = (unsigned long)__builtin_frame_address(0), prev = sp - 8;
	unsigned long flags = spin_lock_irqsave(&stack_lock);
	bool found = false;
	int n = 0;

	if (top - sp <= max_raw)
		goto out;
	max_raw = top - sp;
	for (int depth = 0; depth < 64 && n < STACK_TRACE_ENTRIES; depth++) {
		if (fp <= prev || fp >= top || (fp & 7))
			break;
		unsigned long ret = ((unsigned long *)fp)[1];
		found |= ret == ip + MCOUNT_INSN_SIZE;
		if (found) {
			stack_dump_trace[n] = ret;
			stack_trace_index[n] = top - fp;
			n++;
		}
		prev = fp;
		fp = ((unsigned long *)fp)[0];
	}
	stack_trace_nr_entries = n;
	stack_trace_max_size = n ? stack_trace_index[0] : max_raw;
out:
	spin_unlock_irqrestore(&stack_lock, flags);
}

static void stack_trace_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			     struct pt_regs *regs)
{
	unsigned long sp = (unsigned long)__builtin_frame_address(0);
	unsigned long top = stack_top();
	int bit;

	/* Linux's interrupts run on their own stacks, which its check_stack() leaves out; ours run on
	 * the interrupted task's, so the same rule is a test of the context: a timer tick landing at a
	 * deep point must not become the task's deepest stack. */
	if (this_cpu()->irq_depth)
		return;
	if (sp >= top || top - sp <= READ_ONCE(max_raw) || stack_tracer_reading)
		return;
	bit = ftrace_test_recursion_trylock();
	if (bit < 0)
		return;
	check_stack(ip, top, sp);
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops trace_stack_ops = { .func = stack_trace_call,
					     .name = "stack_tracer",
					     .flags = FTRACE_OPS_FL_RECURSION };

static int max_size_show(struct seq_file *m, struct fnode *f)
{
	stack_tracer_reading++;
	seq_printf(m, "%lu\n", stack_trace_max_size);
	seq_flush(m);
	stack_tracer_reading--;
	return 0;
}

static int max_size_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	unsigned long v, irq;

	if (fs_write_ulong(buf, len, 0, ~0UL, &v))
		return -EINVAL;
	irq = spin_lock_irqsave(&stack_lock);
	stack_trace_max_size = max_raw = v;
	if (!v)
		stack_trace_nr_entries = 0;
	spin_unlock_irqrestore(&stack_lock, irq);
	return 0;
}

static int stack_trace_show(struct seq_file *m, struct fnode *f)
{
	unsigned long irq = spin_lock_irqsave(&stack_lock);
	int n = stack_trace_nr_entries;
	unsigned long addr[STACK_TRACE_ENTRIES], depth[STACK_TRACE_ENTRIES];

	memcpy(addr, stack_dump_trace, sizeof(addr));
	memcpy(depth, stack_trace_index, sizeof(depth));
	spin_unlock_irqrestore(&stack_lock, irq);
	stack_tracer_reading++;
	seq_printf(m,
		   "        Depth    Size   Location    (%d entries)\n"
		   "        -----    ----   --------\n",
		   n);
	for (int i = 0; i < n; i++) {
		unsigned long size = i + 1 < n ? depth[i] - depth[i + 1] : depth[i];
		char sym[KSYM_BUF];
		sprint_backtrace(sym, sizeof(sym), addr[i]); /* return addresses: name the caller */
		seq_printf(m, "%3d) %8lu   %5lu   %s\n", i, depth[i], size, sym);
	}
	seq_flush(m);
	stack_tracer_reading--;
	return 0;
}

static int stack_filter_show(struct seq_file *m, struct fnode *f)
{
	ftrace_hash_show(m, trace_stack_ops.local_hash.filter_hash,
			 "#### all functions enabled ####\n");
	return 0;
}

/* The ops' filter, changed live if the tracer is on; a glob matching nothing is refused. */
static int stack_filter_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[1024];

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	if (ftrace_disabled)
		return -ENODEV;
	if (!text[0] && (flags & FS_TRUNC) &&
	    ftrace_hash_empty(trace_stack_ops.local_hash.filter_hash))
		return 0;
	return ftrace_set_filter(&trace_stack_ops, text, flags & FS_TRUNC);
}

static int stack_enabled_set(void *data, unsigned long v)
{
	int err = 0;

	if (v && !stack_tracer_enabled)
		err = register_ftrace_function(&trace_stack_ops);
	else if (!v && stack_tracer_enabled)
		err = unregister_ftrace_function(&trace_stack_ops);
	if (!err)
		stack_tracer_enabled = v;
	return err;
}

static const struct tracefs_ulong stack_enabled = { .value = &stack_tracer_enabled,
						    .max = 1,
						    .set = stack_enabled_set };
static const struct tracefs_file stack_files[] = {
	TRACEFS_FILE("/sys/kernel/tracing/stack_max_size", max_size_show, max_size_write),
	TRACEFS_FILE("/sys/kernel/tracing/stack_trace", stack_trace_show, NULL),
	TRACEFS_FILE("/sys/kernel/tracing/stack_trace_filter", stack_filter_show,
		     stack_filter_write),
	TRACEFS_ULONG("/proc/sys/kernel/stack_tracer_enabled", &stack_enabled),
};

void stack_trace_init(void)
{
	tracefs_create_files(NULL, stack_files, ARRAY_SIZE(stack_files));
}
