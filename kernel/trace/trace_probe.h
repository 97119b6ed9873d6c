/* Probe events' fetch arguments: Linux's language (`%di`, `+8($stack):u32`, `$comm`...), parsed
 * into small programs of fetch steps, run when the probe hits, printed as Linux prints them.
 * Pure logic (no locks, no tracefs, no kprobes): also built for the host and unit-tested.
 *
 *   "name=+8(%di):u32"   ->  { REG di } { ST_MEM offset 8 size 4 } { END }
 *   "@jiffies"           ->  { SYMBOL "jiffies" } { IMM &jiffies } { ST_MEM 0, 8 } { END }
 *   "$comm"              ->  { COMM } { ST_STRING } { END }
 *
 * A record of a probe event is a struct trace_entry, the probe's head (the probed address, or a
 * return probe's function and return address), then each argument's fixed part at its offset
 * (packed, no alignment, as Linux lays them out), then the text of the string arguments.
 */
#ifndef KERNEL_TRACE_TRACE_PROBE_H
#define KERNEL_TRACE_TRACE_PROBE_H

#include "kernel/trace/trace_events_filter.h"
#include "lib/types.h"

struct pt_regs;
struct seq_file;

/* Linux's limits (kernel/trace/trace_probe.h), except the string size: Linux's is PATH_MAX. */
#define MAX_TRACE_ARGS 128
#define MAX_ARGSTR_LEN 63
#define MAX_ARG_NAME_LEN 32
#define MAX_EVENT_NAME_LEN 64
#define MAX_STRING_SIZE 256
#define KRETPROBE_MAXACTIVE_MAX 4096
#define MAX_ARRAY_LEN 64
/* The arguments' fixed parts: Linux's bound is 3072, ours keeps a record (head, arguments and
 * some string text) inside TRACE_EVENT_MAX_SIZE (2048). */
#define MAX_PROBE_EVENT_SIZE 1536
/* $stackN up to the words a kernel stack holds (TASK_STACK_PAGES of kernel/sched/sched.h). */
#define PARAM_MAX_STACK (4 * 4096 / sizeof(unsigned long))

/* The head fields, names reserved (an argument may not take them). */
#define FIELD_STRING_IP "__probe_ip"
#define FIELD_STRING_RETIP "__probe_ret_ip"
#define FIELD_STRING_FUNC "__probe_func"

/* Where the argument is parsed for (Linux's TPARG_FL_*). */
#define TPARG_FL_RETURN 1U /* a return probe: $retval */
#define TPARG_FL_KERNEL 2U /* a kernel probe: @SYM */
#define TPARG_FL_FENTRY 4U /* at a function's first byte: $argN */
#define TPARG_FL_TPOINT 8U /* on an event (eprobe): $FIELD, no registers */
#define TPARG_FL_MASK 15U

/* Linux 6.1's error texts (trace_probe.h: ERRORS), the kprobe and eprobe ones; TOO_MANY_ARGS
 * is later Linux's (6.1 ignores the arguments past 128), NON_UNIQ_SYMBOL 6.1.y's (Debian's),
 * TOO_MANY_EARGS a 2025 Linux's (the entry arguments a return probe keeps: MAX_ENTRY_ARGS). */
