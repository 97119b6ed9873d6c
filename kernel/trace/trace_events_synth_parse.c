/* The synthetic_events language: `name type field[; type field]...` (Linux 6.1 also takes the
 * fields without semicolons), types as Linux's synth_field_size() knows them, char[N] strings.
 * Pure text work: the kernel (trace_events_synth.c) and the fuzzer (tests/fuzz/fuzz_synth.c). */
#include "kernel/trace/trace_synth.h"
#include "kernel/trace/trace_entry.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

static const char *const err_text[] = {
	"Illegal name",
	"Command must be of the form: <name> field[;field] ...",
	"Command must be of the form: s or -:[synthetic/]<name> field[;field] ...",
	"Event already exists",
	"Too many fields",
	"Incomplete type",
	"Invalid type",
	"Invalid field",
	"Invalid array specification",
};

const char *synth_err_text(enum synth_err err)
{
	return err_text[err];
}

static int fail(struct synth_parse_err *e, enum synth_err err, const char *at)
{
	if (!e->set)
		*e = (struct synth_parse_err){ err, at, true };
	return -EINVAL;
}

/* --- types -------------------------------------------------------------------------------- */

static const struct {
	const char *type, *fmt;
	u8 size, is_signed;
} synth_types[] = {
	{ "s64", "%lld", 8, 1 }, { "u64", "%llu", 8, 0 },
	{ "s32", "%d", 4, 1 },	 { "u32", "%u", 4, 0 },
	{ "s16", "%d", 2, 1 },	 { "u16", "%u", 2, 0 },
	{ "s8", "%d", 1, 1 },	 { "u8", "%u", 1, 0 },
	{ "char", "%d", 1, 1 },	 { "unsigned char", "%u", 1, 0 },
	{ "int", "%d", 4, 1 },	 { "unsigned int", "%u", 4, 0 },
	{ "long", "%ld", 8, 1 }, { "unsigned long", "%lu", 8, 0 },
	{ "bool", "%d", 1, 1 },	 { "pid_t", "%d", 4, 1 },
	{ "gfp_t", "%x", 4, 0 },
};

static int type_index(const char *type)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(synth_types); i++)
		if (!strcmp(type, synth_types[i].type))
			return i;
	return -1;
}

/* char[N], 0 < N <= 256: its N; 0 for char[] (a dynamic string); -1 for anything else. */
static int string_size(const char *type)
{
	unsigned long n;
	char num[8];
	size_t len;

	if (strncmp(type, "char[", 5))
		return -1;
	len = strlen(type + 5);
	if (!len || type[5 + len - 1] != ']' || len - 1 > 3)
		return -1;
	memcpy(num, type + 5, len - 1);
	num[len - 1] = 0;
	if (!num[0])
		return 0;
	if (kstrtoul(num, 0, &n) || !n || n > STR_VAR_LEN_MAX)
		return -1;
	return n;
}

int synth_type_size(const char *type, bool *is_signed)
{
	int i = type_index(type);

	if (i < 0)
		return -1;
	*is_signed = synth_types[i].is_signed;
	return synth_types[i].size;
}

const char *synth_field_fmt(const struct synth_field *f)
{
	int i = type_index(f->type);

	return f->is_string ? "%s" : i >= 0 ? synth_types[i].fmt : "%llu";
}

bool synth_good_name(const char *s)
{
	if (!*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* `type name` or `unsigned type name` from the words at *w; the field filled, or an error logged. */
static int parse_field(char **w, int nw, int *used, struct synth_field *f,
		       struct synth_parse_err *e)
{
	const char *type = w[0], *name;
	char *bracket;
	int ti, n;

	if (!strcmp(type, "unsigned")) {
		if (nw < 3)
			return fail(e, SYNTH_ERR_INCOMPLETE_TYPE, type);
		snprintf(f->type, sizeof(f->type), "unsigned %s", w[1]);
		name = w[2];
		*used = 3;
	} else {
		if (nw < 2)
			return fail(e, SYNTH_ERR_INVALID_FIELD, type);
		strscpy(f->type, type, sizeof(f->type));
		name = w[1];
		*used = 2;
	}
	strscpy(f->name, name, sizeof(f->name));
	bracket = strchr(f->name, '[');
	if (bracket) { /* `char name[16]`: the array belongs to the type, as Linux reads it */
		strscpy(f->type + strlen(f->type), bracket, sizeof(f->type) - strlen(f->type));
		*bracket = 0;
	}
	if (!synth_good_name(f->name) || strlen(name) >= sizeof(f->name))
		return fail(e, SYNTH_ERR_BAD_NAME, name);
	ti = type_index(f->type);
	n = ti < 0 ? string_size(f->type) : 0;
	if (ti < 0 && n < 0)
		return fail(e, bracket ? SYNTH_ERR_INVALID_ARRAY_SPEC : SYNTH_ERR_INVALID_TYPE,
			    bracket ? name : type);
	f->is_string = ti < 0;
	f->is_dynamic = f->is_string && !n;
	if (f->is_dynamic) { /* the format file names it so; the listings leave the prefix out */
		memmove(f->type + 11, f->type, strlen(f->type) + 1);
		memcpy(f->type, "__data_loc ", 11);
	}
	f->size = f->is_dynamic ? 8 : f->is_string ? (unsigned int)n : synth_types[ti].size;
	/* Linux's synth_field_signed(): every type but u* and gfp_t, strings included */
	f->is_signed = f->is_string || synth_types[ti].is_signed;
	return 0;
}

/* Splits s at blanks in place: up to max words. */
static int split_words(char *s, char **w, int max)
{
	int n = 0;

	while (*s && n < max) {
		while (*s == ' ' || *s == '\t')
			*s++ = 0;
		if (!*s)
			break;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
	return n;
}

int synth_parse_fields(char *rest, struct synth_field *fields, unsigned int max, unsigned int *n,
		       unsigned int *rec_size, struct synth_parse_err *e)
{
	unsigned int off = sizeof(struct trace_entry);
	char *part, *w[8];
	int err;

	*n = 0;
	while ((part = rest)) {
		int nw, used = 0;
		char *semi = strchr(part, ';');
		rest = semi ? semi + 1 : NULL;
		if (semi)
			*semi = 0;
		nw = split_words(part, w, ARRAY_SIZE(w));
		for (int i = 0; i < nw; i += used) {
			if (*n == max)
				return fail(e, SYNTH_ERR_TOO_MANY_FIELDS, NULL);
			memset(&fields[*n], 0, sizeof(fields[*n]));
			err = parse_field(w + i, nw - i, &used, &fields[*n], e);
			if (err)
				return err;
			fields[*n].offset = off;
			off += fields[*n].is_string && !fields[*n].is_dynamic ? STR_VAR_LEN_MAX : 8;
			(*n)++;
		}
	}
	if (!*n)
		return fail(e, SYNTH_ERR_INVALID_CMD, NULL);
	*rec_size = off;
	return 0;
}
