/* Probe arguments' types: the table of Linux's names, sizes and formats, and the two suffixes
 * a type may carry, an array's `[N]` and a bitfield's `b<width>@<offset>/<container>`; and the
 * entry arguments a return probe's `$argN` reads (kept at the entry, one word each).
 *
 *   +0(%di):u32[4]     four u32 from the address in di: field "u32[4]", printed {1,2,3,4}
 *   +0(%di):b4@2/32    bits 2..5 of the u32 at di, printed as a u32 (%u)
 *   %ip:symstr         the text of the symbol ("vfs_read+0x0/0x60") stored, not the address
 *
 * Linux: kernel/trace/trace_probe.c (probe_fetch_types[], find_fetch_type(),
 * __parse_bitfield_probe_arg(), the array part of traceprobe_parse_probe_arg_body(),
 * __store_entry_arg()).
 */
#include "kernel/trace/trace_probe.h"
#include "lib/compiler.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "lib/string.h"

/* The types, Linux's names, sizes and print formats. x64 is the default (a 64-bit kernel's). */
static const struct fetch_type probe_fetch_types[] = {
	{ "string", 4, 1, 0, "\\\"%s\\\"", "__data_loc char[]" },
	{ "ustring", 4, 1, 0, "\\\"%s\\\"", "__data_loc char[]" },
	{ "symstr", 4, 1, 0, "\\\"%s\\\"", "__data_loc char[]" },
	{ "u8", 1, 0, 0, "%u", "u8" },
	{ "u16", 2, 0, 0, "%u", "u16" },
	{ "u32", 4, 0, 0, "%u", "u32" },
	{ "u64", 8, 0, 0, "%Lu", "u64" },
	{ "s8", 1, 1, 0, "%d", "s8" },
	{ "s16", 2, 1, 0, "%d", "s16" },
	{ "s32", 4, 1, 0, "%d", "s32" },
	{ "s64", 8, 1, 0, "%Ld", "s64" },
	{ "x8", 1, 0, 1, "0x%x", "u8" },
	{ "x16", 2, 0, 1, "0x%x", "u16" },
	{ "x32", 4, 0, 1, "0x%x", "u32" },
	{ "x64", 8, 0, 1, "0x%Lx", "u64" },
	{ "symbol", 8, 0, 0, "%pS", "u64" },
	{ NULL },
};

