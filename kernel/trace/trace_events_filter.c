/* Event filters: parse Linux's filter language against an event's fields into a branch program
 * (trace_events_filter_prog.h), which trace_events_filter_match.c runs on every record. */
/*
 * A filter such as `a == 1 && !(s ~ "k*" || b < 0)` becomes, once, an array of predicates in
 * the order they were written, each with two exits: where to go when it holds and where when it
 * does not. filter_match() walks that array; it never allocates, never recurses, and stops at
 * the first predicate that decides the answer:
 *
 *   idx  predicate     true ->    false ->
 *    0   a == 1        1          REJECT
 *    1   s ~ "k*"      REJECT     2          (the '!' swapped the exits of the group)
 *    2   b < 0         REJECT     ACCEPT
 *
 * Parsing follows Linux 6.1 (kernel/trace/trace_events_filter.c: calc_stack(),
 * predicate_parse(), parse_pred()) closely enough that the same text is refused with the same
 * error at the same caret position, quirks included:
 *  - quotes and parentheses are checked over the whole string before anything else;
 *  - most positions are one past the byte at fault (Linux passes the predicate's start + 1);
 *  - a trailing "&&" or "||" (with '!'s after it or not) is "Meaningless filter expression",
 *    the caret after the end;
 *  - string values must be quoted: a bare word is "Invalid value (did you forget quotes)?";
 *  - a number wider than its field is truncated to it (`u8_field == 256` tests for 0);
 *  - `~ "!pat"` is the negated glob, and a glob starting with a digit is compared literally.
 * Differences: at most FILTER_MAX_PREDS predicates and FILTER_MAX_DEPTH nested '(' (Linux has no
 * limit; here the parser recurses once per level); a field that cannot be read (outside
 * the record, a NULL string pointer) makes its predicate false whatever the operator.
 */
#include "kernel/trace/trace_events_filter.h"
#include "kernel/trace/trace_events_filter_prog.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "lib/glob.h"
#include "lib/printf.h"
#include "lib/string.h"

#define FILTER_MAX_PREDS 64
#define FILTER_MAX_DEPTH 32
#define MAX_NUM_LEN 23		/* Linux reads numbers into a char[24] */
#define TASK_COMM_LEN_FILTER 16 /* COMM compares like a char[16] field */

/* "<=" before "<" and ">=" before ">": the first prefix that matches wins. */
static const char *const op_text[NR_OPS] = { "~", "!=", "==", "<=", "<", ">=", ">", "&" };

static const char *const err_text[NR_FILT_ERRS] = {
	[FILT_ERR_NONE] = "No error",
	[FILT_ERR_INVALID_OP] = "Invalid operator",
	[FILT_ERR_TOO_MANY_OPEN] = "Too many '('",
	[FILT_ERR_TOO_MANY_CLOSE] = "Too few '('",
	[FILT_ERR_MISSING_QUOTE] = "Missing matching quote",
	[FILT_ERR_OPERAND_TOO_LONG] = "Operand too long",
	[FILT_ERR_EXPECT_STRING] = "Expecting string field",
	[FILT_ERR_EXPECT_DIGIT] = "Expecting numeric field",
	[FILT_ERR_ILLEGAL_FIELD_OP] = "Illegal operation for field type",
	[FILT_ERR_FIELD_NOT_FOUND] = "Field not found",
	[FILT_ERR_ILLEGAL_INTVAL] = "Illegal integer value",
	[FILT_ERR_BAD_SUBSYS_FILTER] = "Couldn't find or set field in one of a subsystem's events",
	[FILT_ERR_TOO_MANY_PREDS] = "Too many terms in predicate expression",
	[FILT_ERR_INVALID_FILTER] = "Meaningless filter expression",
	[FILT_ERR_IP_FIELD_ONLY] = "Only 'ip' field is supported for function trace",
	[FILT_ERR_INVALID_VALUE] = "Invalid value (did you forget quotes)?",
	[FILT_ERR_ERRNO] = "Error",
	[FILT_ERR_NO_FILTER] = "No filter found",
};

const char *filter_err_text(enum filter_err err)
{
	return (unsigned int)err < NR_FILT_ERRS ? err_text[err] : err_text[FILT_ERR_ERRNO];
}

/* ---- parsing ---------------------------------------------------------------------------- */

/*
 * The expression tree, kept only while compiling. AND and OR nodes hold any number of
 * children, chained right to left, so the code generator meets the last one first.
 */
