/* hwlat: Linux's hardware-latency detector. A kernel thread spins with interrupts off for
 * `width` of every `window` microseconds, reading the clock twice a loop:
 *
 *     t1 = now; t2 = now;      inner gap t2 - t1, outer gap t1 - the last loop's t2
 *
 * With interrupts off nothing the kernel does can come between two readings, so a gap above
 * tracing_thresh is time taken from the CPU below the kernel: an SMI, firmware, a hypervisor.
 * Under QEMU's TCG it is the host taking the emulator's thread away (docs/21, section 9).
 */
#include "kernel/trace/trace_osnoise.h"
#include "kernel/fs/tracefs.h"
#include "kernel/irqflags.h"
#include "kernel/locking/mutex.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define DEFAULT_SAMPLE_WINDOW 1000000 /* us: 1 s */
#define DEFAULT_SAMPLE_WIDTH 500000   /* us: 0.5 s */
#define DEFAULT_LAT_THRESHOLD 10      /* us, when tracing_thresh is 0 */

enum { MODE_NONE, MODE_ROUND_ROBIN, MODE_PER_CPU, MODE_MAX };
static const char *const thread_mode_str[MODE_MAX] = { "none", "round-robin", "per-cpu" };

/* Linux's struct hwlat_entry, field for field. */
struct hwlat_entry {
	struct trace_entry ent;
	u64 duration;	    /* the worst inner gap, us */
	u64 outer_duration; /* the worst outer gap, us */
	u64 nmi_total_ts;
	s64 tv_sec; /* when the first gap above the threshold was seen */
	long tv_nsec;
	unsigned int nmi_count;
	unsigned int seqnum;
	unsigned int count; /* gaps above the threshold in this sample */
};

static struct {
	unsigned long window, width; /* us */
	int mode;
	unsigned int count; /* samples recorded since the tracer started */
} hwlat_data = { DEFAULT_SAMPLE_WINDOW, DEFAULT_SAMPLE_WIDTH, MODE_ROUND_ROBIN, 0 };

static DEFINE_MUTEX(hwlat_lock); /* the threads' starts and stops */
static struct task *hwlat_threads[NR_CPUS];
static volatile bool hwlat_alive[NR_CPUS];
/* Round-robin: our tasks never change CPU, so each CPU has a thread and they take turns, one
 * window each, where Linux moves its one thread to the next CPU. The CPU whose turn it is: */
static volatile int rr_turn;
static bool hwlat_busy;
/* The trace array it runs on (Linux's hwlat_trace), the top level's or an instance's; one hwlat in
 * all arrays (hwlat_busy): one set of threads. */
static struct trace_array *hwlat_trace = &global_trace;
extern unsigned long tracing_thresh; /* ns (trace_functions_graph.c) */
static unsigned long save_tracing_thresh;
static unsigned long last_tracing_thresh = DEFAULT_LAT_THRESHOLD * 1000;

/* The NMIs of this CPU's sample (Linux's hwlat_kthread_data): no interrupt can come in, but an
 * NMI can, and its time is shown apart. */
struct hwlat_nmi {
	bool sampling;
	u64 nmi_ts_start, nmi_total_ts; /* TSC, then ns */
	unsigned int nmi_count;
};
static struct hwlat_nmi hwlat_nmi[NR_CPUS];
bool trace_hwlat_callback_enabled;

void trace_hwlat_callback(bool enter)
{
	struct hwlat_nmi *k = &hwlat_nmi[smp_processor_id()];

	if (!k->sampling)
		return;
	if (enter) {
		k->nmi_ts_start = rdtsc();
		k->nmi_count++;
	} else {
		k->nmi_total_ts += tsc_to_ns(rdtsc() - k->nmi_ts_start);
	}
}

static s64 tsc_us(u64 cycles)
{
	return tsc_to_ns(cycles) / 1000;
}

static void trace_hwlat_sample(struct hwlat_nmi *k, u64 inner, u64 outer, u64 ts,
			       unsigned int count)
{
	struct rb_reserve r;
	struct hwlat_entry *e = trace_array_reserve(READ_ONCE(hwlat_trace), &r, TRACE_HWLAT,
						    sizeof(*e), read_flags());

	if (!e)
		return;
	e->duration = inner;
	e->outer_duration = outer;
	e->nmi_total_ts = k->nmi_total_ts / 1000; /* us, as Linux */
	e->nmi_count = k->nmi_count;
	e->tv_sec = ts / NSEC_PER_SEC;
	e->tv_nsec = ts % NSEC_PER_SEC;
	e->seqnum = ++hwlat_data.count;
	e->count = count;
	ring_buffer_unlock_commit(&r);
}

