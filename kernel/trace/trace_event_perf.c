/* A trace event's perf side: perf_event_open(PERF_TYPE_TRACEPOINT, config = the event's id).
 *
 *   trace_sched_switch(...)
 *     -> trace_event_raw_event_sched_switch()    the one probe every consumer shares
 *          trace_event_buffer_reserve()          the record is built in the scratch area
 *          trace_event_keep_record()
 *            -> the ftrace ring buffer           if events/.../enable is 1 (and filter, pids)
 *            -> perf_trace_buf_submit()          every perf event of the call: its own filter,
 *                                                 a count, a sample with the record as RAW
 *            -> the triggers
 *
 * An event enabled in both writes to both; one opened by perf alone is attached the same way
 * (EVENT_FL_PERF keeps the probe on) and its `enable` file still reads 0. kprobe, uprobe and
 * syscall events are trace events with ids too, so they come through the same door.
 * Linux: kernel/trace/trace_event_perf.c (perf_trace_init(), perf_trace_event_register()),
 * include/trace/perf.h (the perf_trace_<call> probe), kernel/events/core.c (perf_tp_event(),
 * perf_trace_buf_submit()); Linux gives perf its own probe per event, we share the ftrace one.
 */
#include "kernel/events/perf_event.h"
#include "kernel/mm/mm.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_kprobe.h"
#include "kernel/cred.h"
#include "kernel/kallsyms.h"
#include "kernel/percpu.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define PERF_PROBE_CONFIG_IS_RETPROBE 1	    /* format/retprobe of both PMUs: "config:0" */
#define PERF_UPROBE_REF_CTR_OFFSET_SHIFT 32 /* the uprobe PMU's format/ref_ctr_offset */
#define PERF_PATH_MAX 4096		    /* Linux's PATH_MAX, for uprobe_path */

/*
 * The kprobe and uprobe PMUs (Linux's perf_kprobe_init(), perf_uprobe_init()): a probe event of
 * perf's own, made from the attr: the symbol's name (or kprobe_addr) and probe_offset, or the
 * file's path and the offset in it; bit 0 of config asks for the return, and for a uprobe the
 * upper 32 bits of config are a USDT semaphore's file offset (Linux's perf_uprobe_event_init();
 * the kprobe PMU ignores them, as Linux's does).
 */
static int perf_probe_init(struct perf_event *e, struct trace_event_call **callp)
{
	bool kprobe = e->attr.type == PERF_TYPE_KPROBE;
	bool ret = e->attr.config & PERF_PROBE_CONFIG_IS_RETPROBE;
	long max = kprobe ? KSYM_NAME_LEN : PERF_PATH_MAX, n;
	char *name = NULL;
	int err;

	if (!capable_root())
		return -EACCES; /* Linux's perfmon_capable() check of both PMUs */
	if (e->attr.kprobe_func) {
		name = kmalloc(max);
		if (!name)
			return -ENOMEM;
		n = strncpy_from_user(name, (const char __user *)e->attr.kprobe_func, max);
		err = n < 0 ? -EFAULT : n == max ? -E2BIG : 0;
		if (err || !name[0]) {
			kfree(name);
			name = NULL;
			if (err)
				return err;
		}
	}
	if (kprobe)
		err = !name && !e->attr.kprobe_addr
			      ? -EINVAL
			      : create_local_trace_kprobe(name, e->attr.kprobe_addr,
							  e->attr.probe_offset, ret, callp);
	else
		err = !name ? -EINVAL
			    : create_local_trace_uprobe(name, e->attr.probe_offset,
							e->attr.config >>
								PERF_UPROBE_REF_CTR_OFFSET_SHIFT,
							ret, callp);
	kfree(name);
	return err;
}

static void perf_probe_destroy(struct perf_event *e, struct trace_event_call *call)
{
	if (e->attr.type == PERF_TYPE_KPROBE)
		destroy_local_trace_kprobe(call);
	else if (e->attr.type == PERF_TYPE_UPROBE)
		destroy_local_trace_uprobe(call);
}

