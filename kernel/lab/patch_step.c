/* /sys/kernel/tracing/patch_step (ours, not Linux's): one ftrace site change, step by step.
 *
 *   echo 'FUNC on' > patch_step    a kernel thread registers the private ops "patch_step" (filter:
 *   echo 'FUNC off' > patch_step   FUNC), or unregisters it; the update is held before step 1
 *   ... on|off stop_machine        the same change written by stop_machine: one step, the rendezvous
 *   echo next > patch_step         the thread runs one step, and is held again
 *   echo abort > patch_step        the site goes back to its old bytes, at any step
 *   cat patch_step                 the site, the step done, the next one, syncs and int3 emulations,
 *                                  or who arrived at the rendezvous when, and who wrote the site
 *
 * A stop_machine cannot be held halfway: the CPU the shell runs on is one of those it stops. So
 * its one step is the whole rendezvous, and what each CPU did in it is shown afterwards.
 *
 * The thread is held inside the patcher's observer (step_observer's bp_step or stop_step), so it
 * holds text_mutex and ftrace_lock (mutexes) for as long as a step is pending: it sleeps in
 * msleep() with them held. A writer from the shell that waited for them would wait forever, since
 * only the shell can send `next`: so while the observer is installed it admits only this thread,
 * and text_patch_begin() answers -EBUSY to every other writer of code.
 */
#include "kernel/trace/ftrace.h"
#include "arch/x86/text_patch.h"
#include "kernel/fs/tracefs.h"
#include "kernel/kallsyms.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/stop_machine.h"
#include "lib/errno.h"
#include "lib/string.h"

enum { CMD_NONE, CMD_NEXT, CMD_ABORT };

static struct {
	unsigned long ip;
	struct dyn_ftrace *rec;
	bool on;		      /* NOP -> call (register) or call -> NOP (unregister) */
	enum patch_method method;     /* breakpoint: 3 steps; stop_machine: 1 */
	bool prepared;		      /* something to show: a patch held, done, or aborted */
	volatile int done;	      /* steps of the int3 protocol done, 0..3 */
	volatile bool held;	      /* the thread waits in the hook for a command */
	volatile int cmd;	      /* from the shell to the held thread */
	volatile bool refused;	      /* the thread refused an abort: bytes not as expected */
	volatile bool exited;	      /* the thread has left the update and dropped the locks */
	volatile bool aborting;	      /* the batch now runs back to the old bytes */
	struct task *volatile thread; /* the patcher thread, the one task the observer admits */
	bool aborted;
	int err;			       /* what the update returned */
	int synced[4];			       /* CPUs online at each step's sync */
	struct stop_machine_record rendezvous; /* stop_machine: its record, once done */
	unsigned long hits0;		       /* text_poke_bp_hits when the patch was prepared */
	unsigned long rec_flags, rec_target;   /* rec before the update, for an abort */
} st;

static unsigned long step_calls;

/* The ops's callback: only counts, so a reader sees that an emulated call reached ftrace. */
static void step_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		      struct pt_regs *regs)
{
	__atomic_add_fetch(&step_calls, 1, __ATOMIC_RELAXED);
}

static struct ftrace_ops step_ops = { .func = step_func,
				      .name = "patch_step",
				      .flags = FTRACE_OPS_FL_RECURSION };

/* Waits for the shell's command; an abort that finds other bytes is refused, and we wait on. */
static void wait_command(int step)
{
	for (;;) {
		st.held = true;
		while (st.cmd == CMD_NONE)
			msleep(1);
		st.held = false;
		/* Before a rendezvous nothing is written yet: an abort is always possible there. */
		if (st.cmd == CMD_NEXT || st.method == PATCH_STOP_MACHINE ||
		    !text_poke_bp_revert(step)) {
			st.aborting = st.cmd == CMD_ABORT;
			st.cmd = CMD_NONE;
			return;
		}
		st.refused = true;
		st.cmd = CMD_NONE;
	}
}

/* The hook, in the thread, before step 1 and after each step's sync: hold the batch of our site. */
static void step_hook(int step, const struct text_poke_loc *tp, int nr)
{
	if (nr != 1 || (unsigned long)tp->addr != st.ip)
		return; /* the callers' ftrace_call sites, changed in batches of their own */
	if (st.aborting)
		return; /* the way back: the reader keeps seeing how far forward it went */
	if (step)
		st.synced[step] = num_online_cpus();
	st.done = step;
	if (step < 3)
		wait_command(step);
}

/* The hook before and after a stop_machine batch: hold before it, keep its record after. */
static bool stop_hook(int step, const struct text_poke_loc *tp, int nr)
{
	if (nr != 1 || (unsigned long)tp->addr != st.ip || st.aborting)
		return true;
	if (step == 0) {
		wait_command(0);
		return !st.aborting;
	}
	st.rendezvous = stop_machine_last;
	st.done = 1;
	return true;
}