enum node_type { NODE_PRED, NODE_AND, NODE_OR };

struct node {
	u8 type;
	u8 invert;
	s16 pred;    /* NODE_PRED: index into parser.preds */
	s16 child;   /* AND/OR: the rightmost child */
	s16 sibling; /* the child to this one's left */
};

#define NODE_EMPTY (-1) /* nothing before the end of the string */
#define NODE_ERR (-2)	/* refused; parser.pe says why */

struct parser {
	const char *s;
	int pos;
	const struct ftrace_event_field *fields;
	int nr_fields;
	struct filter_parse_error *pe;
	char *pool; /* the patterns, each NUL-terminated */
	int pool_used;
	int nr_preds, nr_nodes;
	struct filter_pred preds[FILTER_MAX_PREDS];
	struct node nodes[2 * FILTER_MAX_PREDS];
};

static int fail(struct parser *p, enum filter_err err, int pos)
{
	p->pe->err = err;
	p->pe->pos = pos;
	return NODE_ERR;
}

/*
 * Linux checks quotes and parentheses over the whole string first, so an unclosed '(' at the
 * end is what gets reported even when a field name before it is wrong too.
 */
static int check_balance(struct parser *p)
{
	const char *s = p->s;
	int i, depth = 0, last_quote = 0, pending = 0;
	bool has_term = false;
	char quote = 0;

	for (i = 0; s[i]; i++) {
		if (isspace(s[i]))
			continue;
		if (quote) {
			if (s[i] == quote)
				quote = 0;
			continue;
		}
		if (s[i] == '(') {
			depth++;
		} else if (s[i] == ')') {
			if (!depth)
				return fail(p, FILT_ERR_TOO_MANY_CLOSE, i);
			depth--;
		} else {
			if (s[i] == '\'' || s[i] == '"') {
				quote = s[i];
				last_quote = i;
			}
			has_term = true;
		}
	}
	if (quote)
		return fail(p, FILT_ERR_MISSING_QUOTE, last_quote);
	if (depth) {
		/* Blame the last '(' that nothing closes, walking back over quoted text. */
		while (i-- > 0) {
			if (quote) {
				if (s[i] == quote)
					quote = 0;
			} else if (s[i] == '\'' || s[i] == '"') {
				quote = s[i];
			} else if (s[i] == ')') {
				pending++;
			} else if (s[i] == '(') {
				if (!pending)
					return fail(p, FILT_ERR_TOO_MANY_OPEN, i);
				pending--;
			}
		}
		return fail(p, FILT_ERR_TOO_MANY_OPEN, 0);
	}
	/* Only blanks and parentheses: Linux refuses it with no particular message. */
	if (!has_term)
		return fail(p, FILT_ERR_ERRNO, 0);
	return 0;
}

/* Linux's generic fields, found when the event has none of the name (Linux's
 * trace_find_event_field() looks in the event first too). Offsets are unused: the kinds say. */
static const struct ftrace_event_field pseudo_fields[] = {
	{ "int", "CPU", 0, 4, 1, FILTER_OTHER },
	{ "int", "cpu", 0, 4, 1, FILTER_OTHER },
	{ "int", "common_cpu", 0, 4, 1, FILTER_OTHER },
	{ "char *", "COMM", 0, TASK_COMM_LEN_FILTER, 0, FILTER_STATIC_STRING },
	{ "char *", "comm", 0, TASK_COMM_LEN_FILTER, 0, FILTER_STATIC_STRING },
};

static const struct ftrace_event_field *lookup(const struct ftrace_event_field *fields, int n,
					       const char *name, int len)
{
	for (int i = 0; i < n; i++)
		if (!strncmp(fields[i].name, name, len) && fields[i].name[len] == '\0')
			return &fields[i];
	return NULL;
}

static const struct ftrace_event_field *find_field(struct parser *p, const char *name, int len)
{
	return lookup(p->fields, p->nr_fields, name, len)
		       ?: lookup(pseudo_fields, ARRAY_SIZE(pseudo_fields), name, len);
}

/* The predicate reads the CPU or the task instead of the record. */
static void set_pseudo(struct filter_pred *pred, const struct ftrace_event_field *field)
{
	if (field < pseudo_fields || field >= pseudo_fields + ARRAY_SIZE(pseudo_fields))
		return;
	pred->kind = field->kind == FILTER_OTHER ? PRED_CPU : PRED_COMM;
	pred->offset = 0;
}

