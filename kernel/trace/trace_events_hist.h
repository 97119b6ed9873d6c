/* Hist triggers: what a parsed `hist:keys=...` spec becomes, shared by the parser
 * (trace_events_hist_parse.c, also built for the host and fuzzed), the trigger that feeds the
 * map (trace_events_hist.c), its output (trace_events_hist_print.c) and its variables and
 * actions (trace_events_hist_vars.c). Linux's names, from its trace_events_hist.c. */
#ifndef KERNEL_TRACE_TRACE_EVENTS_HIST_H
#define KERNEL_TRACE_TRACE_EVENTS_HIST_H

#include "kernel/trace/trace_events_filter.h"
#include "kernel/trace/tracing_map.h"
#include "lib/types.h"

#define HIST_FIELD_FL_HITCOUNT (1UL << 0)
#define HIST_FIELD_FL_KEY (1UL << 1)
#define HIST_FIELD_FL_STRING (1UL << 2)
#define HIST_FIELD_FL_HEX (1UL << 3)
#define HIST_FIELD_FL_SYM (1UL << 4)
#define HIST_FIELD_FL_SYM_OFFSET (1UL << 5)
#define HIST_FIELD_FL_EXECNAME (1UL << 6)
#define HIST_FIELD_FL_SYSCALL (1UL << 7)
#define HIST_FIELD_FL_STACKTRACE (1UL << 8)
#define HIST_FIELD_FL_LOG2 (1UL << 9)
#define HIST_FIELD_FL_TIMESTAMP (1UL << 10)
#define HIST_FIELD_FL_TIMESTAMP_USECS (1UL << 11)
#define HIST_FIELD_FL_VAR (1UL << 12)
#define HIST_FIELD_FL_EXPR (1UL << 13)
#define HIST_FIELD_FL_VAR_REF (1UL << 14)
#define HIST_FIELD_FL_CPU (1UL << 15)
#define HIST_FIELD_FL_BUCKET (1UL << 16)
#define HIST_FIELD_FL_CONST (1UL << 17)
#define HIST_FIELD_FL_PERCENT (1UL << 18)
#define HIST_FIELD_FL_GRAPH (1UL << 19)

#define HIST_FIELDS_MAX (TRACING_MAP_FIELDS_MAX + TRACING_MAP_VARS_MAX)
#define HIST_STACKTRACE_DEPTH 16
#define HIST_STACKTRACE_SIZE (HIST_STACKTRACE_DEPTH * sizeof(unsigned long))
#define HIST_STRING_MAX 256 /* a string key or variable: Linux's MAX_FILTER_STR_VAL */
#define HIST_KEY_SIZE_MAX (HIST_STRING_MAX + HIST_STACKTRACE_SIZE)
#define HIST_ACTIONS_MAX 8
#define HIST_VAR_REFS_MAX 16
#define HIST_FIELD_VAR_HISTS_MAX 8
#define SYNTH_FIELDS_MAX 64