const struct fetch_type *find_fetch_type(const char *name)
{
	unsigned long bits;

	if (!name)
		name = "x64";
	if (*name == 'b') { /* a bitfield is read, stored and printed as its container */
		name = strchr(name, '/');
		if (!name || kstrtoul(name + 1, 0, &bits))
			return NULL;
		switch (bits) {
		case 8:
			return find_fetch_type("u8");
		case 16:
			return find_fetch_type("u16");
		case 32:
			return find_fetch_type("u32");
		case 64:
			return find_fetch_type("u64");
		}
		return NULL;
	}
	for (const struct fetch_type *t = probe_fetch_types; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/* The digits at *s, base 0 as strtoul reads them, *s moved past them (Linux uses
 * simple_strtoul() here: "b4x@0/8" is refused at the 'x', not read as 4). */
static unsigned long read_number(const char **s)
{
	unsigned long v = 0, base = 10;
	const char *p = *s;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit(p[2])) {
		base = 16;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	for (; isxdigit(*p); p++) {
		unsigned long d = isdigit(*p) ? *p - '0' : (*p | 0x20) - 'a' + 10;

		if (d >= base)
			break;
		v = v * base + d;
	}
	*s = p;
	return v;
}

int parse_bitfield_probe_arg(const char *bf, const struct fetch_type *t, struct fetch_insn **pcode)
{
	struct fetch_insn *code = *pcode;
	unsigned long width, offset, bits = t->size * 8;
	const char *p = bf + 1, *start;

	if (*bf != 'b')
		return 0;
	width = read_number(&p);
	if (!width || *p != '@')
		return -EINVAL;
	start = ++p;
	offset = read_number(&p);
	if (p == start || *p != '/')
		return -EINVAL;
	if ((++code)->op != FETCH_OP_NOP)
		return -EINVAL;
	*pcode = code;
	code->op = FETCH_OP_MOD_BF;
	code->size = t->size;
	/* left to drop the bits above the field, right to drop those below it */
	code->param = (bits - width - offset) | (bits - width) << 8;
	return bits < width + offset ? -EINVAL : 0;
}

int parse_array_suffix(char *t, unsigned int *count, int *err_offs, enum probe_err *err)
{
	char *open = strchr(t, '['), *close;

	*count = 0;
	if (!open)
		return 0;
	*open++ = '\0';
	close = strchr(open, ']');
	if (!close) {
		*err_offs = open + strlen(open) - t;
		*err = TP_ERR_ARRAY_NO_CLOSE;
		return -EINVAL;
	}
	if (close[1]) {
		*err_offs = close + 1 - t;
		*err = TP_ERR_BAD_ARRAY_SUFFIX;
		return -EINVAL;
	}
	*close = '\0';
	*err_offs = open - t;
	if (kstrtouint(open, 0, count) || !*count) {
		*err = TP_ERR_BAD_ARRAY_NUM;
		return -EINVAL;
	}
	if (*count > MAX_ARRAY_LEN) {
		*err = TP_ERR_ARRAY_TOO_BIG;
		return -EINVAL;
	}
	return 0;
}

/* TYPE[N] off arg: the type (after the ':'), its count, each error where Linux puts it. */
int traceprobe_parse_type(char *arg, char **pt, struct probe_arg *parg, unsigned int flags,
			  int offset, struct probe_log *log)
{
	char *t = strchr(arg, ':');
	enum probe_err err;
	int offs;

	if (t) {
		*t++ = '\0';
		if (parse_array_suffix(t, &parg->count, &offs, &err))
			return probe_log_err(log, offset + (t - arg) + offs, err), -EINVAL;
	}
	*pt = t;
	if (!(flags & TPARG_FL_TPOINT) &&
	    (!strcmp(arg, "$comm") || !strcmp(arg, "$COMM") || !strncmp(arg, "\\\"", 2))) {
		if (parg->count || (t && strcmp(t, "string")))
			return -EINVAL; /* Linux 6.1 refuses this without a word in error_log */
		parg->type = find_fetch_type("string");
	} else {
		parg->type = find_fetch_type(t);
	}
	if (!parg->type)
		return probe_log_err(log, offset + (t ? t - arg : 0), TP_ERR_BAD_TYPE), -EINVAL;
	return 0;
}

/* The steps after the store: a bitfield's shifts, an array's loop (Linux's order and carets). */
int traceprobe_add_modifiers(struct probe_arg *parg, struct fetch_insn **pcode, const char *t,
			     int type_pos, int offset, struct probe_log *log)
{
	struct fetch_insn *code = *pcode, *store = code;

	if (t && parse_bitfield_probe_arg(t, parg->type, &code))
		return probe_log_err(log, type_pos, TP_ERR_BAD_BITFIELD), -EINVAL;
	if (parg->count) {
		if (store->op != FETCH_OP_ST_MEM && store->op != FETCH_OP_ST_STRING)
			return probe_log_err(log, type_pos, TP_ERR_BAD_STRING), -EINVAL;
		if ((++code)->op != FETCH_OP_NOP)
			return probe_log_err(log, offset, TP_ERR_TOO_MANY_OPS), -EINVAL;
		code->op = FETCH_OP_LP_ARRAY;
		code->param = parg->count;
	}
	*pcode = code;
	return 0;
}

/* Linux's trace_probe_compare_arg_type(): 0, or the 1-based index of the first argument whose
 * name or type differs (one past the shorter list when only the counts differ). */
static int compare_arg_type(const struct trace_probe *a, const struct trace_probe *b)
{
	if (a->nr_args != b->nr_args)
		return MIN(a->nr_args, b->nr_args) + 1;
	for (int i = 0; i < a->nr_args; i++)
		if (a->args[i].type != b->args[i].type || a->args[i].count != b->args[i].count ||
		    strcmp(a->args[i].name, b->args[i].name))
			return i + 1;
	return 0;
}

int traceprobe_check_append(bool is_return, const struct trace_probe *tp, bool ev_return,
			    const struct trace_probe *ev_tp, struct probe_log *log)
{
	int i;

	log->index = 0;
	if (is_return != ev_return)
		return probe_log_err(log, 0, TP_ERR_DIFF_PROBE_TYPE), -EEXIST;
	i = compare_arg_type(tp, ev_tp);
	if (!i)
		return 0;
	log->index = i + 1; /* argv[2] is the first argument */
	return probe_log_err(log, 0, TP_ERR_DIFF_ARG_TYPE), -EEXIST;
}

/* A return probe's $argN: its entry keeps the argument (once for every use), the exit reads it
 * back (Linux's __store_entry_arg()). */
int traceprobe_keep_entry_arg(struct trace_probe *tp, struct fetch_insn *code,
			      struct probe_log *log)
{
	int slot = 0;

	while (slot < tp->nr_entry_args && tp->entry_arg[slot] != code->param)
		slot++;
	if (slot == MAX_ENTRY_ARGS)
		return probe_log_err(log, 0, TP_ERR_TOO_MANY_EARGS), -E2BIG;
	if (slot == tp->nr_entry_args)
		tp->entry_arg[tp->nr_entry_args++] = code->param;
	code->op = FETCH_OP_EDATA;
	code->param = slot;
	return 0;
}
