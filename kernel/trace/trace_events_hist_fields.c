/* The hist trigger's fields: keys, values and variables, each an event field with its modifier
 * (`call_site.sym`, `lat.buckets=10`), a pseudo-field (common_timestamp, common_cpu, stacktrace),
 * a `$reference` or an expression of two of them; then the sort keys and the map they need. */
#include "kernel/trace/trace_events_hist.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"

void hist_field_free(struct hist_field *hf)
{
	if (!hf)
		return;
	hist_field_free(hf->operands[0]);
	hist_field_free(hf->operands[1]);
	kfree(hf->var_name);
	kfree(hf->ref_name);
	kfree(hf->ref_system);
	kfree(hf->ref_event);
	kfree(hf);
}

struct hist_field *hist_field_alloc(unsigned long flags)
{
	struct hist_field *hf = kzalloc(sizeof(*hf));

	if (hf) {
		hf->flags = flags;
		hf->size = 8;
		hf->var_idx = -1;
	}
	return hf;
}

static const struct ftrace_event_field *find_event_field(struct hist_parse_ctx *ctx,
							 const char *name)
{
	for (int i = 0; i < ctx->nr_fields; i++)
		if (!strcmp(ctx->fields[i].name, name))
			return &ctx->fields[i];
	return NULL;
}

static const struct {
	const char *name;
	unsigned long flag;
} modifiers[] = {
	{ "hex", HIST_FIELD_FL_HEX },
	{ "sym", HIST_FIELD_FL_SYM },
	{ "symXoffset", HIST_FIELD_FL_SYM_OFFSET },
	{ "execname", HIST_FIELD_FL_EXECNAME },
	{ "syscall", HIST_FIELD_FL_SYSCALL },
	{ "log2", HIST_FIELD_FL_LOG2 },
	{ "usecs", HIST_FIELD_FL_TIMESTAMP_USECS },
	{ "percent", HIST_FIELD_FL_PERCENT },
	{ "graph", HIST_FIELD_FL_GRAPH },
};

/* `name.modifier` or `name.buckets=N`: one field of the event (or a pseudo-field). */
static struct hist_field *parse_field(struct hist_parse_ctx *ctx, char *str, unsigned long flags)
{
	char *name = str, *mod = strchr(str, '.');
	const struct ftrace_event_field *field = NULL;
	unsigned long buckets = 0;
	struct hist_field *hf;

	if (mod) {
		unsigned int i;
		*mod++ = 0;
		for (i = 0; i < ARRAY_SIZE(modifiers) && strcmp(mod, modifiers[i].name); i++)
			;
		/* .percent and .graph are for values only: not keys, not variables */
		if (i < ARRAY_SIZE(modifiers) &&
		    (modifiers[i].flag != HIST_FIELD_FL_EXECNAME || !strcmp(name, "common_pid")) &&
		    !((modifiers[i].flag & (HIST_FIELD_FL_PERCENT | HIST_FIELD_FL_GRAPH)) &&
		      (flags & (HIST_FIELD_FL_KEY | HIST_FIELD_FL_VAR)))) {
			flags |= modifiers[i].flag;
		} else if (!strncmp(mod, "bucket", 6)) {
			char *n = mod + 6 + (mod[6] == 's');
			if (*n != '=' || kstrtoul(n + 1, 0, &buckets) || !buckets)
				goto bad_mod;
			flags |= HIST_FIELD_FL_BUCKET;
		} else {
			goto bad_mod;
		}
	}
	if (!strcmp(name, "common_timestamp")) {
		flags |= HIST_FIELD_FL_TIMESTAMP;
		ctx->timestamps = true;
	} else if (!strcmp(name, "common_cpu") || !strcmp(name, "cpu") || !strcmp(name, "CPU")) {
		field = find_event_field(ctx, name); /* an event's own `cpu` field wins */
		if (!field)
			flags |= HIST_FIELD_FL_CPU;
	} else {
		field = find_event_field(ctx, name);
		/* a char[] of no size (ftrace/print's buf) runs to the record's end: a string */
		if (!field || (!field->size && field->kind != FILTER_STATIC_STRING)) {
			hist_err(ctx, HIST_ERR_FIELD_NOT_FOUND, name);
			return NULL;
		}
	}
	/* A modifier on a type it cannot apply to (Linux's create_hist_field() checks). */
	if (field && field->kind != FILTER_OTHER &&
	    (flags & (HIST_FIELD_FL_HEX | HIST_FIELD_FL_SYM | HIST_FIELD_FL_SYM_OFFSET |
		      HIST_FIELD_FL_SYSCALL | HIST_FIELD_FL_LOG2 | HIST_FIELD_FL_BUCKET)))
		goto bad_mod;
	if ((flags & HIST_FIELD_FL_TIMESTAMP_USECS) && !(flags & HIST_FIELD_FL_TIMESTAMP))
		goto bad_mod;
	hf = hist_field_alloc(flags);
	if (!hf)
		return NULL;
	hf->field = field;
	hf->buckets = buckets;
	if (field) {
		hf->is_signed = field->is_signed;
		if (field->kind != FILTER_OTHER) {
			hf->flags |= HIST_FIELD_FL_STRING;
			hf->size = field->kind == FILTER_STATIC_STRING && field->size
					   ? field->size
					   : HIST_STRING_MAX;
		}
	}
	return hf;
bad_mod:
	hist_err(ctx, HIST_ERR_BAD_FIELD_MODIFIER, mod);
	return NULL;
}

