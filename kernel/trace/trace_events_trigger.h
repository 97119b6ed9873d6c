/* An event's triggers as a list of commands, shared by trace_events_trigger.c (the trigger file
 * and the simple commands), trace_events_hist.c (hist, enable_hist, disable_hist) and
 * trace_events_enable.c (enable_event, disable_event). */
#ifndef KERNEL_TRACE_TRACE_EVENTS_TRIGGER_H
#define KERNEL_TRACE_TRACE_EVENTS_TRIGGER_H

#include "kernel/trace/trace_events.h"

/* In Linux's listing order. ETT_EVENT_EPROBE is no command: an eprobe's hook
 * (event_trigger_probe_add()), never listed. */
enum trigger_type {
	ETT_TRACE_ONOFF_ON,
	ETT_TRACE_ONOFF_OFF,
	ETT_SNAPSHOT,
	ETT_STACKTRACE,
	ETT_EVENT_ENABLE,
	ETT_EVENT_DISABLE,
	ETT_HIST_ENABLE,
	ETT_HIST_DISABLE,
	ETT_EVENT_HIST,
	NR_ETT,
	ETT_EVENT_EPROBE
};

struct event_trigger_data {
	enum trigger_type type;
	long count; /* uses left, or TRIGGER_COUNT_UNLIMITED */
	struct event_filter *filter;
	struct event_trigger_data *next;
	void (*probe)(void *data, const void *rec, u32 len); /* ETT_EVENT_EPROBE's */
	void *probe_data;
	/* hist: its struct hist_trigger_data; enable_*: the target's trace_event_file, in the
	 * trigger's own array */
	void *private_data;
	void *pending; /* hist: the command as written, until it is parsed under event_mutex */
};

/* Soft mode follows the triggers on file and the enable commands aiming at it (sm_ref). */
int event_trigger_update_mode(struct trace_event_file *file);

/* hist (trace_events_hist.c). The parse logs its own errors (error_log) and compiles cond. */
int hist_trigger_parse_cmd(struct trace_event_file *file, char *spec, char *cond, bool remove,
			   struct event_trigger_data **out);
/* Under event_mutex, with the new trigger d (not yet listed): 0 to list it, 1 when it acted on
 * an existing one (pause, cont, clear, removal) and d is to be freed, or -errno. */
int hist_trigger_register(struct trace_event_file *file, struct event_trigger_data *d, bool remove,
			  struct event_trigger_data **gone);
void hist_trigger_run(struct event_trigger_data *d, const void *rec, u32 len);
void hist_trigger_print(struct seq_file *m, struct event_trigger_data *d);
void hist_trigger_free(struct event_trigger_data *d);
/* Under event_mutex: must it stay (a hist not among those going reads its variables, or another
 * shares its map), and what its going lets go of. */
bool hist_trigger_busy(struct event_trigger_data *d, struct event_trigger_data *going);
void hist_trigger_unlinked(struct trace_event_file *file, struct event_trigger_data *d);
/* The same for an rmdir of tr: every hist of tr goes with d, so only what another array holds
 * counts (a same-named hist sharing d's map). And d's made hists, freed with the rest of tr's
 * triggers rather than by d's own free. */
bool hist_trigger_busy_tr(struct event_trigger_data *d, struct trace_array *tr);
void hist_trigger_forget_made(struct event_trigger_data *d);
/* A hist trigger made for another hist (Linux's create_field_var_hist()): `text` added to file
 * under event_mutex as a write of it would add it (the trigger, or NULL), and taken off again
 * and freed, under event_mutex too, once the hist that made it goes. */
struct event_trigger_data *event_trigger_add_locked(struct trace_event_file *file, char *text);
void event_trigger_drop_locked(struct trace_event_file *file, struct event_trigger_data *d);
/* Under event_mutex: every trigger of tr's files taken off (rmdir), or -EBUSY and nothing
 * changed while a hist of another array shares a map made here (trace_events_trigger.c). */
int event_triggers_clear_tr(struct trace_array *tr);
/* enable_hist/disable_hist and enable_event/disable_event: `sys:event[:count]`, an event of
 * file's own array (trace_events_enable.c). */
int event_enable_parse(struct trace_event_file *file, enum trigger_type type, char *arg,
		       bool remove, struct event_trigger_data *d);
int event_enable_register(struct event_trigger_data *d);
void event_enable_unregister(struct event_trigger_data *d);
bool event_enable_same(const struct event_trigger_data *a, const struct event_trigger_data *b);
void event_enable_run(struct event_trigger_data *d);
void event_enable_switch(struct trace_event_call *target, long *count, bool on);
struct trace_array;
void event_enable_switch_tr(struct trace_event_call *target, struct trace_array *tr, long *count,
			    bool on);
void event_enable_print(struct seq_file *m, struct event_trigger_data *d, const char *name);

#endif
