/* instances/: `mkdir instances/foo` makes a trace array of its own, `rmdir` takes it down.
 *
 *   instances/foo/   trace  trace_pipe  tracing_on  current_tracer  trace_marker  snapshot
 *                    tracing_max_latency  buffer_size_kb  trace_options  set_ftrace_pid  available_tracers
 *                    set_ftrace_filter  set_ftrace_notrace  set_event  set_event_pid
 *                    events/ (enable, format, id)  per_cpu/cpuN/
 *
 * Each instance has its own per-CPU buffer and, while its current_tracer is function, its own
 * ftrace_ops whose private names it: the same trampoline and callback as the global tracer's
 * then write into it (trace_functions.c). Its events are bits in each event's tr_mask
 * (trace_events.c). Which array a file belongs to is the directory it sits in (trace_array_of()).
 */
#include "kernel/trace/trace_events.h"
#include "kernel/fs/tracefs.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/ftrace.h"
#include "kernel/trace/trace_snapshot.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Serializes mkdir and rmdir: the slots of trace_arrays[] and the directories. */
static DEFINE_MUTEX(instance_lock);

struct trace_array *trace_array_of(const struct fnode *f)
{
	for (; f; f = f->parent)
		for (int i = 0; i < TRACE_ARRAY_MAX; i++) {
			struct trace_array *tr = READ_ONCE(trace_arrays[i]);
			if (tr && tr->dir == f)
				return tr;
		}
	return &global_trace;
}

static void instance_free(struct trace_array *tr)
{
	ftrace_probes_free(tr);
	ftrace_mod_free(tr);
	if (tr->ops) {
		free_ftrace_hash(tr->ops->local_hash.filter_hash);
		free_ftrace_hash(tr->ops->local_hash.notrace_hash);
		kfree(tr->ops);
	}
	free_snapshot(tr);
	trace_error_log_free(tr);
	ring_buffer_free(&tr->buffer);
	if (trace_array_option(tr, TRACE_OPT_RECORD_TGID))
		trace_tgid_option_changed(false); /* one recorder fewer */
	kfree(tr);
}

/* The files of an instance, all or none (the caller removes the directory on failure). */
static int instance_files(struct fnode *dir)
{
	if (trace_array_create_files(dir) || trace_per_cpu_create(dir) ||
	    trace_snapshot_create_files(dir) || ftrace_create_instance_files(dir) ||
	    trace_events_create_instance(dir) || trace_error_log_init(dir))
		return -ENOMEM;
	return 0;
}

static int instance_mkdir(struct fnode *instances, const char *name)
{
	struct trace_array *tr;
	int id, err = -ENOMEM;

	mutex_lock(&instance_lock);
	for (id = 1; id < TRACE_ARRAY_MAX && trace_arrays[id]; id++)
		;
	/* The caller looked before our lock: an rmdir refused meanwhile has put its name back. */
	if (fs_lookup(instances, name, strlen(name))) {
		err = -EEXIST;
		goto out;
	}
	if (id == TRACE_ARRAY_MAX) {
		err = -ENOSPC; /* one bit per instance in an event's tr_mask */
		goto out;
	}
	tr = kzalloc(sizeof(*tr));
	if (!tr)
		goto out;
	trace_array_defaults(tr);
	tr->id = id;
	tr->ops = kzalloc(sizeof(*tr->ops));
	if (!tr->ops || ring_buffer_alloc(&tr->buffer, tr->buffer_kb))
		goto free;
	tr->ops->name = "instance_ops";
	tr->ops->private = tr;
	tr->dir = tracefs_create_dir(name, instances);
	if (!tr->dir)
		goto free;
	/* Published first: its files find their array through it (trace_array_of). Nothing writes
	 * into it before an event or a tracer is switched on through them. */
	WRITE_ONCE(trace_arrays[id], tr);
	if (instance_files(tr->dir)) {
		WRITE_ONCE(trace_arrays[id], NULL);
		trace_events_remove_instance(tr);
		fs_remove(tr->dir);
		goto free;
	}
	err = 0;
	goto out;
free:
	instance_free(tr);
out:
	mutex_unlock(&instance_lock);
	return err;
}

/*
 * Refused (EBUSY, nothing changed) while a file of it is open or the shell stands in it; it is
 * out of the directory while that is decided, so no new open can slip in. Else the tracer stops (its ops unregistered: no site calls into it), its events go off and every
 * CPU is past any write into it; only then its files and buffer are freed.
 */
static int instance_rmdir(struct fnode *instances, struct fnode *victim)
{
	struct trace_array *tr = NULL;
	int err = 0;

	mutex_lock(&instance_lock);
	for (int i = 1; i < TRACE_ARRAY_MAX && !tr; i++)
		if (trace_arrays[i] && trace_arrays[i]->dir == victim)
			tr = trace_arrays[i];
	if (!tr) {
		err = -ENOENT;
		goto out;
	}
	/* Out of sight before the look: open() pins without our locks, and the tracer's switch
	 * below sleeps, so a directory still in place could be opened after any look. */
	fs_detach(victim);
	if (fs_busy(victim)) {
		err = -EBUSY;
		goto back;
	}
	/* Its triggers first: another array sharing one of its named hists refuses the rmdir. */
	err = trace_events_clear_instance(tr);
	if (!err)
		err = trace_array_set_tracer(tr, "nop");
	if (!err)
		err = ftrace_probes_clear(tr);
	if (err)
		goto back;
	trace_events_remove_instance(tr);
	/* Under event_mutex: find_named() walks every array's files holding it. */
	event_mutex_lock();
	WRITE_ONCE(trace_arrays[tr->id], NULL);
	event_mutex_unlock();
	synchronize_rcu_tasks(); /* the ops may still be in a trampoline's hands until here */
	if (fs_remove(victim))
		fs_unlink(
			victim); /* opened by a walk that found it before the detach: freed at close */
	instance_free(tr);
	goto out;
back:
	fs_attach(instances, victim, victim->name);
out:
	mutex_unlock(&instance_lock);
	return err;
}

static const struct file_ops instances_ops = { .mkdir = instance_mkdir, .rmdir = instance_rmdir };

void trace_instances_init(void)
{
	struct fnode *dir = tracefs_create_dir("instances", global_trace.dir);

	if (dir)
		dir->ops = &instances_ops;
}