struct hist_field *hist_find_own_var(struct hist_trigger_data *hd, const char *name)
{
	for (unsigned int i = 0; i < hd->n_fields; i++)
		if (hd->fields[i] && hd->fields[i]->var_name &&
		    !strcmp(hd->fields[i]->var_name, name))
			return hd->fields[i];
	return NULL;
}

/* `$var` or `system.event.$var`: a variable of this histogram or of another event's (Linux's
 * parse_var_ref()); the fully qualified form names the event whose histogram defines it. */
static struct hist_field *parse_var_ref(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
					const char *system, const char *event, const char *name)
{
	struct hist_field *own = NULL, *hf;
	struct hist_trigger_data *target = hd;
	bool here =
		!system || (!strcmp(system, hd->system ?: "") && !strcmp(event, hd->event ?: ""));
	int idx = -1;

	if (here && (own = hist_find_own_var(hd, name)))
		idx = own->var_idx;
	if (!own && ctx->find_var)
		target = ctx->find_var(ctx, system, event, name, &idx, hd);
	if (!target || idx < 0) {
		hist_err(ctx, HIST_ERR_VAR_NOT_FOUND, name);
		return NULL;
	}
	if (hd->n_var_refs == HIST_VAR_REFS_MAX) {
		hist_err(ctx, HIST_ERR_TOO_MANY_VARS, name);
		return NULL;
	}
	hf = hist_field_alloc(HIST_FIELD_FL_VAR_REF);
	if (!hf || !(hf->ref_name = hist_kstrdup(name))) {
		hist_field_free(hf);
		return NULL;
	}
	hf->ref_hist = target;
	hf->ref_var_idx = idx;
	hf->ref_slot = hd->n_var_refs;
	hd->var_refs[hd->n_var_refs++] = hf;
	if (!own)
		own = hist_find_own_var(target, name);
	if (own) /* a timestamp keeps its units through the variable */
		hf->flags |= own->flags & HIST_FIELD_FL_TIMESTAMP_USECS;
	return hf;
}

/* `system.event.$var` cut into its parts; anything else is left whole (*system NULL). */
static char *split_qualified(char *str, char **system, char **event)
{
	char *dot1 = strchr(str, '.'), *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;

	*system = *event = NULL;
	if (!dot2 || dot2[1] != '$')
		return str;
	*dot1 = *dot2 = 0;
	*system = str;
	*event = dot1 + 1;
	return dot2 + 1;
}

static struct hist_field *parse_atom(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
				     char *str, unsigned long flags)
{
	struct hist_field *hf;

	if (*str == '$') {
		/* A variable of this trigger that is just a field stands for the field (Linux's
		 * local_field_var_ref(): `keys=$saved_pid:saved_pid=pid` keys on pid). */
		struct hist_field *own = hist_find_own_var(hd, str + 1);
		if (own && own->field &&
		    !(own->flags & (HIST_FIELD_FL_EXPR | HIST_FIELD_FL_VAR_REF))) {
			char name[64];
			strscpy(name, own->field->name, sizeof(name));
			return parse_field(ctx, name, flags);
		}
		return parse_var_ref(ctx, hd, NULL, NULL, str + 1);
	}
	if (strstr(str, ".$")) {
		char *system, *event, *var = split_qualified(str, &system, &event);
		if (system)
			return parse_var_ref(ctx, hd, system, event, var + 1);
	}
	if (*str >= '0' && *str <= '9') {
		hf = hist_field_alloc(HIST_FIELD_FL_CONST);
		if (hf && kstrtoull(str, 0, &hf->constant)) {
			hist_err(ctx, HIST_ERR_EXPECT_NUMBER, str);
			hist_field_free(hf);
			return NULL;
		}
		return hf;
	}
	return parse_field(ctx, str, flags);
}

