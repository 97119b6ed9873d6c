/* hwlat, osnoise and timerlat: what their files share (Linux's trace_hwlat.c, trace_osnoise.c). */
#ifndef KERNEL_TRACE_TRACE_OSNOISE_H
#define KERNEL_TRACE_TRACE_OSNOISE_H

#include "kernel/trace/trace.h"

/* Register the tracers and make their directories, hwlat_detector/ and osnoise/ (trace.c). */
void trace_hwlat_init(void);
void trace_osnoise_init(void);
/* tracing_cpumask (trace_cpumask.c): whether cpu's events are kept, and the file. */
bool trace_cpu_traced(int cpu);
/* The same in tr's tracing_cpumask (hwlat samples the CPUs of the array it runs on). */
bool trace_array_cpu_traced(struct trace_array *tr, int cpu);

/* osnoise/'s values (trace_osnoise_files.c), in microseconds as the files show them. */
struct osnoise_data {
	unsigned long sample_period;	  /* period_us */
	unsigned long sample_runtime;	  /* runtime_us */
	unsigned long stop_tracing;	  /* stop_tracing_us: 0 off */
	unsigned long stop_tracing_total; /* stop_tracing_total_us: 0 off */
	unsigned long timerlat_period;	  /* timerlat_period_us */
	unsigned long print_stack;	  /* print_stack: 0 off */
	unsigned long options;		  /* a bit per OSN_* */
	bool cpus[NR_CPUS];		  /* cpus */
};
enum {
	OSN_DEFAULTS,
	OSN_WORKLOAD,
	OSN_PANIC_ON_STOP,
	OSN_PREEMPT_DISABLE,
	OSN_IRQ_DISABLE,
	OSN_MAX
};
#define OSN_DEFAULT_OPTIONS (1UL << OSN_WORKLOAD)
extern struct osnoise_data osnoise_data;
static inline bool osnoise_option(int o)
{
	return READ_ONCE(osnoise_data.options) & (1UL << o);
}
int trace_osnoise_files_init(void);

/* Both tracers' per-CPU threads (trace_osnoise.c): fn on every CPU of osnoise/cpus, named
 * "<name>/<cpu>"; stopped and waited for. A write to an osnoise/ file that changes what they do
 * restarts them, as Linux's does. */
int osnoise_start_threads(void (*fn)(void *), const char *name);
void osnoise_stop_threads(void);
void osnoise_restart_threads(void);
/* tracing_on off and a line in the buffer saying where (ip), as Linux's osnoise_stop_tracing();
 * with PANIC_ON_STOP, a panic instead. In every array the tracer runs on. */
void osnoise_stop_tracing(unsigned long ip);
/* A new worst (ns) for tracing_max_latency, in every array the tracer runs on. */
void osnoise_notify_max(u64 ns);

/* The arrays osnoise or timerlat runs on, sharing one workload (trace_osnoise_instances.c). */
bool osnoise_has_arrays(void);
/* fn(tr, arg) for each, from a sampling thread or an interrupt; an array taken out is never
 * written after osnoise_array_del() returns. */
void osnoise_for_each_array(void (*fn)(struct trace_array *tr, void *arg), void *arg);
/* Joins tr (start() for the first array); EBUSY while the other tracer runs anywhere. */
int osnoise_array_add(struct trace_array *tr, bool timerlat, int (*start)(void));
/* Takes tr out (stop() after the last array). */
void osnoise_array_del(struct trace_array *tr, void (*stop)(void));

/* The interference counters of a CPU (trace_osnoise_hooks.c): what took it from its thread. */
struct osnoise_var {
	struct task *owner; /* this CPU's osnoise or timerlat thread */
	bool sampling;	    /* interference is counted and traced now */
	u64 int_counter;    /* interferences begun: interrupts, NMIs, other threads */
	u64 irq_count, nmi_count, thread_count;
	u64 irq_start, nmi_start, thread_start; /* TSC at the start of the one running, 0: none */
	u64 irq_ns, nmi_ns;			/* their time so far, which outer noise subtracts */
	u64 irq_nmi_ns, thread_nested_ns;	/* the same at an irq's, a thread's start */
};
extern struct osnoise_var osnoise_vars[NR_CPUS];
/* Attaches the counters to the interrupt, scheduler and NMI hooks: 0 or -errno, all or none. */
int osnoise_hooks_get(void);
void osnoise_hooks_put(void);
/* The interference counter now, and the TSC, read so that no interference falls between (Linux's
 * set_int_safe_time()). */
u64 osnoise_int_safe_time(struct osnoise_var *v, u64 *tsc);

/* timerlat (trace_timerlat.c): registered by trace_osnoise_init(). */
void trace_timerlat_init(void);

#endif
