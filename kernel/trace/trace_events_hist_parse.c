/* The hist trigger's spec cut into its attributes (`keys=...:vals=...:sort=...:size=...:name=...`,
 * pause/cont/clear, assignments, actions) and Linux 6.1's error texts. Pure logic: the kernel and
 * the fuzzer (tests/fuzz/fuzz_hist.c) each give it a struct hist_parse_ctx. */
#include "kernel/trace/trace_events_hist.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/string.h"

static const char *const err_text[NR_HIST_ERRS] = {
	"No error",
	"Variable already defined",
	("Variable name not unique, need to use fully qualified name (subsys.event.var) for "
	 "variable"),
	"Too many variables defined",
	"Malformed assignment",
	"Named hist trigger doesn't match existing named trigger (includes variables)",
	"Hist trigger already exists",
	"Can't clear or continue a nonexistent hist trigger",
	"Couldn't set trace_clock",
	"Invalid field modifier",
	"Too many subexpressions (3 max)",
	"Timestamp units in expression don't match",
	"Too many field variables defined",
	"Event file not found",
	"Matching event histogram not found",
	"Couldn't create histogram for field",
	"Couldn't find synthetic variable",
	"Couldn't find synthetic event",
	"Param type doesn't match synthetic event field type",
	"Param count doesn't match synthetic event field count",
	"Couldn't parse field variable",
	"Couldn't create or find variable",
	"For onmax(x) or onchange(x), x must be a variable",
	"Couldn't find onmax or onchange variable",
	"Couldn't create onmax or onchange variable",
	"Couldn't create field variable",
	"Too many action params",
	"Couldn't find param",
	"Invalid action param",
	"No action found",
	"No params found for save()",
	"Can't have more than one save() action per hist",
	"Handler doesn't support action",
	"No closing paren found",
	"Missing subsystem",
	"Invalid subsystem or event name",
	"Using variable references in keys not supported",
	"Couldn't find variable",
	"Couldn't find field",
	"Empty assignment",
	"Invalid sort modifier",
	"Empty sort field",
	"Too many sort fields (Max = 2)",
	"Sort field must be a key or a val",
	"String type can not be an operand in expression",
	"Expecting numeric literal",
	"Unary minus not supported in sub-expressions",
	"Division by zero",
};

const char *hist_err_text(enum hist_err err)
{
	return err < NR_HIST_ERRS ? err_text[err] : "Error";
}

/* Linux's errpos(): where str first occurs in the command as written (0: nowhere). */
void hist_err(struct hist_parse_ctx *ctx, enum hist_err err, const char *str)
{
	const char *found = str && ctx->cmd ? strstr(ctx->cmd, str) : NULL;

	if (ctx->err)
		return; /* the first error is the one Linux logs */
	ctx->err = err;
	ctx->err_pos = found ? (int)(found - ctx->cmd) : 0;
}

char *hist_kstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = kmalloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

/* strsep(): the token before the first of delims, *s moved past it (NULL: it was the last). */
char *hist_strsep(char **s, const char *delims)
{
	char *tok = *s, *p;

	if (!tok)
		return NULL;
	for (p = tok; *p && !strchr(delims, *p); p++)
		;
	*s = *p ? p + 1 : NULL;
	*p = 0;
	return tok;
}

/* --- attributes: the spec cut at ':' ---------------------------------------------------------- */

static void attrs_free(struct hist_trigger_attrs *a)
{
	if (!a)
		return;
	kfree(a->keys_str);
	kfree(a->vals_str);
	kfree(a->sort_key_str);
	kfree(a->name);
	kfree(a->clock);
	for (unsigned int i = 0; i < a->n_assignments; i++)
		kfree(a->assignment_str[i]);
	for (unsigned int i = 0; i < a->n_actions; i++)
		kfree(a->action_str[i]);
	kfree(a);
}

/* size=N: rounded up to a power of two, within Linux's bounds. */
static int parse_map_size(const char *str)
{
	unsigned long size;
	unsigned int bits = 0;

	if (kstrtoul(str, 0, &size))
		return -EINVAL;
	while (bits < 32 && (1UL << bits) < size)
		bits++;
	if (bits < TRACING_MAP_BITS_MIN || bits > TRACING_MAP_BITS_MAX)
		return -EINVAL;
	return bits;
}

static int parse_assignment(struct hist_parse_ctx *ctx, char *str, struct hist_trigger_attrs *a)
{
	char **slot = NULL;
	size_t len = 0;

	if (!strncmp(str, "keys=", 5) || !strncmp(str, "key=", 4))
		slot = &a->keys_str, len = str[3] == 's' ? 5 : 4;
	else if (!strncmp(str, "vals=", 5) || !strncmp(str, "val=", 4))
		slot = &a->vals_str, len = str[3] == 's' ? 5 : 4;
	else if (!strncmp(str, "values=", 7))
		slot = &a->vals_str, len = 7;
	else if (!strncmp(str, "sort=", 5))
		slot = &a->sort_key_str, len = 5;
	else if (!strncmp(str, "name=", 5))
		slot = &a->name; /* kept whole: the listing prints `name=foo:` */
	else if (!strncmp(str, "clock=", 6))
		slot = &a->clock, len = 6;
	if (slot) {
		kfree(*slot);
		*slot = hist_kstrdup(str + len);
		return *slot ? 0 : -ENOMEM;
	}
	if (!strncmp(str, "size=", 5)) {
		int bits = parse_map_size(str + 5);
		if (bits < 0)
			return bits;
		a->map_bits = bits;
		return 0;
	}
	if (a->n_assignments == TRACING_MAP_VARS_MAX) {
		hist_err(ctx, HIST_ERR_TOO_MANY_VARS, str);
		return -EINVAL;
	}
	a->assignment_str[a->n_assignments] = hist_kstrdup(str);
	return a->assignment_str[a->n_assignments++] ? 0 : -ENOMEM;
}