u64 hist_expr_op(enum field_op_id op, u64 a, u64 b)
{
	switch (op) {
	case FIELD_OP_PLUS:
		return a + b;
	case FIELD_OP_MINUS:
		return a - b;
	case FIELD_OP_MULT:
		return a * b;
	case FIELD_OP_DIV:
		return b ? a / b : (u64)-1;
	case FIELD_OP_UNARY_MINUS:
		return -a;
	default:
		return 0;
	}
}

/*
 * The operator an expression splits at (Linux's contains_operator()): + and - bind last, so the
 * rightmost of them is the root and 16-8-4 is (16-8)-4; only then the rightmost * or /. A '-'
 * that opens the string is a unary minus.
 */
static enum field_op_id root_operator(char *str, char **sep)
{
	char *minus = strrchr(str, '-'), *plus = strrchr(str, '+');
	char *div = strrchr(str, '/'), *mult = strrchr(str, '*');

	if (minus && minus == str) {
		*sep = minus;
		return FIELD_OP_UNARY_MINUS;
	}
	if (plus || minus) {
		*sep = plus > minus ? plus : minus;
		return plus > minus ? FIELD_OP_PLUS : FIELD_OP_MINUS;
	}
	*sep = mult > div ? mult : div;
	if (div || mult)
		return mult > div ? FIELD_OP_MULT : FIELD_OP_DIV;
	return FIELD_OP_NONE;
}

static struct hist_field *malformed(struct hist_parse_ctx *ctx)
{
	ctx->malformed = true;
	return NULL;
}

/* `-(expr)`: the parentheses are required, and nothing may follow them. */
static struct hist_field *parse_unary(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
				      char *str, unsigned long flags, unsigned int *n_subexprs)
{
	struct hist_field *expr, *a;
	char *close;

	if (++*n_subexprs > HIST_SUBEXPRS_MAX) {
		hist_err(ctx, HIST_ERR_TOO_MANY_SUBEXPR, str);
		return NULL;
	}
	if (str[1] != '(')
		return malformed(ctx);
	str += 2;
	close = strrchr(str, ')');
	if (!close)
		return malformed(ctx);
	if (close[1]) {
		hist_err(ctx, HIST_ERR_UNARY_MINUS_SUBEXPR, str);
		return NULL;
	}
	expr = hist_field_alloc(HIST_FIELD_FL_EXPR | (flags & HIST_FIELD_FL_VAR));
	if (!expr)
		return NULL;
	expr->op = FIELD_OP_UNARY_MINUS;
	*close = 0;
	a = expr->operands[0] = hist_parse_expr(ctx, hd, str, 0, n_subexprs);
	*close = ')';
	if (!a || !(expr->ref_name = hist_kstrdup(str - 2)))
		goto fail;
	if (a->flags & HIST_FIELD_FL_STRING) {
		hist_err(ctx, HIST_ERR_INVALID_STR_OPERAND, str);
		goto fail;
	}
	expr->flags |= a->flags & (HIST_FIELD_FL_TIMESTAMP | HIST_FIELD_FL_TIMESTAMP_USECS);
	expr->is_signed = a->is_signed;
	return expr;
fail:
	hist_field_free(expr);
	return NULL;
}

/*
 * An expression of fields, $references and numbers with + - * / (Linux's parse_expr()): split
 * at its root operator, each side parsed the same way, at most three operators in all. Two
 * numbers fold into one at once (`x=16-8-4-2` is the constant 2, and lists as `x=2`); a constant
 * divisor of zero is refused here rather than at every event.
 */
