/* A synthetic event's definition, `wakeup_latency u64 lat; pid_t pid; int prio`, as the parser
 * (trace_events_synth_parse.c, also fuzzed) hands it to trace_events_synth.c. Linux's name. */
#ifndef KERNEL_TRACE_TRACE_SYNTH_H
#define KERNEL_TRACE_TRACE_SYNTH_H

#include "lib/types.h"

#define SYNTH_SYSTEM "synthetic"
#define STR_VAR_LEN_MAX 256 /* a char[N] field's room in the record, as Linux's */

/* A char[] field (is_dynamic) is a u64 slot holding a __data_loc: its string's offset in the
 * record (low 16 bits) and length with the NUL (high 16), the bytes after the fixed fields. */
struct synth_field {
	char type[24], name[32];
	unsigned int size, offset; /* offset in the record */
	bool is_signed, is_string, is_dynamic;
};

/* Linux 6.1's synthetic_events errors, in its order and words. */
enum synth_err {
	SYNTH_ERR_BAD_NAME,
	SYNTH_ERR_INVALID_CMD,
	SYNTH_ERR_INVALID_DYN_CMD,
	SYNTH_ERR_EVENT_EXISTS,
	SYNTH_ERR_TOO_MANY_FIELDS,
	SYNTH_ERR_INCOMPLETE_TYPE,
	SYNTH_ERR_INVALID_TYPE,
	SYNTH_ERR_INVALID_FIELD,
	SYNTH_ERR_INVALID_ARRAY_SPEC,
};
const char *synth_err_text(enum synth_err err);

/* Why a definition was refused: the error and the text its caret points at (NULL: column 0). */
struct synth_parse_err {
	enum synth_err err;
	const char *at;
	bool set;
};

bool synth_good_name(const char *s);
/* A numeric field type's size and signedness ("pid_t": 4, signed); -1 for any other type. */
int synth_type_size(const char *type, bool *is_signed);
/* printf conversion for a field's type ("%llu", "%d", "%s"). */
const char *synth_field_fmt(const struct synth_field *f);
/* The fields after the name (cut in place), laid out from the end of the common fields: 0 and
 * *n fields and the record's size, or -EINVAL with *e filled. */
int synth_parse_fields(char *rest, struct synth_field *fields, unsigned int max, unsigned int *n,
		       unsigned int *rec_size, struct synth_parse_err *e);

#endif
