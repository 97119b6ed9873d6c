/* BPF trampolines: one per traced function, rebuilt with every fentry/fexit program attached or
 * detached, and reached from the function's __fentry__ site as an ftrace direct call (Linux's
 * kernel/bpf/trampoline.c: bpf_trampoline_link_prog(), bpf_trampoline_update()). */
#include "kernel/bpf/core.h"
#include "kernel/bpf/syscall.h"
#include "kernel/bpf/trampoline.h"
#include "kernel/fs/file.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/trace/ftrace.h"
#include "arch/x86/text_poke.h"
#include "lib/string.h"

/*
 *   link fd ── bpf_tramp_link ──┐           bpf_trampoline (one per function ip)
 *   link fd ── bpf_tramp_link ──┼── links ──  ops: ftrace direct call at ip ──> cur image
 *                                              cur: bpf_tramp_image (execmem code + its runs)
 *
 * An image is immutable: attaching or detaching builds a new one from the links, points the site
 * at it (register, modify or unregister the direct call: one patch of the site, through the
 * int3 or stop_machine path like every other), then retires the old one.
 */
struct bpf_tramp_link {
	struct bpf_prog *prog;
	struct bpf_trampoline *tr;
	int kind; /* enum bpf_tramp_prog_type */
	struct bpf_tramp_link *next;
};

struct bpf_trampoline {
	unsigned long ip; /* the function, whose first instruction is its __fentry__ site */
	int nr_args;
	struct ftrace_ops ops;
	struct bpf_tramp_link *links; /* in attach order */
	int nr_links;
	struct bpf_tramp_image *cur;
	struct bpf_trampoline *next;
};

static struct bpf_trampoline *trampolines;
static DEFINE_MUTEX(trampoline_mutex); /* the list, every trampoline's links and images */

/* ---- what the image calls ---- */

/* Linux's __bpf_prog_enter(): 0 when this program is already running on this CPU (its helper
 * reached the traced function), and then the program is skipped; the exit undoes either. */