#define PROBE_ERRORS                                                                               \
	C(MAXACT_NO_KPROBE, "Maxactive is not for kprobe"),                                        \
		C(BAD_MAXACT, "Invalid maxactive number"),                                         \
		C(MAXACT_TOO_BIG, "Maxactive is too big"),                                         \
		C(BAD_PROBE_ADDR, "Invalid probed address or symbol"),                             \
		C(BAD_RETPROBE, "Retprobe address must be an function entry"),                     \
		C(BAD_ADDR_SUFFIX, "Invalid probed address suffix"),                               \
		C(NO_GROUP_NAME, "Group name is not specified"),                                   \
		C(GROUP_TOO_LONG, "Group name is too long"),                                       \
		C(BAD_GROUP_NAME, "Group name must follow the same rules as C identifiers"),       \
		C(NO_EVENT_NAME, "Event name is not specified"),                                   \
		C(EVENT_TOO_LONG, "Event name is too long"),                                       \
		C(BAD_EVENT_NAME, "Event name must follow the same rules as C identifiers"),       \
		C(EVENT_EXIST, "Given group/event name is already used by another event"),         \
		C(RETVAL_ON_PROBE, "$retval is not available on probe"),                           \
		C(BAD_STACK_NUM, "Invalid stack number"),                                          \
		C(BAD_ARG_NUM, "Invalid argument number"),                                         \
		C(BAD_VAR, "Invalid $-valiable specified"),                                        \
		C(BAD_REG_NAME, "Invalid register name"),                                          \
		C(BAD_MEM_ADDR, "Invalid memory address"), C(BAD_IMM, "Invalid immediate value"),  \
		C(IMMSTR_NO_CLOSE, "String is not closed with '\"'"),                              \
		C(FILE_ON_KPROBE, "File offset is not available with kprobe"),                     \
		C(BAD_FILE_OFFS, "Invalid file offset value"),                                     \
		C(SYM_ON_UPROBE, "Symbol is not available with uprobe"),                           \
		C(TOO_MANY_OPS, "Dereference is too much nested"),                                 \
		C(DEREF_NEED_BRACE, "Dereference needs a brace"),                                  \
		C(BAD_DEREF_OFFS, "Invalid dereference offset"),                                   \
		C(DEREF_OPEN_BRACE, "Dereference brace is not closed"),                            \
		C(COMM_CANT_DEREF, "$comm can not be dereferenced"),                               \
		C(BAD_FETCH_ARG, "Invalid fetch argument"),                                        \
		C(ARRAY_NO_CLOSE, "Array is not closed"),                                          \
		C(BAD_ARRAY_SUFFIX, "Array has wrong suffix"),                                     \
		C(BAD_ARRAY_NUM, "Invalid array size"),                                            \
		C(ARRAY_TOO_BIG, "Array number is too big"),                                       \
		C(BAD_TYPE, "Unknown type is specified"),                                          \
		C(BAD_STRING, "String accepts only memory argument"),                              \
		C(BAD_SYMSTRING, "Symbol String doesn't accept data/userdata"),                    \
		C(BAD_BITFIELD, "Invalid bitfield"),                                               \
		C(ARG_NAME_TOO_LONG, "Argument name is too long"),                                 \
		C(NO_ARG_NAME, "Argument name is not specified"),                                  \
		C(BAD_ARG_NAME, "Argument name must follow the same rules as C identifiers"),      \
		C(USED_ARG_NAME, "This argument name is already used"),                            \
		C(ARG_TOO_LONG, "Argument expression is too long"),                                \
		C(NO_ARG_BODY, "No argument expression"),                                          \
		C(BAD_INSN_BNDRY, "Probe point is not an instruction boundary"),                   \
		C(FAIL_REG_PROBE, "Failed to register probe event"),                               \
		C(DIFF_PROBE_TYPE, "Probe type is different from existing probe"),                 \
		C(DIFF_ARG_TYPE, "Argument type or name is different from existing probe"),        \
		C(SAME_PROBE, "There is already the exact same probe event"),                      \
		C(NO_EVENT_INFO, "This requires both group and event name to attach"),             \
		C(BAD_ATTACH_EVENT, "Attached event does not exist"),                              \
		C(BAD_ATTACH_ARG, "Attached event does not have this field"),                      \
		C(NO_EP_FILTER, "No filter rule after 'if'"),                                      \
		C(EVENT_TOO_BIG, "Event too big (too many fields?)"),                              \
		C(NO_TRACEPOINT, "Tracepoint is not found"),                                       \
		C(TOO_MANY_ARGS, "Too many arguments are specified"),                              \
		C(NON_UNIQ_SYMBOL, "The symbol is not unique"),                                    \
		C(TOO_MANY_EARGS, "Too many entry arguments specified"),                           \
		C(FILE_NOT_FOUND, "Failed to find the given file"),                                \
		C(NO_REGULAR_FILE, "Not a regular file"),                                          \
		C(BAD_UPROBE_OFFS, "Invalid uprobe offset"),                                       \
		C(BAD_REFCNT, "Invalid reference counter offset"),                                 \
		C(REFCNT_OPEN_BRACE, "Reference counter brace is not closed"),                     \
		C(BAD_REFCNT_SUFFIX, "Reference counter has wrong suffix"),

#define C(a, b) TP_ERR_##a
enum probe_err { TP_ERR_NONE = -1, PROBE_ERRORS NR_TP_ERRS };
#undef C

const char *probe_err_text(enum probe_err err);

/*
 * The first error of one command, as Linux's trace_probe_log keeps it: which word of the command
 * (index) and how far into it (offset). The caller logs it (error_log) once parsing gave up.
 */
struct probe_log {
	int argc;
	const char *const *argv;
	int index;
	enum probe_err err;
	int err_index, err_offset;
};

void probe_log_err(struct probe_log *log, int offset, enum probe_err err);
/* The command as Linux rebuilds it (the words one space apart), and the caret's column in it. */
void probe_log_command(const struct probe_log *log, char *buf, size_t size);
int probe_log_pos(const struct probe_log *log);

