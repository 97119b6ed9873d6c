/* The trace clocks (Linux's trace_clock file and its table in kernel/trace/trace.c), and timestamp_mode.
 *
 *   local     the TSC as ns since boot, per CPU (Linux: sched_clock); default; fast paths read it
 *   global    ns since boot, one clock for every CPU (Linux: a lock keeps it monotonic)
 *   counter   an atomic count: orders events across CPUs, says nothing of time
 *   uptime    jiffies (USER_HZ, 100 a second here as in Linux)
 *   perf      what perf events stamp with (Linux's local_clock(): ns since boot)
 *   mono mono_raw boot    Linux's fast ktime readers: ns since boot (no NTP, no suspend here)
 *   tai       Linux's TAI (wall time plus the leap seconds NTP set): our wall time is the time
 *             since boot (no RTC is read, docs/17) and no NTP sets an offset
 *   x86-tsc   the raw TSC; fast paths read it
 *
 * Our CPUs share one constant TSC (QEMU's), so every ns clock reads the same time since boot; what
 * differs is where the stamp is taken (a fast path or the slow path) and how it prints.
 */
#include "kernel/trace/trace.h"
#include "kernel/trace/trace_snapshot.h"
#include "kernel/fs/tracefs.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

static notrace u64 trace_clock_global(void)
{
	return ktime_get_ns();
}

static u64 trace_counter;

static notrace u64 trace_clock_counter(void)
{
	return __atomic_add_fetch(&trace_counter, 1, __ATOMIC_RELAXED);
}

/* Linux's trace_clock_jiffies(): jiffies in USER_HZ ticks since boot; our HZ is USER_HZ. */
static notrace u64 trace_clock_jiffies(void)
{
	return READ_ONCE(jiffies);
}

/* Linux's order, x86-tsc (its ARCH_TRACE_CLOCKS) last. */
const struct trace_clock trace_clocks[TRACE_CLOCK_NR] = {
	[TRACE_CLOCK_LOCAL] = { "local", NULL, true, true },
	{ "global", trace_clock_global, true, false },
	{ "counter", trace_clock_counter, false, false },
	{ "uptime", trace_clock_jiffies, false, false },
	{ "perf", trace_clock_global, true, false },
	{ "mono", trace_clock_global, true, false },
	{ "mono_raw", trace_clock_global, true, false },
	{ "boot", trace_clock_global, true, false },
	{ "tai", trace_clock_global, true, false },
	[TRACE_CLOCK_X86_TSC] = { "x86-tsc", NULL, false, false },
};

u64 trace_clock_display(const struct trace_clock *c, u64 ts)
{
	return c->tsc_ns ? tsc_to_ktime(ts) : ts;
}

const struct trace_clock *trace_clock_find(const char *name)
{
	for (int i = 0; i < TRACE_CLOCK_NR; i++)
		if (!strcmp(trace_clocks[i].name, name))
			return &trace_clocks[i];
	return NULL;
}

/* Linux's list: every clock, the one in force in brackets. */
static int trace_clock_show(struct seq_file *m, struct fnode *f)
{
	const struct trace_clock *cur = trace_array_of(f)->buffer.clock;

	for (int i = 0; i < TRACE_CLOCK_NR; i++)
		seq_printf(m, cur == &trace_clocks[i] ? "%s[%s]" : "%s%s", i ? " " : "",
			   trace_clocks[i].name);
	seq_putc(m, '\n');
	return 0;
}

/* Linux's tracing_set_clock(): the live buffer and the max buffer change together, and both
 * start empty (two clocks' stamps cannot be ordered). */
int tracing_set_clock(struct trace_array *tr, const char *name)
{
	const struct trace_clock *c = trace_clock_find(name);

	if (!c)
		return -EINVAL;
	ring_buffer_set_clock(&tr->buffer, c);
	trace_snapshot_set_clock(tr, c);
	return 0;
}

static int trace_clock_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char name[32];

	if (fs_write_text(name, sizeof(name), buf, len))
		return -EINVAL;
	return tracing_set_clock(trace_array_of(f), name);
}

/* Our buffers write deltas only (an event's time is the page's stamp plus the deltas before
 * it), never Linux's absolute stamps, so the mode in force is always delta. */
static int timestamp_mode_show(struct seq_file *m, struct fnode *f)
{
	seq_puts(m, "[delta] absolute\n");
	return 0;
}

static const struct tracefs_file clock_files[] = {
	TRACEFS_FILE("trace_clock", trace_clock_show, trace_clock_write),
	TRACEFS_FILE("timestamp_mode", timestamp_mode_show, NULL),
};

int trace_clock_create_files(struct fnode *dir)
{
	return tracefs_create_files(dir, clock_files, ARRAY_SIZE(clock_files));
}