u64 notrace __bpf_prog_enter(struct bpf_tramp_run_ctx *run)
{
	preempt_disable();
	if (++run->active[smp_processor_id()] != 1) {
		__atomic_add_fetch(&run->misses, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return 1;
}

void notrace __bpf_prog_exit(struct bpf_tramp_run_ctx *run)
{
	run->active[smp_processor_id()]--;
	preempt_enable_no_resched();
}

/* Around fexit's call of the function: a task may sleep inside it, with its return address in
 * the image, where synchronize_rcu_tasks() cannot see it (it slept voluntarily). */
void notrace __bpf_tramp_enter(struct bpf_tramp_image *im)
{
	__atomic_add_fetch(&im->in_flight, 1, __ATOMIC_ACQ_REL);
}

void notrace __bpf_tramp_exit(struct bpf_tramp_image *im)
{
	__atomic_sub_fetch(&im->in_flight, 1, __ATOMIC_ACQ_REL);
}

/* ---- images ---- */

static void image_free(struct bpf_tramp_image *im)
{
	for (int i = 0; i < im->nr_runs; i++)
		bpf_prog_put(im->runs[i].prog);
	execmem_free(im->image);
	kfree(im);
}

/* The links' programs, fentry first, each held by the image as long as it can run them. */
static struct bpf_tramp_image *image_build(struct bpf_trampoline *tr)
{
	struct bpf_tramp_progs *progs = kzalloc(sizeof(*progs));
	struct bpf_tramp_image *im = kzalloc(sizeof(*im) + tr->nr_links * sizeof(im->runs[0]));
	u8 *buf = kmalloc(PAGE_SIZE);
	u32 len;
	int err = -ENOMEM;

	if (!progs || !im || !buf)
		goto fail;
	for (int kind = 0; kind < BPF_TRAMP_MAX; kind++)
		for (struct bpf_tramp_link *l = tr->links; l; l = l->next) {
			struct bpf_tramp_run_ctx *run = &im->runs[im->nr_runs];

			if (l->kind != kind)
				continue;
			run->prog = l->prog;
			bpf_prog_inc(l->prog);
			im->nr_runs++;
			progs->runs[kind][progs->nr[kind]++] = run;
		}
	err = arch_prepare_bpf_trampoline(im, buf, PAGE_SIZE, &len, tr->nr_args, progs,
					  tr->ip + MCOUNT_INSN_SIZE);
	if (err)
		goto fail;
	err = -ENOMEM;
	im->image = execmem_alloc(len);
	if (!im->image)
		goto fail;
	text_poke_copy(im->image, buf, len); /* through the alias: never writable and executable */
	im->size = len;
	kfree(buf);
	kfree(progs);
	return im;
fail:
	if (im)
		image_free(im);
	kfree(buf);
	kfree(progs);
	return ERR_PTR(err);
}

/* No task is between the site and __bpf_tramp_enter (rcu_tasks), none inside the function
 * (in_flight), none after __bpf_tramp_exit (rcu_tasks again): Linux's percpu_ref then
 * call_rcu_tasks. */
static void image_retire_wait(void *arg)
{
	struct bpf_tramp_image *im = arg;

	while (__atomic_load_n(&im->in_flight, __ATOMIC_ACQUIRE))
		msleep(1);
	synchronize_rcu_tasks();
	image_free(im);
}

/* The site no longer calls im. A task asleep in the function under fexit (a read waiting for
 * input) may keep it for long: then a kernel thread waits, not the task closing the link. */
static void image_retire(struct bpf_tramp_image *im)
{
	if (!im)
		return;
	synchronize_rcu_tasks();
	if (__atomic_load_n(&im->in_flight, __ATOMIC_ACQUIRE) &&
	    kthread_create(image_retire_wait, im, smp_processor_id(), "bpf_tramp_free"))
		return;
	image_retire_wait(im);
}

/* Linux's bpf_trampoline_update(): the site calls an image of the links now, or nothing. */
static int trampoline_update(struct bpf_trampoline *tr)
{
	struct bpf_tramp_image *im = NULL, *old = tr->cur;
	int err;

	if (tr->nr_links) {
		im = image_build(tr);
		if (IS_ERR(im))
			return PTR_ERR(im);
	}
	if (!old)
		err = register_ftrace_direct(&tr->ops, (unsigned long)im->image);
	else if (im)
		err = modify_ftrace_direct(&tr->ops, (unsigned long)im->image);
	else
		err = unregister_ftrace_direct(&tr->ops, (unsigned long)old->image);
	if (err) {
		if (im)
			image_free(im); /* never reachable: no wait */
		return err;
	}
	tr->cur = im;
	image_retire(old);
	return 0;
}

/* ---- trampolines, one per function ---- */

static struct bpf_trampoline *trampoline_lookup(unsigned long ip)
{
	for (struct bpf_trampoline *tr = trampolines; tr; tr = tr->next)
		if (tr->ip == ip)
			return tr;
	return NULL;
}

/* Linux's bpf_trampoline_get(); a function without a __fentry__ site has nothing to patch:
 * Linux's text poke finds no NOP there and says -EBUSY. */
static struct bpf_trampoline *trampoline_get(const struct bpf_prog *prog)
{
	unsigned long ip = prog->attach_func_addr;
	struct bpf_trampoline *tr = trampoline_lookup(ip);
	int err;

	if (tr)
		return tr;
	if (!ftrace_lookup_ip(ip))
		return ERR_PTR(-EBUSY);
	tr = kzalloc(sizeof(*tr));
	if (!tr)
		return ERR_PTR(-ENOMEM);
	tr->ip = ip;
	tr->nr_args = prog->attach_nr_args;
	tr->ops.name = "bpf_trampoline";
	err = ftrace_set_filter_ip(&tr->ops, ip, false, true);
	if (err) {
		kfree(tr);
		return ERR_PTR(err);
	}
	tr->next = trampolines;
	trampolines = tr;
	return tr;
}

/* Frees tr once nothing is attached and the site no longer calls it (a failed detach keeps both). */
static void trampoline_put(struct bpf_trampoline *tr)
{
	if (tr->nr_links || tr->cur)
		return;
	for (struct bpf_trampoline **p = &trampolines; *p; p = &(*p)->next)
		if (*p == tr) {
			*p = tr->next;
			break;
		}
	if (ftrace_set_filter_ip(&tr->ops, tr->ip, true, false))
		pr_warn("bpf_trampoline: %ps stays in its unused filter: no memory\n",
			(void *)tr->ip);
	kfree(tr);
}

static void link_unlink(struct bpf_tramp_link *link)
{
	for (struct bpf_tramp_link **p = &link->tr->links; *p; p = &(*p)->next)
		if (*p == link) {
			*p = link->next;
			link->tr->nr_links--;
			return;
		}
}

/* Linux's bpf_trampoline_link_prog(): one link more, at the end of its kind. */
static int trampoline_link_prog(struct bpf_tramp_link *link)
{
	struct bpf_trampoline *tr = trampoline_get(link->prog);
	struct bpf_tramp_link **p;
	int err;

	if (IS_ERR(tr))
		return PTR_ERR(tr);
	link->tr = tr;
	for (p = &tr->links; *p; p = &(*p)->next)
		if ((*p)->prog == link->prog) {
			err = -EBUSY; /* Linux: a program once per trampoline */
			goto put;
		}
	err = -E2BIG;
	if (tr->nr_links >= BPF_MAX_TRAMP_LINKS)
		goto put;
	*p = link;
	tr->nr_links++;
	err = trampoline_update(tr);
	if (err)
		link_unlink(link);
put:
	trampoline_put(tr);
	return err;
}

/* The link fd's last close: the program leaves the function (Linux's bpf_tracing_link_release). */
static void bpf_tracing_link_release(struct file *f)
{
	struct bpf_tramp_link *link = f->private_data;
	int err;

	if (!link)
		return;
	mutex_lock(&trampoline_mutex);
	link_unlink(link);
	err = trampoline_update(link->tr);
	if (err) /* the old image stays, holding the program: it still runs, but safely */
		pr_warn("bpf_trampoline: %ps: detaching %s failed (%d)\n", (void *)link->tr->ip,
			link->prog->name, err);
	trampoline_put(link->tr);
	mutex_unlock(&trampoline_mutex);
	bpf_prog_put(link->prog);
	kfree(link);
	f->private_data = NULL;
}

static const struct file_operations bpf_tracing_link_fops = {
	.release = bpf_tracing_link_release,
	.mode = 0600,
};

/* Linux's bpf_tracing_prog_attach(): takes the caller's reference on prog. A tp_btf program goes
 * on its tracepoint as a raw tracepoint program does (Linux's bpf_raw_tp_link_attach()). */
static int tracing_prog_attach(struct bpf_prog *prog)
{
	struct bpf_tramp_link *link;
	struct file f = { 0 };
	int err, fd;

	if (prog->expected_attach_type == BPF_TRACE_RAW_TP)
		return bpf_raw_tp_link_open(prog, prog->attach_func_name);
	link = kzalloc(sizeof(*link));
	f.private_data = link;
	if (!link) {
		bpf_prog_put(prog);
		return -ENOMEM;
	}
	link->prog = prog;
	link->kind =
		prog->expected_attach_type == BPF_TRACE_FEXIT ? BPF_TRAMP_FEXIT : BPF_TRAMP_FENTRY;
	mutex_lock(&trampoline_mutex);
	err = trampoline_link_prog(link);
	mutex_unlock(&trampoline_mutex);
	if (err) {
		bpf_prog_put(prog);
		kfree(link);
		return err;
	}
	fd = bpf_anon_fd(&bpf_tracing_link_fops, link, O_RDWR);
	if (fd < 0)
		bpf_tracing_link_release(&f); /* no fd took it: detach as its close would */
	return fd;
}

int bpf_tracing_raw_tp_open(int prog_fd)
{
	struct bpf_prog *prog = bpf_prog_get(prog_fd);

	if (IS_ERR(prog))
		return PTR_ERR(prog);
	if (prog->type != BPF_PROG_TYPE_TRACING) { /* a raw_tracepoint program needs a name */
		bpf_prog_put(prog);
		return -EINVAL;
	}
	return tracing_prog_attach(prog);
}

int bpf_tracing_link_create(const union bpf_attr *attr)
{
	struct bpf_prog *prog;

	if (attr->link_create.flags || attr->link_create.target_fd)
		return -EINVAL; /* target_fd: a BPF program's function (freplace), not built here */
	prog = bpf_prog_get(attr->link_create.prog_fd);
	if (IS_ERR(prog))
		return PTR_ERR(prog);
	if (prog->type != BPF_PROG_TYPE_TRACING ||
	    prog->expected_attach_type != attr->link_create.attach_type) {
		bpf_prog_put(prog);
		return -EINVAL;
	}
	return tracing_prog_attach(prog);
}

int bpf_trampoline_links(unsigned long ip)
{
	struct bpf_trampoline *tr;
	int n;

	mutex_lock(&trampoline_mutex);
	tr = trampoline_lookup(ip);
	n = tr ? tr->nr_links : 0;
	mutex_unlock(&trampoline_mutex);
	return n;
}