/* One sample, interrupts off (Linux's get_sample()): 1 if a gap passed the threshold. */
static int get_sample(void)
{
	u64 thresh = READ_ONCE(tracing_thresh) / 1000, width = READ_ONCE(hwlat_data.width);
	u64 start, t1, t2, last_t2 = 0, first_ts = 0;
	s64 inner = 0, outer = 0, diff, outer_diff = 0, total;
	unsigned int count = 0;
	struct hwlat_nmi *k = &hwlat_nmi[smp_processor_id()];

	k->nmi_total_ts = 0;
	k->nmi_count = 0;
	WRITE_ONCE(k->sampling, true); /* NMIs count from here */
	start = rdtsc();
	do {
		t1 = rdtsc();
		t2 = rdtsc();
		if (last_t2) {
			outer_diff = tsc_us(t1 - last_t2);
			if (outer_diff > outer)
				outer = outer_diff;
		}
		last_t2 = t2;
		total = tsc_us(t2 - start);
		diff = tsc_us(t2 - t1);
		if ((u64)diff > thresh || (u64)outer_diff > thresh) {
			if (!count)
				first_ts = ktime_get_ns();
			count++;
		}
		if (diff > inner)
			inner = diff;
	} while ((u64)total <= width);
	WRITE_ONCE(k->sampling, false);

	if ((u64)inner <= thresh && (u64)outer <= thresh)
		return 0;
	trace_hwlat_sample(k, inner, outer, first_ts, count);
	/* Kept in ns like every latency tracer's here (the file shows us), in the array it runs on. */
	if ((u64)MAX(inner, outer) * 1000 > hwlat_trace->max_latency)
		hwlat_trace->max_latency = MAX(inner, outer) * 1000;
	return 1;
}

/* The next CPU after cpu that has a thread, in round-robin order. */
static int next_rr_cpu(int cpu)
{
	for (int i = 1; i <= NR_CPUS; i++)
		if (hwlat_threads[(cpu + i) % NR_CPUS])
			return (cpu + i) % NR_CPUS;
	return cpu;
}

/* Sleeps until it is this CPU's turn (round-robin) or the thread is told to stop. */
static void wait_turn(int cpu)
{
	while (READ_ONCE(rr_turn) != cpu && !kthread_should_stop()) {
		unsigned long flags = local_irq_save();
		current->state = TASK_SLEEPING;
		local_irq_restore(flags);
		if (READ_ONCE(rr_turn) == cpu || kthread_should_stop())
			current->state = TASK_RUNNING;
		else
			schedule();
	}
}

static void kthread_fn(void *arg)
{
	int cpu = (int)(long)arg;

	while (!kthread_should_stop()) {
		unsigned long interval, flags;

		if (hwlat_data.mode == MODE_ROUND_ROBIN) {
			wait_turn(cpu);
			if (kthread_should_stop())
				break;
		}
		flags = local_irq_save();
		get_sample();
		local_irq_restore(flags);
		interval = (READ_ONCE(hwlat_data.window) - READ_ONCE(hwlat_data.width)) / 1000;
		msleep(interval ? interval : 1); /* at least 1 ms, as Linux */
		if (hwlat_data.mode == MODE_ROUND_ROBIN) {
			int next = next_rr_cpu(cpu);
			WRITE_ONCE(rr_turn, next);
			if (next != cpu && hwlat_threads[next])
				wake_up_process(hwlat_threads[next]);
		}
	}
	hwlat_alive[cpu] = false;
}

static void hwlat_stop_threads(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		if (hwlat_threads[cpu])
			kthread_stop(hwlat_threads[cpu]->pid);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		while (READ_ONCE(hwlat_alive[cpu]))
			msleep(1);
		hwlat_threads[cpu] = NULL;
	}
}

static int hwlat_start_cpu(int cpu, const char *name)
{
	hwlat_alive[cpu] = true;
	hwlat_threads[cpu] = kthread_create(kthread_fn, (void *)(long)cpu, cpu, name);
	if (hwlat_threads[cpu])
		return 0;
	hwlat_alive[cpu] = false;
	pr_err("hwlat_detector: could not start sampling thread\n");
	return -ENOMEM;
}

/* One thread per CPU of the mask (per-cpu, round-robin) or on its first CPU (none). */
static int hwlat_start_threads(void)
{
	int cpu, first = -1, err = 0;
	char name[TASK_COMM_LEN];

	for_each_online_cpu(cpu) {
		if (!trace_array_cpu_traced(hwlat_trace, cpu))
			continue;
		if (first < 0)
			first = cpu;
		if (hwlat_data.mode == MODE_NONE)
			break;
		if (hwlat_data.mode == MODE_PER_CPU)
			snprintf(name, sizeof(name), "hwlatd/%d", cpu);
		else
			strcpy(name, "hwlatd");
		rr_turn = first;
		err = hwlat_start_cpu(cpu, name);
		if (err)
			goto fail;
	}
	if (hwlat_data.mode == MODE_NONE && first >= 0 && (err = hwlat_start_cpu(first, "hwlatd")))
		goto fail;
	return 0;
fail:
	hwlat_stop_threads();
	return err;
}

