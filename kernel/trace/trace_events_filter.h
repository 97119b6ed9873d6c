/* Event filters: `prev_pid == 1 && next_comm ~ "spin*"`, compiled once when written, run on every
 * record of the event before it is kept. Pure logic (no locks, no tracefs): also built for the host.
 * The language and its errors are Linux 6.1's (Documentation/trace/events.rst, "Event filtering"),
 * with Linux's pseudo-fields on every event: CPU, cpu and common_cpu (the CPU the event happens
 * on) and COMM, comm (the current task's name), where the event has no field of that name;
 * trace_events_filter.c lists the differences.
 */
#ifndef KERNEL_TRACE_TRACE_EVENTS_FILTER_H
#define KERNEL_TRACE_TRACE_EVENTS_FILTER_H

#include "lib/types.h"

/* How a field's bytes are read, for filters and for the format file (Linux's FILTER_*). */
enum filter_kind {
	FILTER_OTHER,	      /* an integer of size 1, 2, 4 or 8, signed or not */
	FILTER_STATIC_STRING, /* char name[N]: NUL-terminated within N bytes */
	FILTER_DYN_STRING,    /* __data_loc char[]: a u32, offset (low 16) and length (high 16)
			       * of the string from the start of the record */
	FILTER_PTR_STRING,    /* const char *: a pointer to a string (read in place) */
};

/* One field of an event record (Linux's struct ftrace_event_field). Offsets count from the start
 * of the record, the common fields included. */
struct ftrace_event_field {
	const char
		*type; /* as the format file prints it: "pid_t", "char[16]", "__data_loc char[]" */
	const char *name;
	u16 offset;
	u16 size;
	u8 is_signed;
	u8 kind; /* enum filter_kind */
};

/*
 * Linux 6.1's parse errors, in its order and words (err_text[] in trace_events_filter.c), so
 * error_log reads the same. Some are never produced here, only kept so the numbering and texts
 * match: IP_FIELD_ONLY (perf's function events). INVALID_FILTER is what Linux 6.1 says of an
 * expression ending in "&&" or "||".
 */
enum filter_err {
	FILT_ERR_NONE,		    /* "No error" */
	FILT_ERR_INVALID_OP,	    /* "Invalid operator" */
	FILT_ERR_TOO_MANY_OPEN,	    /* "Too many '('" */
	FILT_ERR_TOO_MANY_CLOSE,    /* "Too few '('" */
	FILT_ERR_MISSING_QUOTE,	    /* "Missing matching quote" */
	FILT_ERR_OPERAND_TOO_LONG,  /* "Operand too long" */
	FILT_ERR_EXPECT_STRING,	    /* "Expecting string field" */
	FILT_ERR_EXPECT_DIGIT,	    /* "Expecting numeric field" */
	FILT_ERR_ILLEGAL_FIELD_OP,  /* "Illegal operation for field type" */
	FILT_ERR_FIELD_NOT_FOUND,   /* "Field not found" */
	FILT_ERR_ILLEGAL_INTVAL,    /* "Illegal integer value" */
	FILT_ERR_BAD_SUBSYS_FILTER, /* "Couldn't find or set field in one of a subsystem's
				     * events" */
	FILT_ERR_TOO_MANY_PREDS,    /* "Too many terms in predicate expression" */
	FILT_ERR_INVALID_FILTER,    /* "Meaningless filter expression" */
	FILT_ERR_IP_FIELD_ONLY,	    /* "Only 'ip' field is supported for function trace" */
	FILT_ERR_INVALID_VALUE,	    /* "Invalid value (did you forget quotes)?" */
	FILT_ERR_ERRNO,		    /* "Error": no better word, logged at position 0 */
	FILT_ERR_NO_FILTER,	    /* "No filter found" */
	NR_FILT_ERRS
};

/*
 * Where and why a filter string was refused: what error_log prints under the command. pos is
 * Linux's caret column, counted in the filter string: for most errors one past the offending
 * byte, as Linux reports it.
 */
struct filter_parse_error {
	enum filter_err err;
	int pos;
};

struct event_filter; /* a compiled filter: opaque */

/*
 * Compiles str against an event's fields (the common fields are part of fields). 0 and *out, or
 * -EINVAL with *pe filled (and *out untouched), or -ENOMEM. An empty string or "0" is not a
 * filter: the caller clears the event's filter instead (Linux's behaviour for `echo 0 > filter`);
 * given one anyway, this answers as Linux's parser would ("Error" for "", "Field not found" for
 * "0"). Trailing white space (the newline echo adds) is not part of the filter.
 */
int filter_compile(const struct ftrace_event_field *fields, int nr_fields, const char *str,
		   struct event_filter **out, struct filter_parse_error *pe);
/* The pseudo-fields' values at match time: the kernel's are this CPU and current->comm
 * (trace_events.c); a host build brings its own. */
int filter_current_cpu(void);
const char *filter_current_comm(void);
/* Does the record (the whole event, common fields first) pass? Runs on the tracing path. */
bool filter_match(const struct event_filter *f, const void *rec, u32 len);
void filter_free(struct event_filter *f);
/* The filter's text as written (what `cat filter` shows). */
const char *filter_string(const struct event_filter *f);
/* Linux's message for an error code ("Error" for a code outside the enum). */
const char *filter_err_text(enum filter_err err);
#endif