/* text_patch_begin() asks this while we are installed: only our thread may patch code. */
static bool step_admit(void)
{
	return current == READ_ONCE(st.thread);
}

static const struct text_patch_observer step_observer = { .bp_step = step_hook,
							  .stop_step = stop_hook,
							  .admit = step_admit };

static bool step_aborted(void)
{
	return st.aborting;
}

/* The patcher: one register or unregister of the ops, held by the hooks, then undone on abort. */
static void step_thread(void *arg)
{
	enum patch_method saved = text_patch_method;
	int err;

	WRITE_ONCE(st.thread, current);
	ftrace_set_patch_method(st.method);
	if (st.on) {
		err = register_ftrace_function(&step_ops);
		if (!err && st.aborting)
			err = ftrace_step_undo_register(&step_ops, st.rec, st.rec_flags,
							st.rec_target);
	} else {
		err = ftrace_step_unregister(&step_ops, step_aborted, st.rec, st.rec_flags,
					     st.rec_target);
	}
	ftrace_set_patch_method(saved);
	st.aborted = st.aborting;
	st.err = err;
	text_patch_set_observer(NULL);
	st.exited = true;
}

/* Waits (the shell sleeps, the thread runs) until the thread is held after a step beyond `from`,
 * or has left the update. */
static void wait_thread(int from)
{
	while (!st.exited && !st.refused && !(st.held && st.done > from))
		msleep(1);
}

/* `FUNC on|off [METHOD]`: checks everything, then starts the thread and returns once it is held. */
static int step_prepare(char *func, const char *dir, enum patch_method method)
{
	unsigned long ip = kallsyms_lookup_name(func);
	struct dyn_ftrace *rec = ip ? ftrace_lookup_ip(ip) : NULL;
	bool on = !strcmp(dir, "on");

	if (!rec || (!on && strcmp(dir, "off")))
		return -EINVAL;
	if (ftrace_disabled || (rec->flags & FTRACE_FL_DISABLED))
		return -ENODEV;
	if (num_online_cpus() < 2 || !ftrace_enabled)
		return -EINVAL; /* one CPU is written directly, with no protocol to step; nothing is */
	if (on && ((step_ops.flags & FTRACE_OPS_FL_ENABLED) || (rec->flags & FTRACE_FL_ENABLED)))
		return -EBUSY; /* our ops is live elsewhere, or the site already calls something */
	if (!on && (!(step_ops.flags & FTRACE_OPS_FL_ENABLED) || st.ip != ip ||
		    ftrace_rec_count(rec) != 1))
		return -EINVAL; /* off undoes our own `on` only, with nobody else on the site */
	if (on && ftrace_set_filter_ip(&step_ops, ip, false, true))
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	st.ip = ip;
	st.rec = rec;
	st.on = on;
	st.method = method;
	st.rec_flags = rec->flags;
	st.rec_target = rec->target;
	st.hits0 = text_poke_bp_hits;
	step_calls = 0;
	if (text_patch_set_observer(&step_observer))
		return -EBUSY; /* a self-test observes the patcher */
	st.prepared = true;
	if (!kthread_create(step_thread, NULL, smp_processor_id(), "patch_step")) {
		text_patch_set_observer(NULL);
		st.prepared = false;
		return -ENOMEM;
	}
	wait_thread(-1);
	return st.exited ? (st.err ? st.err : -EIO) : 0;
}

/* `next` or `abort` for a patch being stepped; an abort once it is done is a normal update. */
static int step_command(int cmd)
{
	int from = st.done, err;

	if (!st.prepared || st.aborted || (cmd == CMD_NEXT && st.exited))
		return -EINVAL;
	if (st.exited) {
		/* Done: the change is whole, so the way back is an ordinary update. */
		err = st.on ? unregister_ftrace_function(&step_ops)
			    : register_ftrace_function(&step_ops);
		st.aborted = !err;
		return err;
	}
	st.refused = false;
	st.cmd = cmd;
	if (cmd == CMD_ABORT)
		from = 3; /* wait for the thread to leave */
	wait_thread(from);
	if (st.refused) {
		st.refused = false;
		return -EINVAL;
	}
	return st.err;
}

/* The patch_method name after `FUNC on|off`, or the int3 protocol without one. */
static int parse_method(const char *name)
{
	if (!name)
		return PATCH_BREAKPOINT;
	for (int m = 0; m < NR_PATCH_METHODS; m++)
		if (!strcmp(name, patch_method_names[m]))
			return m;
	return -EINVAL;
}

