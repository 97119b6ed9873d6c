/* Event filters at run time: the compiled branch program walked for every record, never
 * allocating or recursing, stopping at the first predicate that decides. */
#include "kernel/trace/trace_events_filter.h"
#include "kernel/trace/trace_events_filter_prog.h"
#include "lib/compiler.h"
#include "lib/glob.h"
#include "lib/string.h"

static bool num_match(const struct filter_pred *pred, const u8 *field)
{
	u64 v = 0;
	s64 a, b;

	switch (pred->size) {
	case 1: {
		u8 x;

		__builtin_memcpy(&x, field, 1);
		v = pred->is_signed ? (u64)(s64)(s8)x : x;
		break;
	}
	case 2: {
		u16 x;

		__builtin_memcpy(&x, field, 2);
		v = pred->is_signed ? (u64)(s64)(s16)x : x;
		break;
	}
	case 4: {
		u32 x;

		__builtin_memcpy(&x, field, 4);
		v = pred->is_signed ? (u64)(s64)(s32)x : x;
		break;
	}
	case 8:
		__builtin_memcpy(&v, field, 8);
		break;
	}
	switch (pred->op) {
	case OP_EQ:
		return v == pred->val;
	case OP_NE:
		return v != pred->val;
	case OP_BAND:
		return (v & pred->val) != 0;
	}
	if (!pred->is_signed) {
		switch (pred->op) {
		case OP_LT:
			return v < pred->val;
		case OP_LE:
			return v <= pred->val;
		case OP_GT:
			return v > pred->val;
		default:
			return v >= pred->val;
		}
	}
	a = (s64)v;
	b = (s64)pred->val;
	switch (pred->op) {
	case OP_LT:
		return a < b;
	case OP_LE:
		return a <= b;
	case OP_GT:
		return a > b;
	default:
		return a >= b;
	}
}

/* Rare: a string with no NUL within its bounds, matched on (at most) its first 256 bytes. */
static noinline bool str_match_unterminated(const struct filter_pred *pred, const char *s, size_t n)
{
	char buf[MAX_FILTER_STR_VAL + 1];

	if (n > MAX_FILTER_STR_VAL)
		n = MAX_FILTER_STR_VAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return glob_kind_match(pred->glob, pred->needle, pred->needle_len, pred->pattern, buf);
}

/* s holds at most bound bytes: a char[N], or a __data_loc string whose length counts its NUL. */
static bool str_match(const struct filter_pred *pred, const char *s, size_t bound)
{
	size_t n = strnlen(s, bound);

	if (n == bound)
		return str_match_unterminated(pred, s, n);
	return glob_kind_match(pred->glob, pred->needle, pred->needle_len, pred->pattern, s);
}

static bool pred_match(const struct filter_pred *pred, const u8 *rec, u32 len)
{
	const char *s;
	u32 loc;
	s32 cpu;

	if (pred->kind == PRED_CPU) {
		cpu = filter_current_cpu();
		return num_match(pred, (const u8 *)&cpu);
	}
	if (pred->kind == PRED_COMM)
		return str_match(pred, filter_current_comm(), 16) ^ pred->not ;
	if ((u32)pred->offset + pred->size > len)
		return false;
	switch (pred->kind) {
	case PRED_NUM:
		return num_match(pred, rec + pred->offset);
	case PRED_STATIC_STRING: /* size 0: char[] to the end of the record (ftrace/print's buf) */
		return str_match(pred, (const char *)rec + pred->offset,
				 pred->size ?: len - pred->offset) ^
		       pred->not ;
	case PRED_DYN_STRING:
		__builtin_memcpy(&loc, rec + pred->offset, sizeof(loc));
		if ((loc & 0xffff) + (loc >> 16) > len)
			return false;
		return str_match(pred, (const char *)rec + (loc & 0xffff), loc >> 16) ^ pred->not ;
	case PRED_PTR_STRING:
		__builtin_memcpy(&s, rec + pred->offset, sizeof(s));
		if (!s)
			return false;
		return glob_kind_match(pred->glob, pred->needle, pred->needle_len, pred->pattern,
				       s) ^
		       pred->not ;
	default:
		return false;
	}
}

bool filter_match(const struct event_filter *f, const void *rec, u32 len)
{
	const struct filter_pred *pred;
	int i = 0;

	if (!f)
		return true;
	for (;;) {
		pred = &f->prog[i];
		i = pred_match(pred, rec, len) ? pred->on_true : pred->on_false;
		if (i < 0)
			return i == FILTER_ACCEPT;
	}
}