/* Linux 6.1's hist error codes and texts, in its order (err_text[] there). */
enum hist_err {
	HIST_ERR_NONE,
	HIST_ERR_DUPLICATE_VAR,
	HIST_ERR_VAR_NOT_UNIQUE,
	HIST_ERR_TOO_MANY_VARS,
	HIST_ERR_MALFORMED_ASSIGNMENT,
	HIST_ERR_NAMED_MISMATCH,
	HIST_ERR_TRIGGER_EEXIST,
	HIST_ERR_TRIGGER_ENOENT_CLEAR,
	HIST_ERR_SET_CLOCK_FAIL,
	HIST_ERR_BAD_FIELD_MODIFIER,
	HIST_ERR_TOO_MANY_SUBEXPR,
	HIST_ERR_TIMESTAMP_MISMATCH,
	HIST_ERR_TOO_MANY_FIELD_VARS,
	HIST_ERR_EVENT_FILE_NOT_FOUND,
	HIST_ERR_HIST_NOT_FOUND,
	HIST_ERR_HIST_CREATE_FAIL,
	HIST_ERR_SYNTH_VAR_NOT_FOUND,
	HIST_ERR_SYNTH_EVENT_NOT_FOUND,
	HIST_ERR_SYNTH_TYPE_MISMATCH,
	HIST_ERR_SYNTH_COUNT_MISMATCH,
	HIST_ERR_FIELD_VAR_PARSE_FAIL,
	HIST_ERR_VAR_CREATE_FIND_FAIL,
	HIST_ERR_ONX_NOT_VAR,
	HIST_ERR_ONX_VAR_NOT_FOUND,
	HIST_ERR_ONX_VAR_CREATE_FAIL,
	HIST_ERR_FIELD_VAR_CREATE_FAIL,
	HIST_ERR_TOO_MANY_PARAMS,
	HIST_ERR_PARAM_NOT_FOUND,
	HIST_ERR_INVALID_PARAM,
	HIST_ERR_ACTION_NOT_FOUND,
	HIST_ERR_NO_SAVE_PARAMS,
	HIST_ERR_TOO_MANY_SAVE_ACTIONS,
	HIST_ERR_ACTION_MISMATCH,
	HIST_ERR_NO_CLOSING_PAREN,
	HIST_ERR_SUBSYS_NOT_FOUND,
	HIST_ERR_INVALID_SUBSYS_EVENT,
	HIST_ERR_INVALID_REF_KEY,
	HIST_ERR_VAR_NOT_FOUND,
	HIST_ERR_FIELD_NOT_FOUND,
	HIST_ERR_EMPTY_ASSIGNMENT,
	HIST_ERR_INVALID_SORT_MODIFIER,
	HIST_ERR_EMPTY_SORT_FIELD,
	HIST_ERR_TOO_MANY_SORT_FIELDS,
	HIST_ERR_INVALID_SORT_FIELD,
	HIST_ERR_INVALID_STR_OPERAND,
	HIST_ERR_EXPECT_NUMBER,
	HIST_ERR_UNARY_MINUS_SUBEXPR,
	HIST_ERR_DIVISION_BY_ZERO,
	NR_HIST_ERRS
};
const char *hist_err_text(enum hist_err err);

enum field_op_id {
	FIELD_OP_NONE,
	FIELD_OP_PLUS,
	FIELD_OP_MINUS,
	FIELD_OP_UNARY_MINUS,
	FIELD_OP_DIV,
	FIELD_OP_MULT
};
/* Linux's limit on the operators of one expression (unary minus counts as one). */
#define HIST_SUBEXPRS_MAX 3
/* The value of an expression's operator on two values (a division by zero gives -1, as Linux's). */
u64 hist_expr_op(enum field_op_id op, u64 a, u64 b);

struct hist_trigger_data;
struct event_trigger_data;
struct seq_file;

/* One key, value, variable or operand: where its u64 comes from and how it prints. */
struct hist_field {
	unsigned long flags;
	const struct ftrace_event_field *field; /* NULL: hitcount, timestamp, cpu, stacktrace... */
	unsigned int size;			/* bytes it takes in the compound key */
	unsigned int offset;			/* where in the compound key */
	bool is_signed;
	unsigned long buckets;
	char *var_name; /* `name=` in front of it: a variable */
	int var_idx;	/* its slot in the map's variables */
	enum field_op_id op;
	struct hist_field *operands[2];
	/* A $reference to a variable, maybe of another event's histogram. */
	char *ref_system, *ref_event, *ref_name;
	struct hist_trigger_data *ref_hist;
	int ref_var_idx; /* the variable's slot in ref_hist's map */
	int ref_slot;	 /* where its value is gathered in hist_data->var_ref_vals */
	bool read_once;	 /* an expression's operand: reading it consumes the variable */
	u64 constant;
	int str_slot; /* a string variable: its text's place in each element's private data */
	bool plain;   /* an integer field read as it is: hist_trigger_run() reads it inline */
};