/* Copy a quoted value into the pool and decide how it will be compared. */
static void set_pattern(struct parser *p, struct filter_pred *pred, const char *val, int len)
{
	char *pat = p->pool + p->pool_used;
	size_t n;

	/* Only a glob reads a leading '!' as "does not match". */
	if (pred->op == OP_GLOB && len && val[0] == '!') {
		pred->not = 1;
		val++;
		len--;
	}
	memcpy(pat, val, len);
	pat[len] = '\0';
	p->pool_used += len + 1;
	pred->pattern = pat;
	if (pred->op != OP_GLOB || isdigit(pat[0])) {
		pred->glob = GLOB_FULL;
		pred->needle = pat;
		pred->needle_len = len;
	} else {
		pred->glob = glob_classify(pat, &pred->needle, &n);
		pred->needle_len = n;
	}
}

/* Keep only the field's bits, as Linux's compare of (u8)val with a u8 field does. */
static void set_number(struct filter_pred *pred, const struct ftrace_event_field *field, u64 v)
{
	unsigned int bits = field->size * 8;

	if (field->size != 1 && field->size != 2 && field->size != 4 && field->size != 8) {
		pred->kind = PRED_FALSE; /* Linux gives such a field a predicate that never holds */
		return;
	}
	pred->kind = PRED_NUM;
	pred->size = field->size;
	pred->is_signed = field->is_signed;
	if (bits < 64) {
		v &= (1ull << bits) - 1;
		if (field->is_signed && (v >> (bits - 1)))
			v |= ~0ull << bits;
	}
	pred->val = v;
}

/*
 * `field op value` at p->pos. Error positions are what Linux reports: one past the byte at
 * fault, except for a bad number (one past where it starts).
 */
static int parse_pred(struct parser *p)
{
	const struct ftrace_event_field *field;
	struct filter_pred *pred = &p->preds[p->nr_preds];
	const char *s = p->s, *end;
	int i = p->pos, name = i, op, val;
	char num[MAX_NUM_LEN + 1];
	int err;

	while (isalnum(s[i]) || s[i] == '_')
		i++;
	if (i == name) /* Linux returns a bare -1 here: logged as "Error" at 0 */
		return fail(p, FILT_ERR_ERRNO, 0);
	field = find_field(p, s + name, i - name);
	if (!field)
		return fail(p, FILT_ERR_FIELD_NOT_FOUND, i + 1);
	while (isspace(s[i]))
		i++;
	for (op = 0; op < NR_OPS; op++) {
		if (!strncmp(s + i, op_text[op], strlen(op_text[op])))
			break;
	}
	if (op == NR_OPS)
		return fail(p, FILT_ERR_INVALID_OP, i + 1);
	i += strlen(op_text[op]);
	while (isspace(s[i]))
		i++;
	val = i;

	memset(pred, 0, sizeof(*pred));
	pred->op = op;
	pred->offset = field->offset;
	if (s[i] == '\'' || s[i] == '"') {
		if (op != OP_EQ && op != OP_NE && op != OP_GLOB)
			return fail(p, FILT_ERR_ILLEGAL_FIELD_OP, i + 1);
		if (field->kind == FILTER_OTHER)
			return fail(p, FILT_ERR_EXPECT_DIGIT, i + 1);
		end = strchr(s + i + 1, s[i]);
		if (!end)
			return fail(p, FILT_ERR_MISSING_QUOTE, i + strlen(s + i) + 1);
		if (end - (s + i + 1) >= MAX_FILTER_STR_VAL)
			return fail(p, FILT_ERR_OPERAND_TOO_LONG, end - s + 1);
		pred->not = op == OP_NE;
		set_pattern(p, pred, s + i + 1, end - (s + i + 1));
		switch (field->kind) {
		case FILTER_STATIC_STRING:
			pred->kind = PRED_STATIC_STRING;
			pred->size = field->size;
			break;
		case FILTER_DYN_STRING:
			pred->kind = PRED_DYN_STRING;
			pred->size = sizeof(u32);
			break;
		default:
			pred->kind = PRED_PTR_STRING;
			pred->size = sizeof(const char *);
			break;
		}
		i = end - s + 1;
	} else if (isdigit(s[i]) || s[i] == '-') {
		if (field->kind != FILTER_OTHER)
			return fail(p, FILT_ERR_EXPECT_STRING, i + 1);
		if (op == OP_GLOB)
			return fail(p, FILT_ERR_ILLEGAL_FIELD_OP, i + 1);
		if (s[i] == '-')
			i++;
		while (isalnum(s[i]))
			i++;
		if (i - val > MAX_NUM_LEN)
			return fail(p, FILT_ERR_OPERAND_TOO_LONG, i + 1);
		memcpy(num, s + val, i - val);
		num[i - val] = '\0';
		if (field->is_signed) {
			long long v;

			err = kstrtoll(num, 0, &v);
			if (!err)
				set_number(pred, field, (u64)v);
		} else {
			unsigned long long v;

			err = kstrtoull(num, 0, &v);
			if (!err)
				set_number(pred, field, v);
		}
		if (err)
			return fail(p, FILT_ERR_ILLEGAL_INTVAL, val + 1);
	} else {
		return fail(p, FILT_ERR_INVALID_VALUE, i + 1);
	}
	set_pseudo(pred, field);
	p->nr_preds++;
	p->pos = i;
	return 0;
}