/* Linux's hwlat_tracer_init(): EBUSY while hwlat runs in any array. */
static int hwlat_instance_init(struct trace_array *tr)
{
	int err;

	if (READ_ONCE(hwlat_busy))
		return -EBUSY;
	hwlat_data.count = 0;
	tr->max_latency = 0;
	WRITE_ONCE(hwlat_trace, tr);
	save_tracing_thresh = tracing_thresh;
	if (!tracing_thresh)
		tracing_thresh = last_tracing_thresh;
	mutex_lock(&hwlat_lock);
	WRITE_ONCE(trace_hwlat_callback_enabled, true);
	err = hwlat_start_threads();
	hwlat_busy = !err;
	if (err)
		WRITE_ONCE(trace_hwlat_callback_enabled, false);
	mutex_unlock(&hwlat_lock);
	if (err)
		tracing_thresh = save_tracing_thresh;
	return err;
}

static void hwlat_instance_reset(struct trace_array *tr)
{
	mutex_lock(&hwlat_lock);
	hwlat_stop_threads();
	WRITE_ONCE(trace_hwlat_callback_enabled, false);
	WRITE_ONCE(hwlat_trace, &global_trace); /* an instance may be freed next (rmdir) */
	hwlat_busy = false;
	mutex_unlock(&hwlat_lock);
	last_tracing_thresh = tracing_thresh; /* kept between runs, as Linux */
	tracing_thresh = save_tracing_thresh;
}

/* Linux's trace_hwlat_print() and trace_hwlat_raw(). */
static bool hwlat_print_line(struct seq_file *m, struct trace_iterator *it)
{
	const struct hwlat_entry *e = (const void *)it->ent;

	if (it->ent->type != TRACE_HWLAT)
		return false;
	if (trace_array_option(it->tr ? it->tr : &global_trace, TRACE_OPT_RAW)) {
		seq_printf(m, "%d %d %llu ", it->ent->pid, it->cpu, it->ts);
		seq_printf(m, "%llu %lld %lld %09ld %u\n", e->duration, e->outer_duration,
			   e->tv_sec, e->tv_nsec, e->seqnum);
		return true;
	}
	trace_print_context(m, it);
	seq_printf(m, "#%-5u inner/outer(us): %4llu/%-5llu ts:%lld.%09ld count:%d", e->seqnum,
		   e->duration, e->outer_duration, e->tv_sec, e->tv_nsec, e->count);
	if (e->nmi_count)
		seq_printf(m, " nmi-total:%llu nmi-count:%u", e->nmi_total_ts, e->nmi_count);
	seq_putc(m, '\n');
	return true;
}

static int hwlat_tracer_init(void)
{
	return hwlat_instance_init(&global_trace);
}

static void hwlat_tracer_reset(void)
{
	hwlat_instance_reset(&global_trace);
}

/* allow_instances, as Linux 6.1's. */
static struct tracer hwlat_tracer = { .name = "hwlat",
				      .init = hwlat_tracer_init,
				      .reset = hwlat_tracer_reset,
				      .instance_init = hwlat_instance_init,
				      .instance_reset = hwlat_instance_reset,
				      .print_line = hwlat_print_line };

/* --- hwlat_detector/ ----------------------------------------------------------------------- */

/* Linux's trace_min_max_param: width may not pass window, nor window fall below width. */
static int width_set(void *data, unsigned long v)
{
	if (v > READ_ONCE(hwlat_data.window))
		return -EINVAL;
	WRITE_ONCE(hwlat_data.width, v);
	return 0;
}

static int window_set(void *data, unsigned long v)
{
	if (v < READ_ONCE(hwlat_data.width))
		return -EINVAL;
	WRITE_ONCE(hwlat_data.window, v);
	return 0;
}

static unsigned long width_get(void *data)
{
	return hwlat_data.width;
}

static unsigned long window_get(void *data)
{
	return hwlat_data.window;
}

static int mode_show(struct seq_file *m, struct fnode *f)
{
	for (int i = 0; i < MODE_MAX; i++)
		seq_printf(m, i == hwlat_data.mode ? "[%s]%s" : "%s%s", thread_mode_str[i],
			   i < MODE_MAX - 1 ? " " : "\n");
	return 0;
}

/* A running tracer's threads are stopped and started again in the new mode, as Linux's. */
static int mode_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[64];
	int mode, err = 0;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	for (mode = 0; mode < MODE_MAX && strcmp(text, thread_mode_str[mode]); mode++)
		;
	if (mode == MODE_MAX)
		return -EINVAL;
	mutex_lock(&hwlat_lock);
	if (hwlat_busy)
		hwlat_stop_threads();
	hwlat_data.mode = mode;
	if (hwlat_busy)
		err = hwlat_start_threads();
	mutex_unlock(&hwlat_lock);
	return err;
}

static const struct tracefs_ulong width_file = { .max = ~0UL, .get = width_get, .set = width_set };
static const struct tracefs_ulong window_file = { .max = ~0UL,
						  .get = window_get,
						  .set = window_set };

#define D "/sys/kernel/tracing/hwlat_detector/"
static const struct tracefs_file hwlat_files[] = {
	TRACEFS_ULONG(D "width", &width_file),
	TRACEFS_ULONG(D "window", &window_file),
	TRACEFS_FILE(D "mode", mode_show, mode_write),
};

void trace_hwlat_init(void)
{
	if (tracefs_create_files(NULL, hwlat_files, ARRAY_SIZE(hwlat_files)))
		return;
	register_tracer(&hwlat_tracer);
}
