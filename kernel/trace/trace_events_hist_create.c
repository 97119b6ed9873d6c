/* The histogram a hist trigger's spec asks for: its values, variables, keys and sort keys, then the
 * tracing_map that holds them (Linux's create_hist_fields() and create_tracing_map()). */
#include "kernel/trace/trace_events_hist.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"

/* --- the histogram: values, variables, keys, sort ------------------------------------------- */

static int add_field(struct hist_trigger_data *hd, struct hist_field *hf)
{
	if (hd->n_fields == HIST_FIELDS_MAX) {
		hist_field_free(hf);
		return -EINVAL;
	}
	hd->fields[hd->n_fields++] = hf;
	return 0;
}

static int create_val_fields(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd)
{
	char *s = hd->attrs->vals_str, *str;
	struct hist_field *hf = hist_field_alloc(HIST_FIELD_FL_HITCOUNT);

	if (!hf || add_field(hd, hf))
		return -ENOMEM;
	hd->n_vals = 1;
	while ((str = hist_strsep(&s, ","))) {
		unsigned int n_subexprs = 0;
		if (!strcmp(str, "hitcount"))
			continue;
		if (hd->n_vals == TRACING_MAP_VALS_MAX)
			return -EINVAL; /* Linux refuses it without a log line */
		hf = hist_parse_expr(ctx, hd, str, 0, &n_subexprs);
		if (!hf) /* refused (and logged), or no memory */
			return ctx->err || ctx->malformed ? -EINVAL : -ENOMEM;
		if (hf->flags &
		    (HIST_FIELD_FL_BUCKET | HIST_FIELD_FL_LOG2 | HIST_FIELD_FL_SYM |
		     HIST_FIELD_FL_SYM_OFFSET | HIST_FIELD_FL_SYSCALL | HIST_FIELD_FL_STRING)) {
			hist_err(ctx, HIST_ERR_BAD_FIELD_MODIFIER, str);
			hist_field_free(hf);
			return -EINVAL;
		}
		if (add_field(hd, hf))
			return -EINVAL;
		hd->n_vals++;
	}
	return 0;
}

/* `name=expr[,name=expr]` assignments: variables, kept per key in the map. */
static int create_var_fields(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd)
{
	for (unsigned int i = 0; i < hd->attrs->n_assignments; i++) {
		char *s = hd->attrs->assignment_str[i], *str;
		while ((str = hist_strsep(&s, ","))) {
			char *eq = strchr(str, '=');
			unsigned int n_subexprs = 0;
			struct hist_field *hf;
			if (!eq || eq == str) {
				hist_err(ctx, HIST_ERR_MALFORMED_ASSIGNMENT, str);
				return -EINVAL;
			}
			*eq = 0;
			if (hist_find_own_var(hd, str)) {
				hist_err(ctx, HIST_ERR_DUPLICATE_VAR, str);
				return -EINVAL;
			}
			if (hd->n_vars == TRACING_MAP_VARS_MAX) {
				hist_err(ctx, HIST_ERR_TOO_MANY_VARS, str);
				return -EINVAL;
			}
			hf = hist_parse_expr(ctx, hd, eq + 1, HIST_FIELD_FL_VAR, &n_subexprs);
			if (!hf)
				return ctx->err || ctx->malformed ? -EINVAL : -ENOMEM;
			hf->flags |= HIST_FIELD_FL_VAR;
			if (hf->flags & (HIST_FIELD_FL_BUCKET | HIST_FIELD_FL_LOG2)) {
				hist_err(ctx, HIST_ERR_BAD_FIELD_MODIFIER, eq + 1);
				hist_field_free(hf);
				return -EINVAL;
			}
			hf->var_name = hist_kstrdup(str);
			if (!hf->var_name) {
				hist_field_free(hf);
				return -ENOMEM;
			}
			hf->var_idx = hd->n_vars++;
			if (add_field(hd, hf))
				return -EINVAL;
			hd->n_vals++;
		}
	}
	return 0;
}