static int new_node(struct parser *p, enum node_type type, int pred)
{
	struct node *n;

	if (p->nr_nodes == (int)ARRAY_SIZE(p->nodes))
		return fail(p, FILT_ERR_TOO_MANY_PREDS, p->pos);
	n = &p->nodes[p->nr_nodes];
	n->type = type;
	n->invert = 0;
	n->pred = pred;
	n->child = n->sibling = -1;
	return p->nr_nodes++;
}

/* After a predicate or a ')', only "&&", "||", ')' or the end may follow. */
static bool check_connective(struct parser *p)
{
	const char *s = p->s;

	while (isspace(s[p->pos]))
		p->pos++;
	s += p->pos;
	if (!s[0] || s[0] == ')' || ((s[0] == '&' || s[0] == '|') && s[1] == s[0]))
		return true;
	fail(p, FILT_ERR_TOO_MANY_PREDS, p->pos);
	return false;
}

static bool at_pair(struct parser *p, char c)
{
	while (isspace(p->s[p->pos]))
		p->pos++;
	return p->s[p->pos] == c && p->s[p->pos + 1] == c;
}

static int parse_list(struct parser *p, int depth, enum node_type type);

/* '!'s, then a predicate or a parenthesised expression. */
static int parse_unary(struct parser *p, int depth)
{
	const char *s = p->s;
	int invert = 0, node, open;

	for (;;) {
		while (isspace(s[p->pos]))
			p->pos++;
		/* "!=" and "!~" start a (bad) predicate, not a negation */
		if (s[p->pos] != '!' || s[p->pos + 1] == '=' || s[p->pos + 1] == '~')
			break;
		invert ^= 1;
		p->pos++;
	}
	if (!s[p->pos])
		return NODE_EMPTY;
	if (s[p->pos] == '(') {
		open = p->pos++;
		if (depth == FILTER_MAX_DEPTH)
			return fail(p, FILT_ERR_TOO_MANY_OPEN, open);
		node = parse_list(p, depth + 1, NODE_OR);
		if (node == NODE_ERR)
			return node;
		/* check_balance() has made sure the ')' is there */
		if (node == NODE_EMPTY || s[p->pos] != ')')
			return fail(p, FILT_ERR_TOO_MANY_OPEN, open);
		p->pos++;
	} else {
		if (p->nr_preds == FILTER_MAX_PREDS)
			return fail(p, FILT_ERR_TOO_MANY_PREDS, p->pos);
		if (parse_pred(p))
			return NODE_ERR;
		node = new_node(p, NODE_PRED, p->nr_preds - 1);
		if (node == NODE_ERR)
			return node;
	}
	p->nodes[node].invert ^= invert;
	return check_connective(p) ? node : NODE_ERR;
}

/* Operands joined by "||" (each an AND list), or by "&&" (each a unary): && binds tighter. */
static int parse_list(struct parser *p, int depth, enum node_type type)
{
	char c = type == NODE_OR ? '|' : '&';
	int first, group, sub;

	first = type == NODE_OR ? parse_list(p, depth, NODE_AND) : parse_unary(p, depth);
	if (first < 0 || !at_pair(p, c))
		return first;
	group = new_node(p, type, -1);
	if (group == NODE_ERR)
		return group;
	p->nodes[first].sibling = -1;
	p->nodes[group].child = first;
	while (at_pair(p, c)) {
		p->pos += 2;
		sub = type == NODE_OR ? parse_list(p, depth, NODE_AND) : parse_unary(p, depth);
		if (sub == NODE_ERR)
			return sub;
		if (sub == NODE_EMPTY) /* a trailing "&&" or "||": Linux 6.1 refuses it */
			return fail(p, FILT_ERR_INVALID_FILTER, strlen(p->s));
		p->nodes[sub].sibling = p->nodes[group].child;
		p->nodes[group].child = sub;
	}
	return p->nodes[group].child == first ? first : group; /* one operand needs no group */
}