enum handler_id { HANDLER_ONMATCH = 1, HANDLER_ONMAX, HANDLER_ONCHANGE };
enum action_id { ACTION_SAVE = 1, ACTION_TRACE, ACTION_SNAPSHOT };

struct synth_event;

/* onmatch(sys.event).trace(synth, args) / .synth(args), onmax($v).save(a,b), onchange($v)... */
struct action_data {
	enum handler_id handler;
	enum action_id action;
	char *action_str; /* the whole text, for the trigger's listing */
	char *match_system, *match_event;
	char *track_var_str; /* onmax/onchange: `$var` */
	struct hist_field *track_var;
	int track_idx; /* the map variable holding the max (or last) value */
	char *synth_name;
	struct synth_event *synth;
	unsigned int n_params;
	char *params[SYNTH_FIELDS_MAX];
	struct hist_field *param_fields[SYNTH_FIELDS_MAX];
	int save_idx; /* save(): the first map variable of its values; strings go in private data */
	int save_str; /* the first string slot of this save() in each element's private data */
	bool use_trace_keyword; /* .trace(name, ...) rather than .name(...) */
};

struct hist_trigger_attrs {
	char *keys_str, *vals_str, *sort_key_str, *name, *clock;
	bool pause, cont, clear;
	unsigned int map_bits;
	unsigned int n_assignments;
	char *assignment_str[TRACING_MAP_VARS_MAX];
	unsigned int n_actions;
	char *action_str[HIST_ACTIONS_MAX];
};

/* Where the parser finds what a spec names: the event's fields, other histograms' variables and
 * synthetic events. The kernel and the fuzzer each fill one. */
struct hist_parse_ctx {
	const struct ftrace_event_field *fields;
	int nr_fields;
	const char *system, *event;
	/* The histogram on system.event (NULL: this event's other hists too) defining var; NULL. */
	struct hist_trigger_data *(*find_var)(struct hist_parse_ctx *ctx, const char *system,
					      const char *event, const char *var, int *var_idx,
					      struct hist_trigger_data *self);
	struct synth_event *(*find_synth)(const char *name);
	bool (*event_exists)(const char *system, const char *event);
	/* An onmatch() parameter naming a field of another event: a variable made for it there
	 * (trace_events_hist_field_var.c), or found when removing; undone if the spec is refused. */
	struct hist_field *(*field_var)(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
					const char *system, const char *event, char *field);
	void (*field_vars_undo)(struct hist_trigger_data *hd);
	/* The array the hist is set in (the kernel's; NULL in the fuzzer): variables and field
	 * variables are its events', as Linux looks them up in the hist's own trace_array. */
	struct trace_array *tr;
	bool removing;
	bool timestamps; /* common_timestamp appeared: the hist reads the clock */
	/* The first error: Linux logs one line per refused command. */
	enum hist_err err;
	bool malformed; /* refused without a log line (`a+`, `-x`), as Linux refuses them */
	int err_pos;
	const char *cmd; /* "hist:..." as written: err_pos counts in it */
};

struct hist_trigger_data {
	struct hist_field *fields[HIST_FIELDS_MAX]; /* values (hitcount first), vars, then keys */
	unsigned int n_vals, n_vars, n_keys, n_fields;
	unsigned int key_size;
	struct hist_trigger_attrs *attrs;
	struct tracing_map *map;
	struct tracing_map_sort_key sort_keys[TRACING_MAP_SORT_KEYS_MAX];
	unsigned int n_sort_keys;
	bool enable_timestamps;
	const char *system, *event;
	/* $references this hist reads, gathered before its actions run */
	struct hist_field *var_refs[HIST_VAR_REFS_MAX];
	unsigned int n_var_refs;
	struct action_data *actions[HIST_ACTIONS_MAX];
	unsigned int n_actions;
	unsigned int n_save_vars;
	unsigned int n_str_vars; /* string variables, their text after the save() strings */
	bool int_keys; /* every key an integer written whole: no need to zero the key first */
	unsigned int n_action_vars; /* map variables after the named ones */
	int refcount;		    /* other hists' $references to this one's variables */
	bool paused; /* :pause, disable_hist; also the state of a named hist's sharers */
	/* name=: the hist whose map this one shares (itself for the first), and how many use it */
	struct hist_trigger_data *named;
	int named_users;
	struct trace_event_file *file; /* the event, in the array the hist is set in */
	/* hists made on other events for field parameters (Linux's field_var_hists) */
	struct {
		struct trace_event_file *file;
		struct event_trigger_data *trigger;
	} field_var_hists[HIST_FIELD_VAR_HISTS_MAX];
	unsigned int n_field_var_hists;
};

