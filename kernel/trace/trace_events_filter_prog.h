/* The branch program an event filter compiles to: trace_events_filter.c writes it once, when the
 * filter is written; trace_events_filter_match.c runs it on every record of the event. */
#ifndef KERNEL_TRACE_TRACE_EVENTS_FILTER_PROG_H
#define KERNEL_TRACE_TRACE_EVENTS_FILTER_PROG_H

#include "lib/types.h"

#define MAX_FILTER_STR_VAL 256 /* a quoted value must be shorter, as in Linux */

/* The operators, in the order the parser tries them (trace_events_filter.c: op_text). */
enum filter_op { OP_GLOB, OP_NE, OP_EQ, OP_LE, OP_LT, OP_GE, OP_GT, OP_BAND, NR_OPS };

enum pred_kind {
	PRED_FALSE,
	PRED_NUM,
	PRED_STATIC_STRING,
	PRED_DYN_STRING,
	PRED_PTR_STRING,
	PRED_CPU,  /* the CPU the event happens on, not a field of the record */
	PRED_COMM, /* the current task's name */
};

/* Exits that leave the program; any other exit is the index of the next predicate. */
#define FILTER_ACCEPT (-1)
#define FILTER_REJECT (-2)

struct filter_pred {
	u8 kind; /* enum pred_kind */
	u8 op;	 /* enum filter_op */
	u8 is_signed;
	u8 not ;    /* strings: invert the comparison (!=, or ~ "!pattern") */
	u8 glob;    /* strings: enum glob_kind of pattern */
	u16 offset; /* of the field in the record */
	u16 size;   /* bytes read at offset: integer, char[N], __data_loc u32 or pointer */
	s16 on_true, on_false;
	u32 needle_len;
	u64 val; /* numbers: the value cut to the field's width and sign-extended if signed */
	const char *pattern, *needle;
};

struct event_filter {
	const char *string; /* as written, trailing white space cut */
	int nr_preds;
	struct filter_pred prog[];
};

#endif