/* One step of an argument's program (Linux's struct fetch_insn). */
enum fetch_op {
	FETCH_OP_NOP,
	/* load: the value to start from */
	FETCH_OP_REG,	 /* regs + param */
	FETCH_OP_STACK,	 /* the param-th word at the stack pointer */
	FETCH_OP_STACKP, /* the stack pointer */
	FETCH_OP_RETVAL, /* ax, at a return probe */
	FETCH_OP_IMM,	 /* param (an address: @ADDR, @SYM, or \IMM) */
	FETCH_OP_COMM,	 /* the current task's name */
	FETCH_OP_ARG,	 /* the param-th argument by the calling convention (0 = the first) */
	FETCH_OP_DATA,	 /* data: an immediate string */
	FETCH_OP_TP_ARG, /* a field of the event an eprobe fires on (data: its trace_event_field) */
	FETCH_OP_FOFFS,	 /* a uprobe's @+OFFS: where the probed file's offset param is mapped */
	FETCH_OP_EDATA,	 /* the param-th word a return probe kept at the entry (its $argN) */
	/* dereference: value = *(value + offset) */
	FETCH_OP_DEREF,
	/* store */
	FETCH_OP_ST_RAW,    /* the value itself, size bytes of it */
	FETCH_OP_ST_MEM,    /* size bytes at value + offset */
	FETCH_OP_ST_STRING, /* the string at value + offset, into the record's dynamic part */
	FETCH_OP_ST_SYMSTR, /* "sym+0x4/0x20" of the value + offset, into the dynamic part */
	/* modify: a bitfield, shifted left by param & 0xff, then right by param >> 8 */
	FETCH_OP_MOD_BF,
	/* loop: param elements of an array */
	FETCH_OP_LP_ARRAY,
	FETCH_OP_END,
	FETCH_NOP_SYMBOL, /* data holds "sym[+-offs]" the next IMM is resolved from */
};

struct fetch_insn {
	u8 op;
	u8 size;
	u8 user; /* a load or string read from the process's memory only (`+u`, `ustring`) */
	int offset;
	unsigned long param;
	char *data;
};

/* fetch + nested derefs + store + end (Linux's bound) */
#define FETCH_INSN_MAX 16

/* A type an argument may take: :u8 ... :x64, :string, :symbol (Linux's struct fetch_type). */
struct fetch_type {
	const char *name;
	u8 size;
	u8 is_signed;
	u8 hex;
	const char *fmt;     /* in the format file's print fmt */
	const char *fmttype; /* the field's type in the format file */
};

/* The type called name (NULL: the default, x64; `b4@2/32`: its container, u32), or NULL if there
 * is none (trace_probe_types.c). Strings and symstr are the types whose field is a __data_loc. */
const struct fetch_type *find_fetch_type(const char *name);
static inline bool fetch_type_is_string(const struct fetch_type *t)
{
	return t->fmttype[0] == '_';
}
/* `b<width>@<offset>/<container>` as a bitfield step after the store step *pcode: 0, -EINVAL. */
int parse_bitfield_probe_arg(const char *bf, const struct fetch_type *t, struct fetch_insn **pcode);
/* A type's `[N]` cut off t, N into *count (0 when none); on -EINVAL the error and its offset in t. */
int parse_array_suffix(char *t, unsigned int *count, int *err_offs, enum probe_err *err);

struct probe_arg;
struct trace_probe;
/* For traceprobe_parse_probe_arg(): `NAME=ARG:TYPE[N]`'s type cut off arg (*pt points at it) into
 * parg (type, count); then, after the store step, the bitfield and array steps. 0 or -EINVAL
 * with log filled, as Linux places each error. */
int traceprobe_parse_type(char *arg, char **pt, struct probe_arg *parg, unsigned int flags,
			  int offset, struct probe_log *log);
/* A return probe's $argN (code, an ARG step) made a read of what its entry keeps: 0, or -E2BIG
 * with TOO_MANY_EARGS in log past MAX_ENTRY_ARGS distinct ones. */
int traceprobe_keep_entry_arg(struct trace_probe *tp, struct fetch_insn *code,
			      struct probe_log *log);
int traceprobe_add_modifiers(struct probe_arg *parg, struct fetch_insn **pcode, const char *t,
			     int type_pos, int offset, struct probe_log *log);

struct probe_arg {
	struct fetch_insn *code;
	bool dynamic;	    /* a string: the fixed part is a __data_loc */
	unsigned int count; /* elements of an array (`:u32[4]`), 0 if not one */
	char *fmt;	    /* an array's field type ("u32[4]"), NULL otherwise */
	u32 offset;	    /* of the fixed part, from the first argument */
	char *name;
	char *comm; /* the fetch argument as written, type included: kprobe_events shows it */
	const struct fetch_type *type;
};