#define for_each_hist_val_field(i, hd) for ((i) = 0; (i) < (hd)->n_vals; (i)++)
#define for_each_hist_key_field(i, hd) for ((i) = (hd)->n_vals; (i) < (hd)->n_fields; (i)++)

/* The parser's helpers, shared by its files. hist_err() keeps the first error, at the position
 * where str first occurs in ctx->cmd (Linux's errpos()). */
void hist_err(struct hist_parse_ctx *ctx, enum hist_err err, const char *str);
char *hist_kstrdup(const char *s);
char *hist_strsep(char **s, const char *delims);
/* One field, $reference or expression of the spec (trace_events_hist_fields.c), for
 * trace_events_hist_create.c, which builds the histogram from them. */
struct hist_field *hist_field_alloc(unsigned long flags);
struct hist_field *hist_parse_expr(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
				   char *str, unsigned long flags, unsigned int *n_subexprs);
struct hist_field *hist_find_own_var(struct hist_trigger_data *hd, const char *name);
bool hist_has_var_ref(const struct hist_field *hf);
/* Values, variables, keys, sort keys and the map's fields, from hd->attrs
 * (trace_events_hist_create.c). */
int hist_create_fields(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd);
/* The map for them, with the actions' variables after the named ones. */
int hist_create_map(struct hist_trigger_data *hd);
/* The field var of another event (trace_events_hist_field_var.c): ctx->field_var in the kernel;
 * the hists it made dropped, with event_mutex (_locked) or without. */
struct hist_field *hist_field_var(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
				  const char *system, const char *event, char *field);
void hist_field_var_hists_drop_locked(struct hist_trigger_data *hd);
void hist_field_var_hists_drop(struct hist_trigger_data *hd);
/* A field of this event or a $reference, as an action's parameter (trace_events_hist_fields.c). */
struct hist_field *hist_parse_param(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
				    char *str);
/* Its type as a synthetic event's field would name it ("u64", "pid_t", "char[16]"). */
const char *hist_field_type(const struct hist_field *hf);
void hist_field_free(struct hist_field *hf);

/* Parses the spec after `hist:` (or `!hist:`) into a histogram with its map sized but not
 * allocated: 0, -EINVAL (ctx->err says why and where) or -ENOMEM. */
int hist_trigger_parse(struct hist_parse_ctx *ctx, char *spec, struct hist_trigger_data **out);
void hist_trigger_data_free(struct hist_trigger_data *hd);
/* The field's name as listings print it ("common_timestamp", "$ts0", "next_pid"). */
const char *hist_field_name(const struct hist_field *hf);
/* The modifier's name (hex, sym, ...) or NULL. */
const char *hist_field_flags_str(const struct hist_field *hf);
/* Same keys, values and sort: what makes a second `hist:` on an event the same trigger. */
bool hist_trigger_match(const struct hist_trigger_data *a, const struct hist_trigger_data *b);
/* Each element's private data: the comm of .execname, then a string slot per save()d value. */
#define HIST_SAVE_STR_LEN 32
#define HIST_ELT_PRIVATE_SIZE(hd)                                                                  \
	(16 + HIST_SAVE_STR_LEN * (hd)->n_save_vars + HIST_STRING_MAX * (hd)->n_str_vars)