/* `FUNC on|off [METHOD]`, `next` or `abort`; anything else is -EINVAL and changes nothing. */
static int step_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[128], *p = text, *func, *dir, *name, *extra;
	int method;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	func = strsep(&p, " \t");
	dir = p ? strsep(&p, " \t") : NULL;
	name = p ? strsep(&p, " \t") : NULL;
	extra = p;
	if (!dir && !strcmp(func, "next"))
		return step_command(CMD_NEXT);
	if (!dir && !strcmp(func, "abort"))
		return step_command(CMD_ABORT);
	method = parse_method(name);
	if (!dir || method < 0 || (extra && *extra))
		return -EINVAL;
	if (READ_ONCE(text_patch_observer))
		return -EBUSY; /* one patch at a time: finish or abort the one held */
	return step_prepare(func, dir, method);
}

static const char *const next_step[] = {
	"step 1: write int3 (cc) over the first byte, then sync every CPU",
	"step 2: write bytes 1-4 of the new instruction under the int3, then sync",
	"step 3: write the new first byte, then sync (the commit point)",
};
static const char next_stop[] = "step 1: stop_machine: gather every CPU, interrupts off, one CPU "
				"writes the 5 bytes, all sync";
static const char next_done[] = "none (done: abort now is an ordinary reverse update)";

/* The int3 protocol so far: how many CPUs each sync reached, how often the handler stood in. */
static void show_syncs(struct seq_file *m)
{
	seq_puts(m, "synced CPUs:");
	for (int i = 1; i <= 3; i++)
		if (st.synced[i])
			seq_printf(m, "%s step %d: %d", i > 1 ? "," : "", i, st.synced[i]);
		else
			seq_printf(m, "%s step %d: -", i > 1 ? "," : "", i);
	seq_putc(m, '\n');
	seq_printf(m, "int3 emulations: %lu\n", text_poke_bp_hits - st.hits0);
}

/* The rendezvous, once done: per CPU, when it acknowledged each state and where it was stopped. */
static void show_rendezvous(struct seq_file *m)
{
	const struct stop_machine_record *r = &st.rendezvous;

	if (!r->num_cpus) {
		seq_puts(m, "rendezvous: not yet\n");
		return;
	}
	seq_printf(m, "rendezvous: %d CPUs, CPU %d wrote the site\n", r->num_cpus, r->active_cpu);
	seq_puts(m, "  (TSC ticks after stop_machine() began: arrive, irqs off, run, leave)\n");
	seq_puts(m, " CPU arrived   arrive irqs_off      run    leave  stopped at\n");
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct stop_machine_cpu *c = &r->cpu[cpu];

		if (!c->arrived)
			continue;
		seq_printf(m, " %3d %7d %8llu %8llu %8llu %8llu  %pS%s\n", cpu, c->arrived,
			   c->ack[SM_ARRIVE], c->ack[SM_IRQS_OFF], c->ack[SM_RUN], c->ack[SM_LEAVE],
			   (void *)c->stopped_at, cpu == r->active_cpu ? " (wrote the site)" : "");
	}
}

/* The site as it is now, and what the patch has done to it so far. */
static void show_site(struct seq_file *m)
{
	const u8 *p = (const u8 *)st.ip;

	seq_printf(m, "function: %ps at 0x%lx\n", (void *)st.ip, st.ip);
	seq_printf(m, "change: %s\n",
		   st.on ? "nop -> call (register ops patch_step)"
			 : "call -> nop (unregister ops patch_step)");
	seq_printf(m, "method: %s\n", patch_method_names[st.method]);
	seq_puts(m, "site:");
	for (int i = 0; i < MCOUNT_INSN_SIZE; i++)
		seq_printf(m, " %02x", p[i]);
	seq_putc(m, '\n');
	if (st.method == PATCH_STOP_MACHINE)
		show_rendezvous(m);
	else
		show_syncs(m);
	seq_printf(m, "calls into patch_step ops: %lu\n", step_calls);
}

/* cat patch_step: the site, then where the patch stands and what `next` would do. */
static int step_show(struct seq_file *m, struct fnode *f)
{
	int steps = st.method == PATCH_STOP_MACHINE ? 1 : 3;

	if (!st.prepared) {
		seq_puts(m, "no patch prepared\n");
		return 0;
	}
	show_site(m);
	if (st.aborted)
		seq_printf(m, "state: aborted after step %d, old bytes restored\n", st.done);
	else if (st.exited && st.err)
		seq_printf(m, "state: failed (%d)\n", st.err);
	else
		seq_printf(m, "state: %d of %d steps done\nnext: %s\n", st.done, steps,
			   st.exited			     ? next_done
			   : st.method == PATCH_STOP_MACHINE ? next_stop
							     : next_step[st.done]);
	return 0;
}

static const struct file_ops step_fops = { .show = step_show, .write = step_write };

/* Creates the file (from ftrace_files_init()). */
void ftrace_step_init(void)
{
	tracefs_create_file("patch_step", tracefs_create_path("/sys/kernel/tracing"), NULL,
			    &step_fops);
}