/*
 * Lay out node's predicates so that the subtree leads to t when it holds and to f when not.
 * The array is filled from the end, children last to first, so each operand's successor is
 * already placed when the operand is: program order ends up being text order.
 */
static int emit(struct parser *p, struct filter_pred *prog, int *next, int node, int t, int f)
{
	const struct node *n = &p->nodes[node];
	int c, swap;

	if (n->invert) {
		swap = t;
		t = f;
		f = swap;
	}
	if (n->type == NODE_PRED) {
		struct filter_pred *pred = &prog[--*next];

		*pred = p->preds[n->pred];
		pred->on_true = t;
		pred->on_false = f;
		return *next;
	}
	for (c = n->child; c >= 0; c = p->nodes[c].sibling) {
		if (n->type == NODE_AND)
			t = emit(p, prog, next, c, t, f);
		else
			f = emit(p, prog, next, c, t, f);
	}
	return n->type == NODE_AND ? t : f;
}

int filter_compile(const struct ftrace_event_field *fields, int nr_fields, const char *str,
		   struct event_filter **out, struct filter_parse_error *pe)
{
	struct filter_parse_error local;
	struct event_filter *f;
	struct parser *p;
	size_t len = strlen(str);
	char *text, *fstr;
	int root, next, i, ret = -EINVAL;

	if (!pe)
		pe = &local;
	pe->err = FILT_ERR_NONE;
	pe->pos = 0;
	/* What Linux's strstrip() leaves of a write: leading blanks stay, positions count them. */
	while (len && isspace(str[len - 1]))
		len--;

	/* The text and a pool for the patterns (never longer than the text) ride along. */
	p = kmalloc(sizeof(*p) + 2 * (len + 1));
	if (!p)
		goto nomem;
	text = (char *)(p + 1);
	memcpy(text, str, len);
	text[len] = '\0';
	p->s = text;
	p->pos = 0;
	p->fields = fields;
	p->nr_fields = nr_fields;
	p->pe = pe;
	p->pool = text + len + 1;
	p->pool_used = 0;
	p->nr_preds = p->nr_nodes = 0;

	if (check_balance(p))
		goto out;
	root = parse_list(p, 0, NODE_OR);
	if (root == NODE_ERR)
		goto out;
	if (root == NODE_EMPTY) { /* nothing but '!'s */
		fail(p, FILT_ERR_NO_FILTER, len);
		goto out;
	}
	if (text[p->pos]) { /* a ')' too many; check_balance() has caught it already */
		fail(p, FILT_ERR_TOO_MANY_CLOSE, p->pos + 1);
		goto out;
	}

	f = kmalloc(sizeof(*f) + p->nr_preds * sizeof(f->prog[0]) + len + 1 + p->pool_used);
	if (!f) {
		kfree(p);
		goto nomem;
	}
	f->nr_preds = p->nr_preds;
	fstr = (char *)&f->prog[f->nr_preds];
	memcpy(fstr, text, len + 1);
	memcpy(fstr + len + 1, p->pool, p->pool_used);
	f->string = fstr;
	next = f->nr_preds;
	emit(p, f->prog, &next, root, FILTER_ACCEPT, FILTER_REJECT);
	for (i = 0; i < f->nr_preds; i++) {
		struct filter_pred *pred = &f->prog[i];

		if (pred->pattern) {
			pred->needle = fstr + len + 1 + (pred->needle - p->pool);
			pred->pattern = fstr + len + 1 + (pred->pattern - p->pool);
		}
	}
	*out = f;
	ret = 0;
out:
	kfree(p);
	return ret;
nomem:
	pe->err = FILT_ERR_ERRNO;
	pe->pos = 0;
	return -ENOMEM;
}

void filter_free(struct event_filter *f)
{
	kfree(f);
}

const char *filter_string(const struct event_filter *f)
{
	return f->string;
}
