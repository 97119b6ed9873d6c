/* dynamic_events (kernel/trace/trace_dynevent.c): one list of every event made at run time,
 * whatever kind, and the operations each kind gives it (Linux's struct dyn_event_operations). */
#ifndef KERNEL_TRACE_TRACE_DYNEVENT_H
#define KERNEL_TRACE_TRACE_DYNEVENT_H

#include "kernel/trace/trace_probe.h"
#include "lib/types.h"

struct seq_file;
struct dyn_event;

/* Words a command may have: the head, a place, MAX_TRACE_ARGS arguments. A create callback
 * sees argc == DYN_EVENT_MAX_WORDS + 1 when the line had more (Linux logs TOO_MANY_ARGS). */
#define DYN_EVENT_MAX_WORDS (MAX_TRACE_ARGS + 2)

/*
 * One kind of dynamic event (kprobe, eprobe, ...). create() answers -ECANCELED when the line is
 * not its kind at all, so the next kind may try it; any other error is the line's, logged by
 * create() itself in error_log. free() refuses with -EBUSY while the event is in use. match()
 * says whether `-:[GRP/]EVENT [PLACE [ARGS]]` names ev (Linux's trace_*_match()).
 */
struct dyn_event_operations {
	struct dyn_event_operations *next;
	int (*create)(int argc, const char **argv);
	int (*show)(struct seq_file *m, struct dyn_event *ev);
	bool (*is_busy)(struct dyn_event *ev);
	int (*free)(struct dyn_event *ev);
	bool (*match)(const char *system, const char *event, int argc, const char **argv,
		      struct dyn_event *ev);
};

/* Embedded in each kind's event; on the list in creation order. */
struct dyn_event {
	struct dyn_event *next;
	const struct dyn_event_operations *ops;
};

/* The list, its lock (held by every writer of it and by its readers in tracefs). */
extern struct dyn_event *dyn_event_list;
void dyn_event_lock(void);
void dyn_event_unlock(void);
#define for_each_dyn_event(ev) for (ev = dyn_event_list; ev; ev = ev->next)

/* A kind joins dynamic_events (at boot). */
void dyn_event_register(struct dyn_event_operations *ops);
/* ev joins the list's end, or leaves it; under dyn_event_lock(). */
void dyn_event_add(struct dyn_event *ev, const struct dyn_event_operations *ops);
void dyn_event_remove(struct dyn_event *ev);

/* `-:[GRP/]EVENT [PLACE [ARGS]]` or `!...:[GRP/]EVENT`: each matching event of kind type (any
 * kind when NULL) freed; -ENOENT if none matched, -EINVAL for a malformed name, -EBUSY (that
 * one and those after it stay) if one is in use. */
int dyn_event_release(int argc, const char **argv, const struct dyn_event_operations *type);
/* Every event of kind type (any when NULL), or none if one of them is in use (-EBUSY). */
int dyn_events_release_all(const struct dyn_event_operations *type);

/* A write to kprobe_events or dynamic_events (Linux's trace_parse_run_command()): `>` first
 * releases the kind's events, then each line, '#' starting a comment, runs through cmd; the
 * first failure stops the write, the lines before it staying done. */
int dyn_event_write(const char *buf, size_t len, unsigned int flags,
		    const struct dyn_event_operations *type,
		    int (*cmd)(int argc, const char **argv));
/* One line of dynamic_events, in words (Linux's create_dyn_event()): for dyn_event_write(). */
int create_dyn_event(int argc, const char **argv);
/* error_log's entry for a refused command, subsystem loc ("trace_kprobe", "event_probe"). */
void dyn_event_log_err(const char *loc, const struct probe_log *log);

/* A kprobe or fprobe event's record at a hit: the probed address (and a return probe's return
 * address), then the arguments fetched from regs and, for a return probe's $argN, from what its
 * entry kept in edata (trace_probe_fetch.c; NULL if nothing). */
struct trace_event_call;
void trace_probe_record(struct trace_event_call *call, const struct trace_probe *tp, bool is_return,
			struct pt_regs *regs, unsigned long ip, unsigned long ret_ip,
			const unsigned long *edata);

void init_dynamic_event(void);
/* Event probes (trace_eprobe.c): `e` joins dynamic_events. */
void trace_events_eprobe_init(void);
/* fprobe events (trace_fprobe.c): `f` joins dynamic_events. */
void init_fprobe_trace(void);

#endif