/* Under perf_mutex (core.c); event_mutex for the call's state. */
int perf_trace_init(struct perf_event *e)
{
	struct trace_event_call *call = NULL;
	int err = 0;

	if (e->attr.type != PERF_TYPE_TRACEPOINT) {
		err = perf_probe_init(e, &call);
		if (err)
			return err;
	}
	event_mutex_lock();
	if (!call && e->attr.config <= TRACE_EVENT_LAST_ID)
		call = trace_event_by_id(e->attr.config);
	if (!call || !call->fields) { /* an id of ftrace's fixed types has nothing to attach */
		err = -EINVAL;	      /* Linux's perf_trace_init(): no event has the id */
		goto out;
	}
	e->tp_call = call;
	e->hook_next = call->perf_events;
	WRITE_ONCE(call->perf_events, e);
	if (!(call->flags & EVENT_FL_PERF)) {
		call->flags |= EVENT_FL_PERF;
		err = trace_event_update_probe(call);
		if (err) {
			call->flags &= ~EVENT_FL_PERF;
			call->perf_events = e->hook_next;
			e->tp_call = NULL;
		}
	}
out:
	event_mutex_unlock();
	if (err && call)
		perf_probe_destroy(e, call);
	return err;
}

/* Off the call's list; the last one detaches the probe unless ftrace still wants it. The caller
 * waits for the CPUs (tracepoint_synchronize_unregister) before e goes. */
void perf_trace_destroy(struct perf_event *e)
{
	struct trace_event_call *call = e->tp_call;
	struct perf_event **pp;

	if (!call)
		return;
	event_mutex_lock();
	for (pp = &call->perf_events; *pp && *pp != e; pp = &(*pp)->hook_next)
		;
	if (*pp)
		WRITE_ONCE(*pp, e->hook_next);
	if (!call->perf_events) {
		call->flags &= ~EVENT_FL_PERF;
		trace_event_update_probe(call); /* detaching never fails for memory */
	}
	event_mutex_unlock();
	if (e->filter) {
		tracepoint_synchronize_unregister();
		filter_free(e->filter);
		e->filter = NULL;
	}
	perf_probe_destroy(e, call);
}

/* PERF_EVENT_IOC_SET_FILTER: the events/ filter grammar, for this perf event alone. */
int perf_trace_set_filter(struct perf_event *e, const char __user *ufilter)
{
	struct filter_parse_error pe;
	struct event_filter *f = NULL, *old;
	char *buf;
	long n;
	int err = 0;

	if (!e->tp_call)
		return -EINVAL;
	if (e->filter)
		return -EEXIST; /* Linux's ftrace_profile_set_filter(): one filter per perf event */
	buf = kmalloc(PAGE_SIZE);
	if (!buf)
		return -ENOMEM;
	n = strncpy_from_user(buf, ufilter, PAGE_SIZE);
	if (n < 0 || n == PAGE_SIZE) {
		err = n < 0 ? -EFAULT : -E2BIG;
		goto out;
	}
	if (n && strcmp(buf, "0")) {
		err = filter_compile(e->tp_call->fields, e->tp_call->nr_fields, buf, &f, &pe);
		if (err)
			goto out;
	}
	old = e->filter;
	WRITE_ONCE(e->filter, f);
	if (old) {
		tracepoint_synchronize_unregister();
		filter_free(old);
	}
out:
	kfree(buf);
	return err;
}

static struct pt_regs *probe_regs[NR_CPUS];

void perf_trace_probe_regs(struct pt_regs *regs)
{
	probe_regs[smp_processor_id()] = regs;
}

/*
 * Interrupts off (the tracepoint's iterator, or the probe's handler). An event with a BPF program
 * runs it first, on every CPU as Linux runs the programs of a call; a 0 from it drops the hit.
 */
void perf_trace_buf_submit(struct trace_event_call *call, void *rec, u32 len)
{
	struct pt_regs *regs = probe_regs[smp_processor_id()];
	bool user = regs && user_mode(regs);

	for (struct perf_event *e = READ_ONCE(call->perf_events); e; e = READ_ONCE(e->hook_next)) {
		struct perf_sample_data d = {
			.ip = regs ? regs->ip : (unsigned long)__builtin_return_address(0),
			.raw = rec,
			.raw_size = len,
			.regs = regs
		};
		struct event_filter *f = READ_ONCE(e->filter);

		if (READ_ONCE(e->prog)) {
			if (READ_ONCE(e->state) != PERF_EVENT_STATE_ACTIVE ||
			    !perf_event_run_bpf(e, rec, regs))
				continue;
		}
		/* Linux's perf_tp_event_match(): excluding the kernel leaves only uprobes' hits */
		if (!perf_event_matches(e) || (e->attr.exclude_kernel && !user))
			continue;
		if (f && !filter_match(f, rec, len))
			continue;
		perf_event_count(e, 1, &d);
	}
}