static int parse_attrs(struct hist_parse_ctx *ctx, char *spec, struct hist_trigger_attrs **out)
{
	struct hist_trigger_attrs *a = kzalloc(sizeof(*a));
	int err = 0;

	if (!a)
		return -ENOMEM;
	while (spec && !err) {
		char *str = hist_strsep(&spec, ":"), *rhs = strchr(str, '=');
		if (rhs && !rhs[1]) {
			hist_err(ctx, HIST_ERR_EMPTY_ASSIGNMENT, str);
			err = -EINVAL;
		} else if (rhs) { /* anything with a '=' is an assignment, `x=-(a)+b` too */
			err = parse_assignment(ctx, str, a);
		} else if (!strcmp(str, "pause")) {
			a->pause = true;
		} else if (!strcmp(str, "cont") || !strcmp(str, "continue")) {
			a->cont = true;
		} else if (!strcmp(str, "clear")) {
			a->clear = true;
		} else if (a->n_actions < HIST_ACTIONS_MAX &&
			   (!strncmp(str, "onmatch(", 8) || !strncmp(str, "onmax(", 6) ||
			    !strncmp(str, "onchange(", 9))) {
			a->action_str[a->n_actions] = hist_kstrdup(str);
			err = a->action_str[a->n_actions++] ? 0 : -ENOMEM;
		} else {
			err = -EINVAL; /* Linux's parse_action() refuses it without a log line */
		}
	}
	if (!err && !a->keys_str)
		err = -EINVAL;
	if (!err && !a->clock && !(a->clock = hist_kstrdup("global")))
		err = -ENOMEM;
	if (!err && strcmp(a->clock, "global")) {
		hist_err(ctx, HIST_ERR_SET_CLOCK_FAIL, a->clock); /* the only clock we have */
		err = -EINVAL;
	}
	if (err) {
		attrs_free(a);
		return err;
	}
	*out = a;
	return 0;
}

int hist_trigger_parse(struct hist_parse_ctx *ctx, char *spec, struct hist_trigger_data **out)
{
	struct hist_trigger_data *hd = kzalloc(sizeof(*hd));
	char *p;
	int err;

	if (!hd)
		return -ENOMEM;
	/* `.sym-offset` holds a '-': renamed first so that expressions can be cut at +/-, as
	 * Linux does. */
	for (p = strstr(spec, ".sym-offset"); p; p = strstr(p + 11, ".sym-offset"))
		p[4] = 'X';
	err = parse_attrs(ctx, spec, &hd->attrs);
	if (err)
		goto fail;
	hd->system = ctx->system;
	hd->event = ctx->event;
	err = hist_create_fields(ctx, hd);
	hd->enable_timestamps = ctx->timestamps;
	if (!err)
		err = hist_parse_actions(ctx, hd);
	if (!err)
		err = hist_create_map(hd);
	if (err)
		goto fail;
	*out = hd;
	return 0;
fail:
	if (ctx->field_vars_undo && hd->n_field_var_hists)
		ctx->field_vars_undo(hd);
	hist_trigger_data_free(hd);
	return err;
}

void hist_trigger_data_free(struct hist_trigger_data *hd)
{
	if (!hd)
		return;
	hist_actions_free(hd);
	for (unsigned int i = 0; i < hd->n_fields; i++)
		hist_field_free(hd->fields[i]);
	/* var_refs[] only points into the fields above, which own them */
	tracing_map_destroy(hd->map);
	attrs_free(hd->attrs);
	kfree(hd);
}

static bool fields_match(const struct hist_field *a, const struct hist_field *b)
{
	return a->flags == b->flags && a->buckets == b->buckets &&
	       !strcmp(hist_field_name(a), hist_field_name(b)) &&
	       !strcmp(a->var_name ?: "", b->var_name ?: "");
}

static bool str_eq(const char *a, const char *b)
{
	return !strcmp(a ?: "", b ?: "");
}

/* Same handlers and actions with the same parameters (Linux's actions_match()). */
static bool actions_match(const struct hist_trigger_data *a, const struct hist_trigger_data *b)
{
	if (a->n_actions != b->n_actions)
		return false;
	for (unsigned int i = 0; i < a->n_actions; i++) {
		const struct action_data *x = a->actions[i], *y = b->actions[i];
		if (x->handler != y->handler || x->action != y->action ||
		    x->n_params != y->n_params || !str_eq(x->synth_name, y->synth_name) ||
		    !str_eq(x->match_system, y->match_system) ||
		    !str_eq(x->match_event, y->match_event) ||
		    !str_eq(x->track_var_str, y->track_var_str))
			return false;
		for (unsigned int j = 0; j < x->n_params; j++)
			if (strcmp(x->params[j], y->params[j]))
				return false;
	}
	return true;
}

bool hist_trigger_match(const struct hist_trigger_data *a, const struct hist_trigger_data *b)
{
	if (!actions_match(a, b))
		return false;
	if (a->n_fields != b->n_fields || a->n_vals != b->n_vals ||
	    a->n_sort_keys != b->n_sort_keys)
		return false;
	for (unsigned int i = 0; i < a->n_fields; i++)
		if (!fields_match(a->fields[i], b->fields[i]))
			return false;
	for (unsigned int i = 0; i < a->n_sort_keys; i++)
		if (a->sort_keys[i].field_idx != b->sort_keys[i].field_idx ||
		    a->sort_keys[i].descending != b->sort_keys[i].descending)
			return false;
	return true;
}
