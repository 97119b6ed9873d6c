/* BPF programs on perf events, and bpf_perf_event_output() into a perf event's ring.
 *
 *   fd = perf_event_open(PERF_TYPE_TRACEPOINT, id of a tracepoint, kprobe or uprobe event)
 *   ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd)      or   bpf(BPF_LINK_CREATE, prog, fd,
 *                                                          BPF_PERF_EVENT): a link fd whose
 *                                                          close detaches the program
 *   each hit: perf_trace_buf_submit() -> perf_event_run_bpf(): a tracepoint program on the
 *   record, a kprobe program on the probed registers; a 0 from it drops the hit
 *
 * libbpf attaches kprobes, kretprobes and tracepoints this way (through kprobe_events when the
 * kprobe PMU is missing, as here). A program of the wrong type for the event is EINVAL, a second
 * one EEXIST. Linux: kernel/events/core.c (perf_event_set_bpf_prog()), kernel/trace/bpf_trace.c
 * (perf_event_attach_bpf_prog(), trace_call_bpf(), bpf_perf_event_output()),
 * kernel/bpf/syscall.c (bpf_perf_link_attach()).
 */
#include "kernel/events/perf_event.h"
#include "kernel/bpf/bpf.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/trace_events.h"
#include "lib/string.h"

#define BPF_PERF_EVENT 41 /* Linux's enum bpf_attach_type */

/* A program running on this CPU: one that fires an event of its own is not run again inside
 * (Linux's bpf_prog_active). */
static int bpf_active[NR_CPUS];

static bool fd_is_open(int fd)
{
	struct file *f = fget(fd);

	if (f)
		fput(f);
	return f != NULL;
}

int perf_event_set_bpf_prog(struct perf_event *e, int prog_fd)
{
	struct bpf_prog *prog;

	if (e->prog)
		return -EEXIST;
	/* a software event's program runs where it samples (Linux's perf_event_set_bpf_handler()) */
	if (!e->tp_call)
		prog = bpf_prog_get_type(prog_fd, BPF_PROG_TYPE_PERF_EVENT);
	else
		prog = bpf_prog_get_type(prog_fd, e->tp_call->is_ukprobe
							  ? BPF_PROG_TYPE_KPROBE
							  : BPF_PROG_TYPE_TRACEPOINT);
	/* Linux's __bpf_prog_get(): EBADF only for an fd not open, EINVAL for one that is no program */
	if (IS_ERR(prog))
		return PTR_ERR(prog) == -EBADF && prog_fd >= 0 && fd_is_open(prog_fd)
			       ? -EINVAL
			       : PTR_ERR(prog);
	WRITE_ONCE(e->prog, prog);
	return 0;
}

/* After this returns, no CPU runs the program for e any more. */
void perf_event_free_bpf_prog(struct perf_event *e)
{
	struct bpf_prog *prog = e->prog;

	if (!prog)
		return;
	WRITE_ONCE(e->prog, NULL);
	tracepoint_synchronize_unregister();
	bpf_prog_put(prog);
}

bool perf_event_run_bpf(struct perf_event *e, const void *rec, const struct pt_regs *regs)
{
	struct bpf_prog *prog = READ_ONCE(e->prog);
	int cpu = smp_processor_id();
	u32 ret;

	if (!prog || (e->tp_call->is_ukprobe && !regs))
		return true;
	if (bpf_active[cpu])
		return false;
	bpf_active[cpu]++;
	ret = bpf_prog_run(prog, e->tp_call->is_ukprobe ? (const void *)regs : rec);
	bpf_active[cpu]--;
	return ret != 0;
}

/*
 * A BPF_PROG_TYPE_PERF_EVENT program at a software event's sample (Linux's bpf_overflow_handler()):
 * its context is Linux's struct bpf_perf_event_data, the sampled registers then sample_period and
 * addr; a 0 from it drops the sample. An event counted where no registers were saved (a context
 * switch) gives the program zeroed registers with the sample's ip.
 */
bool perf_event_overflow_bpf(struct perf_event *e, const struct perf_sample_data *d)
{
	struct bpf_prog *prog = READ_ONCE(e->prog);
	struct {
		struct pt_regs regs;
		u64 sample_period, addr;
	} ctx;
	int cpu = smp_processor_id();
	u32 ret;

	if (!prog || e->tp_call)
		return true;
	if (bpf_active[cpu])
		return false;
	if (d->regs) {
		ctx.regs = *d->regs;
	} else {
		memset(&ctx.regs, 0, sizeof(ctx.regs));
		ctx.regs.ip = d->ip;
	}
	ctx.sample_period = e->sample_period;
	ctx.addr = 0;
	bpf_active[cpu]++;
	ret = bpf_prog_run(prog, &ctx);
	bpf_active[cpu]--;
	return ret != 0;
}

/* --- BPF_MAP_TYPE_PERF_EVENT_ARRAY's side: kernel/trace/bpf_trace.c calls these ---------------- */

bool bpf_is_perf_event_file(struct file *f)
{
	return perf_event_get_file(f) != NULL;
}

/* Linux's __bpf_perf_event_output(): only a bpf-output event, only on the CPU it counts on. */
long bpf_perf_event_output_file(struct file *event_file, int cpu, const void *data, u64 size)
{
	struct perf_event *e = perf_event_get_file(event_file);
	struct perf_sample_data d = { .raw = data, .raw_size = size, .period = 1 };

	if (!e)
		return -ENOENT;
	if (e->attr.type != PERF_TYPE_SOFTWARE || e->attr.config != PERF_COUNT_SW_BPF_OUTPUT)
		return -EINVAL;
	if (e->cpu >= 0 ? e->cpu != cpu : !perf_event_matches(e))
		return -EOPNOTSUPP;
	if (READ_ONCE(e->state) != PERF_EVENT_STATE_ACTIVE)
		return 0;
	if (size > 0xffff)
		return -E2BIG;
	__atomic_add_fetch(&e->count, 1, __ATOMIC_RELAXED);
	perf_output_sample(e, &d);
	return 0;
}

/* --- BPF_LINK_CREATE for perf events ------------------------------------------------------ */

static void perf_link_release(struct file *f)
{
	struct file *ef = f->private_data;

	f->private_data = NULL; /* fput() would kfree it: it is the perf event's file */
	perf_event_free_bpf_prog(perf_event_get_file(ef));
	fput(ef);
}

static const struct file_operations bpf_perf_link_fops = {
	.release = perf_link_release, .mode = 0100600, /* Linux's anon inode: bpf_link */
};

int bpf_perf_link_attach(const union bpf_attr *attr)
{
	struct file *ef, *link;
	struct perf_event *e;
	int err, fd;

	if (attr->link_create.attach_type != BPF_PERF_EVENT || attr->link_create.flags)
		return -EINVAL;
	ef = (int)attr->link_create.target_fd < 0 ? NULL : fget(attr->link_create.target_fd);
	if (!ef)
		return -EBADF;
	err = -EINVAL;
	if (!(e = perf_event_get_file(ef)))
		goto out_put;
	err = -ENOMEM;
	if (!(link = alloc_file(&bpf_perf_link_fops, O_RDWR)))
		goto out_put;
	err = perf_event_set_bpf_prog(e, attr->link_create.prog_fd);
	if (err) {
		kfree(link);
		goto out_put;
	}
	link->private_data = ef; /* fget()'s reference: the link holds the event open */
	fd = fd_install_from(link, 0, true);
	fput(link); /* the table holds it now, or nothing does and the program is detached */
	return fd;
out_put:
	fput(ef);
	return err;
}