/* The distinct $argN one return probe keeps from the function's entry for its exit. */
#define MAX_ENTRY_ARGS 16

struct trace_probe {
	u32 size; /* bytes of the arguments' fixed parts */
	/* A return probe's $argN (Linux's entry_arg, 6.9): which arguments (0 = the first) its
	 * entry keeps, a word each, in this order; the exit's EDATA steps read them. */
	int nr_entry_args;
	u16 entry_arg[MAX_ENTRY_ARGS];
	int nr_args;
	struct probe_arg args[];
};

/* NAME=FETCHARG[:TYPE] as the i-th argument of tp; 0, -EINVAL (log filled) or -ENOMEM. */
int traceprobe_parse_probe_arg(struct trace_probe *tp, int i, const char *arg, unsigned int flags,
			       struct probe_log *log);
/* @SYM's address, looked up now (Linux does it when the probe is registered); -ENOENT. */
int traceprobe_update_arg(struct probe_arg *arg);
/* Whether a probe of kind is_return with arguments tp may join an event of kind ev_return whose
 * record ev_tp describes (Linux's first two checks before trace_probe_append()): 0, or -EEXIST
 * with DIFF_PROBE_TYPE or DIFF_ARG_TYPE in log, its caret where Linux puts it. */
int traceprobe_check_append(bool is_return, const struct trace_probe *tp, bool ev_return,
			    const struct trace_probe *ev_tp, struct probe_log *log);
void traceprobe_free_probe_arg(struct probe_arg *arg);
/* `-:EVENT PLACE NAME=ARG...` names this probe: its first argc arguments written so. */
bool traceprobe_match_command_args(const struct trace_probe *tp, int argc, const char **argv);

/* "sym+0x10" -> "sym" and 16; "sym-8" -> -8. 0 or -EINVAL. */
int traceprobe_split_symbol_offset(char *symbol, long *offset);
/* [GROUP/]EVENT (or GROUP.EVENT) at offset of word 0: *pgroup set (to buf) when given. */
int traceprobe_parse_event_name(const char **pevent, const char **pgroup, char *buf, int offset,
				struct probe_log *log);
bool is_good_name(const char *name);
char *probe_strndup(const char *s, size_t n);

/* What a record holds before its arguments (Linux's enum probe_print_type): a kprobe's address,
 * a return probe's function and return address, nothing for an eprobe. A bool is_return is one
 * of the first two. */
enum probe_print_type { PROBE_PRINT_NORMAL, PROBE_PRINT_RETURN, PROBE_PRINT_EVENT };

/* The format file's print fmt, kmalloc'd: "(%lx) arg1=0x%Lx", REC->__probe_ip, REC->arg1 */
char *traceprobe_print_fmt(const struct trace_probe *tp, enum probe_print_type ptype);
/* The record's fields with their offsets, common ones first; kmalloc'd, *nr set. */
struct ftrace_event_field *traceprobe_fields(const struct trace_probe *tp,
					     enum probe_print_type ptype, int *nr);
/* The size of the record's head: struct trace_entry and the probe's own fields. */
u32 traceprobe_head_size(enum probe_print_type ptype);

/* At a hit: the bytes the strings will need (each at most MAX_STRING_SIZE, their NUL included),
 * then the arguments written into rec at head, the strings in at most dsize bytes after them.
 * A read that faults stores 0, or a string of length 0 ("(fault)"). */
/* A uprobe hit: where the probed file's offset 0 is in the process (the probed address less its
 * file offset), for @+OFFS, on this CPU until the record is written (interrupts are off). */
void traceprobe_set_file_base(unsigned long base);
/* A return probe with $argN: at the entry, the arguments tp keeps, into edata (nr_entry_args
 * words); at the exit, trace_probe_entry_data() hands them to its fetch steps. */
void traceprobe_store_entry_args(const struct trace_probe *tp, struct pt_regs *regs,
				 unsigned long *edata);
u32 traceprobe_data_size(const struct trace_probe *tp, struct pt_regs *regs);
void traceprobe_store_args(void *rec, u32 head, u32 dsize, const struct trace_probe *tp,
			   struct pt_regs *regs);
/* " name=value" for each argument of the record rec (len bytes), as Linux prints them. */
void traceprobe_print_args(struct seq_file *m, const struct trace_probe *tp, const void *rec,
			   u32 head, u32 len);

/* The current task's name, for $comm (trace_kprobe.c; the unit tests give their own). */
const char *trace_probe_current_comm(void);
/* What a return probe's entry kept for the record being written on this CPU, or NULL
 * (trace_dynevent.c's trace_probe_record() says; the unit tests give their own). */
const unsigned long *trace_probe_entry_data(void);

#endif
