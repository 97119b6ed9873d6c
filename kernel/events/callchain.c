/* PERF_SAMPLE_CALLCHAIN: the kernel's return addresses, then the user's, each after its marker.
 *
 *   nr, PERF_CONTEXT_KERNEL, ip, ret, ret, ..., PERF_CONTEXT_USER, ip, ret, ret, ...
 *
 * Both halves follow frame pointers (the kernel and our programs keep them; a program without
 * them shows its ip alone, as on Linux). A sample taken in an interrupt (cpu-clock) starts from
 * the interrupted registers; one taken on a tracepoint starts from the code that fired it, our
 * own frames (the perf and trace event functions in between) left out by name.
 * Linux: kernel/events/callchain.c (get_perf_callchain()), arch/x86/events/core.c
 * (perf_callchain_kernel(), perf_callchain_user()).
 */
#include "kernel/events/perf_event.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "lib/string.h"

/* A frame pointer we may follow: in the kernel half, aligned, going up the stack, not far. */
static bool kernel_frame_ok(unsigned long fp, unsigned long below)
{
	return fp >= PAGE_OFFSET && !(fp & 7) && fp > below && fp - below < 64 * 1024;
}

/* The frames of the tracing path itself: what fired the event is the first caller past them. */
static bool is_tracing_frame(unsigned long ret)
{
	unsigned long size, off;
	const char *name = kallsyms_lookup(ret, &size, &off);

	return name && (!strncmp(name, "perf_", 5) || !strncmp(name, "trace_event_", 12) ||
			!strncmp(name, "__traceiter_", 12) || !strncmp(name, "kprobe", 6) ||
			!strncmp(name, "trace_", 6) || !strncmp(name, "uprobe", 6));
}

static u32 callchain_kernel(u64 *ips, u32 max, const struct pt_regs *regs)
{
	unsigned long fp, prev;
	bool skipping = !regs;
	u32 n = 0;

	if (regs) {
		ips[n++] = regs->ip;
		fp = regs->bp;
		prev = regs->sp - 8;
	} else {
		fp = (unsigned long)__builtin_frame_address(0);
		prev = fp - 8;
	}
	for (int depth = 0; n < max && depth < PERF_MAX_STACK_DEPTH && kernel_frame_ok(fp, prev);
	     depth++) {
		unsigned long ret = ((unsigned long *)fp)[1];
		skipping = skipping && is_tracing_frame(ret);
		if (!skipping)
			ips[n++] = ret;
		prev = fp;
		fp = ((unsigned long *)fp)[0];
	}
	return n;
}

static u32 callchain_user(u64 *ips, u32 max, const struct pt_regs *regs)
{
	unsigned long fp, frame[2];
	u32 n = 0;

	ips[n++] = regs->ip;
	for (fp = regs->bp; n < max; fp = frame[0]) {
		if (fp & 7 || fp >= TASK_SIZE_MAX || fp < regs->sp ||
		    copy_from_user_nofault(frame, (const void *)fp, sizeof(frame)) || !frame[1])
			break;
		ips[n++] = frame[1];
		if (frame[0] <= fp)
			break;
	}
	return n;
}

u32 perf_callchain(u64 *ips, u32 max, const struct pt_regs *regs, bool kernel, bool user)
{
	struct task *t = current;
	u32 n = 0;

	if (max < 4)
		return 0;
	if (kernel && !(regs && user_mode(regs))) {
		ips[n++] = PERF_CONTEXT_KERNEL;
		n += callchain_kernel(ips + n, max / 2 - n, regs);
	}
	/* The user half: the interrupted user state, or what the task entered the kernel with. */
	if (user && t && t->mm) {
		const struct pt_regs *uregs = regs && user_mode(regs) ? regs : task_pt_regs(t);
		if (!t->stack) /* an idle or kernel task has no user frame to read */
			return n;
		ips[n++] = PERF_CONTEXT_USER;
		n += callchain_user(ips + n, max - n, uregs);
	}
	return n;
}