static int create_key_fields(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd)
{
	char *s = hd->attrs->keys_str, *str;

	while ((str = hist_strsep(&s, ","))) {
		unsigned int n_subexprs = 0;
		struct hist_field *hf;
		if (hd->n_keys == TRACING_MAP_KEYS_MAX)
			return -EINVAL; /* too many keys: Linux logs nothing either */
		if (!strcmp(str, "stacktrace")) {
			hf = hist_field_alloc(HIST_FIELD_FL_KEY | HIST_FIELD_FL_STACKTRACE);
			if (hf)
				hf->size = HIST_STACKTRACE_SIZE;
		} else {
			hf = hist_parse_expr(ctx, hd, str, HIST_FIELD_FL_KEY, &n_subexprs);
			if (hf && hist_has_var_ref(hf)) {
				hist_err(ctx, HIST_ERR_INVALID_REF_KEY, str);
				hist_field_free(hf);
				return -EINVAL;
			}
		}
		if (!hf)
			return ctx->err || ctx->malformed ? -EINVAL : -ENOMEM;
		hf->flags |= HIST_FIELD_FL_KEY;
		hf->size = ALIGN(hf->size, 8);
		hf->offset = hd->key_size;
		hd->key_size += hf->size;
		if (hd->key_size > HIST_KEY_SIZE_MAX || add_field(hd, hf))
			return -EINVAL;
		hd->n_keys++;
	}
	return hd->n_keys ? 0 : -EINVAL;
}

static int is_descending(struct hist_parse_ctx *ctx, const char *mod)
{
	if (!mod || !strcmp(mod, "ascending"))
		return 0;
	if (!strcmp(mod, "descending"))
		return 1;
	hist_err(ctx, HIST_ERR_INVALID_SORT_MODIFIER, mod);
	return -EINVAL;
}

/* sort=a[.descending][,b]: by hitcount, a value or a key (Linux's create_sort_keys()). */
static int create_sort_keys(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd)
{
	char *s = hd->attrs->sort_key_str, *str;
	unsigned int i;

	hd->n_sort_keys = 1; /* hitcount, ascending, unless told otherwise */
	if (!s)
		return 0;
	for (i = 0; i < TRACING_MAP_SORT_KEYS_MAX && (str = hist_strsep(&s, ",")); i++) {
		struct tracing_map_sort_key *sk = &hd->sort_keys[i];
		char *name = hist_strsep(&str, ".");
		unsigned int j, k;
		int desc;
		if (!*name) {
			hist_err(ctx, HIST_ERR_EMPTY_SORT_FIELD, "sort=");
			return -EINVAL;
		}
		if (i == TRACING_MAP_SORT_KEYS_MAX - 1 && s) {
			hist_err(ctx, HIST_ERR_TOO_MANY_SORT_FIELDS, "sort=");
			return -EINVAL;
		}
		sk->field_idx = 0;
		if (strcmp(name, "hitcount")) {
			for (j = 1, k = 1; j < hd->n_fields; j++) {
				if (hd->fields[j]->flags & HIST_FIELD_FL_VAR)
					continue;
				if (!strcmp(name, hist_field_name(hd->fields[j])))
					break;
				k++;
			}
			if (j == hd->n_fields) {
				hist_err(ctx, HIST_ERR_INVALID_SORT_FIELD, name);
				return -EINVAL;
			}
			sk->field_idx = k;
		}
		desc = is_descending(ctx, str);
		if (desc < 0)
			return desc;
		sk->descending = desc;
	}
	hd->n_sort_keys = i;
	return 0;
}

/* The map's fields in Linux's order: a sum per value, a slot per variable, then the keys. */
int hist_create_map(struct hist_trigger_data *hd)
{
	unsigned int bits = hd->attrs->map_bits ?: TRACING_MAP_BITS_DEFAULT, i;

	hd->map = tracing_map_create(bits, hd->key_size);
	if (!hd->map)
		return -ENOMEM;
	for_each_hist_val_field(i, hd)
	{
		struct hist_field *hf = hd->fields[i];
		int ret = hf->flags & HIST_FIELD_FL_VAR ? tracing_map_add_var(hd->map)
							: tracing_map_add_sum_field(hd->map);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < hd->n_action_vars; i++) /* onmax()'s maximum, save()'s values */
		if (tracing_map_add_var(hd->map) < 0)
			return -EINVAL;
	for_each_hist_key_field(i, hd)
	{
		struct hist_field *hf = hd->fields[i];
		tracing_map_cmp_fn_t cmp =
			hf->flags & HIST_FIELD_FL_STACKTRACE ? tracing_map_cmp_none
			: hf->flags & HIST_FIELD_FL_STRING   ? tracing_map_cmp_string
							   : tracing_map_cmp_num(8, hf->is_signed);
		int ret = tracing_map_add_key_field(hd->map, hf->offset, cmp);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int hist_create_fields(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd)
{
	int err = create_val_fields(ctx, hd);

	if (!err)
		err = create_var_fields(ctx, hd);
	if (!err)
		err = create_key_fields(ctx, hd);
	if (!err)
		err = create_sort_keys(ctx, hd);
	return err;
}