/* A string field's text into dst (hf->size bytes), and a string variable's value: where its
 * text is kept in elt (trace_events_hist_vars.c). */
void hist_string_to_key(const struct hist_field *hf, const void *rec, u32 len, char *dst);
/* The stack from the function that hit the tracepoint on, HIST_STACKTRACE_DEPTH entries. */
void hist_stack_to_key(unsigned long *entries);
u64 hist_string_var(struct hist_trigger_data *hd, const struct hist_field *hf,
		    struct tracing_map_elt *elt, const void *rec, u32 len);
/* The field's u64 for this record (ts: common_timestamp in ns; refs: resolved $references). */
u64 hist_field_value(const struct hist_field *hf, const void *rec, u64 ts, const u64 *refs);

/* The actions of attrs parsed against the now-known variables (trace_events_hist_vars.c). */
int hist_parse_actions(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd);
void hist_actions_free(struct hist_trigger_data *hd);
/* After the element was updated: onmatch, onmax, onchange (trace_events_hist_vars.c). */
void hist_actions_run(struct hist_trigger_data *hd, struct tracing_map_elt *elt, const void *rec,
		      u32 len, void *key, u64 *refs, u64 ts);
/* The actions in the trigger's line, their saved values beside an entry; the synthetic events
 * their actions fire are held while the hist is listed (+1) and let go (-1). */
void hist_actions_print_spec(struct seq_file *m, struct hist_trigger_data *hd);
void hist_actions_print_elt(struct seq_file *m, struct hist_trigger_data *hd,
			    struct tracing_map_elt *elt);
void hist_actions_ref(struct hist_trigger_data *hd, int delta);
/* The snapshot() action (trace_events_hist.c): the trace buffer swapped into the snapshot buffer,
 * and val and the entry's key kept as what triggered it. Linux's conditional snapshot: one
 * histogram at a time may hold it (enable: 0, -EBUSY or -ENOMEM; print: its lines in hist). */
void hist_snapshot_take(struct hist_trigger_data *hd, struct action_data *a, const void *key,
			struct tracing_map_elt *elt, u64 val);
int hist_snapshot_enable(struct hist_trigger_data *hd);
void hist_snapshot_disable(struct hist_trigger_data *hd);
void hist_snapshot_print(struct seq_file *m, struct hist_trigger_data *hd,
			 void (*key_print)(struct seq_file *m, struct hist_trigger_data *hd,
					   const void *key, const char *comm));
/* Synthetic events (trace_events_synth.c): by name; a hist on one holds it (delta +1 or -1). */
struct synth_event *hist_find_synth(const char *name);
struct trace_event_call;
void hist_synth_ref(struct trace_event_call *call, int delta);
void synth_event_ref(struct synth_event *se, int delta);
/* A line of synthetic_events (`name fields`, `!name`); trunc: remove every unused one first. */
int synth_events_cmd(char *text, bool trunc);
void synth_event_trace(struct synth_event *se, const u64 *vals);
bool synth_field_is_string(const struct synth_event *se, unsigned int i);
const char *synth_field_type(const struct synth_event *se, unsigned int i);
unsigned int synth_event_n_fields(const struct synth_event *se);
const char *synth_event_name(const struct synth_event *se);
/* events/<system>/<event>/hist (trace_events_hist_print.c). */
void event_hist_show(struct seq_file *m, struct trace_event_file *file);
/* Lookups under event_mutex (trace_events_hist_lookup.c): a variable on an event of ctx->tr,
 * whether system:event exists, the hist first given a name in any array, and how many of
 * list's hists read th's variables. */
struct hist_trigger_data *hist_find_var(struct hist_parse_ctx *ctx, const char *system,
					const char *event, const char *var, int *idx,
					struct hist_trigger_data *self);
bool hist_event_exists(const char *system, const char *event);
struct hist_trigger_data *hist_find_named(const char *name);
int hist_refs_from(struct hist_trigger_data *th, struct event_trigger_data *list);

#endif
