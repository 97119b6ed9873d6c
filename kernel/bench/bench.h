/* `bench`: guest instructions (TSC ticks under -icount) per event, printed as Markdown table rows. */
#ifndef KERNEL_BENCH_H
#define KERNEL_BENCH_H

#include "lib/types.h"
#include "arch/x86/text_patch.h"

#define BENCH_LOOPS 1000
#define BENCH_RUNS 7

/*
 * gcc gives a leaf function no frame, but a traced function is never a leaf (it calls __fentry__).
 * Taking the frame address forces the same push/mov/pop into both, so they differ by the site only.
 */
#define SAME_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)) : "memory")

/* A traced function and its notrace twin: the same body, one with a call site. */
int bench_target(int x);
int bench_target_notrace(int x);

/* Median, over BENCH_RUNS runs, of the TSC ticks one call of fn costs (loop included). */
u64 bench_per_call(int (*fn)(int));

/* Prints one table row: name, ticks per call, ticks above the baseline, and ns. */
void bench_row(const char *what, u64 ticks, u64 baseline);

/* A table of code changes (patching, key flips): its header, and one row per measurement:
 * ticks in all, per site, and microseconds, with the CPUs online. */
void bench_sites_header(const char *title);
void bench_sites_row(const char *what, u64 ticks, unsigned long sites);
/* A switch timed on at t[0] -> t[1] and off again -> t[2] under method m: its two rows,
 * "<on>, <method>" and "<off>, <method>". */
void bench_flip_rows(const char *on, const char *off, enum patch_method m, const u64 t[3],
		     unsigned long sites);

/* Benchmark groups, each printing its own rows (one per subsystem). */
void bench_ftrace_core(u64 baseline);
/* The static build's rows: no patching to time, only what every call pays. */
void bench_ftrace_static(u64 baseline);
void bench_patching(u64 baseline);
void bench_tracers(u64 baseline);
void bench_events(u64 baseline);
void bench_jump_label(u64 baseline);
void bench_kprobes(u64 baseline);
void bench_probes(u64 baseline); /* fprobes and probe events (bench_probes.c) */
void bench_scale(void);		 /* `bench sites` */
void bench_bpf(void);		 /* `bench bpf`, and the end of `bench` (bench_bpf.c) */

#endif
