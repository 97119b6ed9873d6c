/* hwlat, osnoise and timerlat: what their files share (Linux's trace_hwlat.c, trace_osnoise.c). */
#ifndef KERNEL_TRACE_TRACE_OSNOISE_H
#define KERNEL_TRACE_TRACE_OSNOISE_H

#include "kernel/trace/trace.h"

/* Register the tracers and make their directories, hwlat_detector/ and osnoise/ (trace.c). */
void trace_hwlat_init(void);
void trace_osnoise_init(void);
/* tracing_cpumask (trace_cpumask.c): whether cpu's events are kept, and the file. */
bool trace_cpu_traced(int cpu);
void trace_cpumask_init(void);

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
int trace_osnoise_files_init(void);

/* The tracer running the osnoise threads (osnoise or timerlat), NULL if none: a write to an
 * osnoise/ file that changes what the threads do restarts them (Linux's does the same). */
void osnoise_restart_threads(void);

/* Both tracers' per-CPU threads (trace_osnoise.c): started on every CPU of osnoise/cpus, stopped
 * and waited for. */
int osnoise_start_threads(void (*fn)(void *), const char *name);
void osnoise_stop_threads(void);
/* The interference counters (trace_osnoise_hooks.c): per CPU, what interrupted the thread. */
struct osnoise_var {
	u64 irq_count, thread_count;
	u64 irq_ns;	    /* time spent in interrupt handlers, for thread noise minus irqs */
	u64 irq_start;	    /* TSC at the handler's entry (0: not in one) */
	u64 thread_start;   /* TSC when another task took this CPU from ours (0: ours runs) */
	u64 thread_irq_ns;  /* irq_ns then */
	struct task *owner; /* the osnoise or timerlat thread of this CPU */
	bool sampling;
};
extern struct osnoise_var osnoise_vars[NR_CPUS];
int osnoise_hooks_get(void);
void osnoise_hooks_put(void);
/* tracing_on off and a line saying why, as Linux's osnoise_stop_tracing(). */
void osnoise_stop_tracing(void);
/* A new worst latency (ns) for tracing_max_latency. */
void osnoise_notify_max(u64 ns);
/* The tick's timer, from its hardware expiry to now, in ns (trace_timerlat.c). */
void timerlat_tick(int vector);

#endif