struct hist_field *hist_parse_expr(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
				   char *str, unsigned long flags, unsigned int *n_subexprs)
{
	struct hist_field *expr, *a, *b;
	enum field_op_id op;
	char *sep, *rhs;

	if (*n_subexprs > HIST_SUBEXPRS_MAX) {
		hist_err(ctx, HIST_ERR_TOO_MANY_SUBEXPR, str);
		return NULL;
	}
	op = root_operator(str, &sep);
	if (op == FIELD_OP_NONE)
		return parse_atom(ctx, hd, str, flags);
	if (op == FIELD_OP_UNARY_MINUS)
		return parse_unary(ctx, hd, str, flags, n_subexprs);
	++*n_subexprs;
	rhs = sep + 1;
	if (sep == str || !*rhs)
		return malformed(ctx);
	expr = hist_field_alloc(HIST_FIELD_FL_EXPR | (flags & HIST_FIELD_FL_VAR));
	if (!expr)
		return NULL;
	expr->op = op;
	expr->ref_name = hist_kstrdup(str); /* named by its text, before it is cut in two */
	if (!expr->ref_name)
		goto fail;
	*sep = 0;
	a = expr->operands[0] = hist_parse_expr(ctx, hd, str, 0, n_subexprs);
	if (a && (a->flags & HIST_FIELD_FL_STRING)) {
		hist_err(ctx, HIST_ERR_INVALID_STR_OPERAND, str);
		a = NULL;
	}
	b = a ? (expr->operands[1] = hist_parse_expr(ctx, hd, rhs, 0, n_subexprs)) : NULL;
	if (b && (b->flags & HIST_FIELD_FL_STRING)) {
		hist_err(ctx, HIST_ERR_INVALID_STR_OPERAND, rhs);
		b = NULL;
	}
	/* Both timestamps in the same units, or none (Linux's check_expr_operands()). */
	if (b && (a->flags ^ b->flags) & HIST_FIELD_FL_TIMESTAMP_USECS) {
		hist_err(ctx, HIST_ERR_TIMESTAMP_MISMATCH, NULL);
		b = NULL;
	}
	if (b && op == FIELD_OP_DIV && (b->flags & HIST_FIELD_FL_CONST) && !b->constant) {
		hist_err(ctx, HIST_ERR_DIVISION_BY_ZERO, rhs);
		b = NULL;
	}
	*sep = "\0+-\0/*"[op];
	if (!b)
		goto fail;
	expr->flags |= a->flags & (HIST_FIELD_FL_TIMESTAMP | HIST_FIELD_FL_TIMESTAMP_USECS);
	expr->is_signed = a->is_signed;
	/* `$ts0` in `now-$ts0` is used up by the reading (Linux's read_once): the next event of
	 * the same key finds it unset until the matching event sets it again. */
	a->read_once = b->read_once = true;
	if (a->flags & b->flags & HIST_FIELD_FL_CONST) {
		expr->constant = hist_expr_op(op, a->constant, b->constant);
		expr->flags = HIST_FIELD_FL_CONST | (flags & HIST_FIELD_FL_VAR);
		hist_field_free(a);
		hist_field_free(b);
		expr->operands[0] = expr->operands[1] = NULL;
	}
	return expr;
fail:
	hist_field_free(expr);
	return NULL;
}

bool hist_has_var_ref(const struct hist_field *hf)
{
	return hf && ((hf->flags & HIST_FIELD_FL_VAR_REF) || hist_has_var_ref(hf->operands[0]) ||
		      hist_has_var_ref(hf->operands[1]));
}

const char *hist_field_name(const struct hist_field *hf)
{
	if (hf->field)
		return hf->field->name;
	if (hf->flags & HIST_FIELD_FL_HITCOUNT)
		return "hitcount";
	if (hf->flags & HIST_FIELD_FL_CPU)
		return "common_cpu";
	if (hf->flags & (HIST_FIELD_FL_EXPR | HIST_FIELD_FL_VAR_REF))
		return hf->ref_name;
	if (hf->flags & HIST_FIELD_FL_TIMESTAMP)
		return "common_timestamp";
	if (hf->flags & HIST_FIELD_FL_STACKTRACE)
		return "stacktrace";
	return "";
}

const char *hist_field_flags_str(const struct hist_field *hf)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(modifiers); i++)
		if (hf->flags & modifiers[i].flag)
			return modifiers[i].name;
	return hf->flags & HIST_FIELD_FL_BUCKET ? "buckets" : NULL;
}

struct hist_field *hist_parse_param(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
				    char *str)
{
	char *system, *event, *var = split_qualified(str, &system, &event);

	if (*var == '$')
		return parse_var_ref(ctx, hd, system, event, var + 1);
	return parse_field(ctx, str, HIST_FIELD_FL_VAR);
}

/* Linux's hist_field->type: what a synthetic event's field must be declared as to take it. */
const char *hist_field_type(const struct hist_field *hf)
{
	if (hf->flags & HIST_FIELD_FL_VAR_REF) {
		const struct hist_trigger_data *vh = hf->ref_hist;
		for (unsigned int i = 0; i < vh->n_vals; i++)
			if (vh->fields[i]->var_name && vh->fields[i]->var_idx == hf->ref_var_idx)
				return hist_field_type(vh->fields[i]);
		return "u64";
	}
	if (hf->field)
		return hf->field->type;
	if (hf->flags & HIST_FIELD_FL_CPU)
		return "unsigned int";
	return "u64";
}
